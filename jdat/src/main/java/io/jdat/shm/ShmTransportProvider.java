package io.jdat.shm;

import io.jdat.spi.Transport;
import io.jdat.spi.TransportProvider;

/**
 * The {@code shm} transport: DAT between processes on one host through shared memory. An IA address is the
 * {@link java.net.UnixDomainSocketAddress} of the IA's instance directory (see {@link ShmFiles}; with the IA
 * parameter {@code name=NAME} it is {@code <base>/ia-NAME}); a connection qualifier names a listening Unix
 * domain socket in that directory. IA parameters: see {@link ShmConfig}.
 */
public final class ShmTransportProvider implements TransportProvider {
    /** The library name in dat.conf. */
    public static final String NAME = "shm";

    /** For {@link java.util.ServiceLoader}. */
    public ShmTransportProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Transport open(String iaName, String iaParams) {
        return new ShmTransport(iaName, ShmConfig.parse(iaParams));
    }
}
