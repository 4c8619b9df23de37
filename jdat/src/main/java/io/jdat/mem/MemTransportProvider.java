package io.jdat.mem;

import io.jdat.spi.Transport;
import io.jdat.spi.TransportProvider;

/** The {@code mem} {@link TransportProvider}: the registry's library name {@code "mem"}. */
public final class MemTransportProvider implements TransportProvider {
    /** Creates the provider (ServiceLoader). */
    public MemTransportProvider() {
    }

    @Override
    public String name() {
        return "mem";
    }

    /**
     * Opens the transport of one IA. The address name is the IA parameters (dat.conf field 7) when they
     * are not blank, else the IA name.
     */
    @Override
    public Transport open(String iaName, String iaParams) {
        String addr = iaParams == null || iaParams.isBlank() ? iaName : iaParams.trim();
        return new MemTransport(MemAddress.of(addr));
    }
}
