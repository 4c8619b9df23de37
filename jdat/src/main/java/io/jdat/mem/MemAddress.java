package io.jdat.mem;

import java.net.SocketAddress;
import java.util.Objects;

/**
 * The IA address of the {@code mem} transport: a name inside this JVM. The IA opened as {@code "mem"}
 * has the address {@code MemAddress.of("mem")}.
 */
public final class MemAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;
    private final String name;

    private MemAddress(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * The address with this name.
     *
     * @param name the IA's address name
     * @return the address
     */
    public static MemAddress of(String name) {
        return new MemAddress(name);
    }

    /** The name. */
    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemAddress m && m.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "mem:" + name;
    }
}
