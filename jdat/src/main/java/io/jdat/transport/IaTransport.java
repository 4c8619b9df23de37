package io.jdat.transport;

import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import java.net.SocketAddress;

/**
 * The part of a built-in {@link Transport} that is the same for every transport: the IA address and the
 * limits, both fixed when the IA opens ({@code dat_ia_open}), and whether the transport was closed
 * ({@code dat_ia_close}). A transport adds what an address of its kind is ({@link #isValidAddress}),
 * listening, connecting and closing.
 *
 * @param <A> the kind of address the transport's IAs have
 */
public abstract class IaTransport<A extends SocketAddress> implements Transport {
    private final A address;
    private final TransportLimits limits;
    /** Set once by {@link #markClosed}; read without locks by the transport's threads. */
    private volatile boolean closed;

    /**
     * @param address the IA address ({@code dat_ia_query}'s {@code ia_address_ptr})
     * @param limits  what the transport can carry
     */
    protected IaTransport(A address, TransportLimits limits) {
        this.address = address;
        this.limits = limits;
    }

    @Override
    public final A address() {
        return address;
    }

    @Override
    public final TransportLimits limits() {
        return limits;
    }

    /** {@return true once {@link #markClosed} was called}: the IA is closing or closed. */
    public final boolean closed() {
        return closed;
    }

    /** The IA closes: from now on {@link #closed} is true (a volatile write, seen by every thread). */
    protected final void markClosed() {
        closed = true;
    }
}
