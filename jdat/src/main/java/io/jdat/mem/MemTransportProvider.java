package io.jdat.mem;

import io.jdat.spi.Transport;
import io.jdat.spi.TransportProvider;
import io.jdat.transport.NamedTransportProvider;

/** The {@code mem} {@link TransportProvider}: the registry's library name {@code "mem"}. */
public final class MemTransportProvider extends NamedTransportProvider {
    /** Creates the provider (ServiceLoader). */
    public MemTransportProvider() {
        super("mem", MemTransportProvider::openIa);
    }

    /**
     * Opens the transport of one IA ({@code dat_ia_open}). The address name is the IA parameters (dat.conf
     * field 7) when they are not blank, else the IA name.
     */
    private static Transport openIa(String iaName, String iaParams) {
        String addr = iaParams == null || iaParams.isBlank() ? iaName : iaParams.trim();
        return new MemTransport(MemAddress.of(addr));
    }
}
