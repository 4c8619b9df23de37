package io.jdat.transport;

import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import java.net.SocketAddress;

/**
 * The part of a built-in {@link Transport} that is the same for every transport: the IA address and the
 * limits, both fixed when the IA opens ({@code dat_ia_open}), whether the transport was closed
 * ({@code dat_ia_close}), and its connection log. A transport adds what an address of its kind is
 * ({@link #isValidAddress}), listening, connecting and closing.
 *
 * <p>The connection log is the {@link System.Logger} {@code io.jdat.<name>}, at {@code DEBUG}; the system
 * property {@code jdat.<name>.trace=true} raises it to {@code INFO}, which the default backend prints.
 *
 * @param <A> the kind of address the transport's IAs have
 */
public abstract class IaTransport<A extends SocketAddress> implements Transport {
    private final A address;
    private final TransportLimits limits;
    private final System.Logger log;
    private final System.Logger.Level traceLevel;
    /** Set once by {@link #markClosed}; read without locks by the transport's threads. */
    private volatile boolean closed;

    /**
     * @param name    the transport's library name ({@code "mem"}, {@code "shm"}, {@code "tcp"}): its log's name
     * @param address the IA address ({@code dat_ia_query}'s {@code ia_address_ptr})
     * @param limits  what the transport can carry
     */
    protected IaTransport(String name, A address, TransportLimits limits) {
        this.address = address;
        this.limits = limits;
        this.log = System.getLogger("io.jdat." + name);
        this.traceLevel = Boolean.getBoolean("jdat." + name + ".trace") ? System.Logger.Level.INFO
                : System.Logger.Level.DEBUG;
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

    /**
     * Logs a connection event to the connection log.
     *
     * @param who  the connection, attempt or listener
     * @param what what happened
     */
    public final void trace(Object who, String what) {
        if (log.isLoggable(traceLevel)) {
            log.log(traceLevel, who + ": " + what);
        }
    }

    /** {@return e.g. {@code "TcpTransport[host/10.0.0.1:0]"}: the class and the IA address} */
    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + address + "]";
    }
}
