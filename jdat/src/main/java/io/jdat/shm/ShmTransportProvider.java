package io.jdat.shm;

import io.jdat.transport.NamedTransportProvider;

/**
 * The {@code shm} transport: DAT between processes on one host through shared memory. An IA address is the
 * {@link java.net.UnixDomainSocketAddress} of the IA's instance directory (see {@link ShmFiles}; with the IA
 * parameter {@code name=NAME} it is {@code <base>/ia-NAME}); a connection qualifier names a listening Unix
 * domain socket in that directory. IA parameters: see {@link ShmConfig}.
 */
public final class ShmTransportProvider extends NamedTransportProvider {
    /** The library name in dat.conf. */
    public static final String NAME = "shm";

    /** For {@link java.util.ServiceLoader}. */
    public ShmTransportProvider() {
        super(NAME, (iaName, iaParams) -> new ShmTransport(iaName, ShmConfig.parse(iaParams)));
    }
}
