package io.jdat.spi;

/**
 * A transport implementation, found through {@link java.util.ServiceLoader} by the library name of a
 * registry entry (dat.conf field 5): {@code "mem"}, {@code "shm"}, {@code "tcp"}.
 */
public interface TransportProvider {
    /** {@return the library name this provider answers to} */
    String name();

    /**
     * Opens the transport side of one IA instance ({@code dat_ia_open}).
     *
     * @param iaName   the IA name being opened
     * @param iaParams the registry entry's IA parameters (dat.conf field 7)
     * @return the transport instance, owned by the IA until it closes
     */
    Transport open(String iaName, String iaParams);

    /**
     * Why this transport cannot open any IA on this machine (for {@code jdat info}), in one line, or
     * {@code null} (the default) when it can. A software transport is always available; a device transport
     * says, e.g., that {@code libibverbs.so.1} is missing or that there is no RDMA device.
     *
     * @return the reason, or {@code null} when available
     */
    default String unavailableReason() {
        return null;
    }
}
