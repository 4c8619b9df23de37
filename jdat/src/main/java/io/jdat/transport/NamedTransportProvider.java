package io.jdat.transport;

import io.jdat.spi.Transport;
import io.jdat.spi.TransportProvider;

/**
 * The part of a built-in {@link TransportProvider} that is the same for every transport: its library name
 * (the registry entry's field that selects it) and {@code open} ({@code dat_ia_open}) as a function of the IA
 * name and parameters. A subclass is a public class with a public no-argument constructor, for
 * {@link java.util.ServiceLoader}, that passes both.
 */
public abstract class NamedTransportProvider implements TransportProvider {
    /** {@code dat_ia_open} of one transport: the IA's transport from its name and IA parameters. */
    @FunctionalInterface
    public interface Opener {
        /**
         * Opens the transport of one IA.
         *
         * @param iaName   the registry entry's IA name
         * @param iaParams its IA parameters (dat.conf field 7), possibly empty
         * @return the transport
         */
        Transport open(String iaName, String iaParams);
    }

    private final String name;
    private final Opener opener;

    /**
     * @param name   the library name in dat.conf ({@code "mem"}, {@code "shm"}, {@code "tcp"}, {@code "verbs"})
     * @param opener what {@link #open} does
     */
    protected NamedTransportProvider(String name, Opener opener) {
        this.name = name;
        this.opener = opener;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Transport open(String iaName, String iaParams) {
        return opener.open(iaName, iaParams);
    }
}
