package io.jdat.transport;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * The part of a built-in {@link Transport} that is the same for every transport: the IA address and the
 * limits, both fixed when the IA opens ({@code dat_ia_open}), whether the transport was closed
 * ({@code dat_ia_close}), its connection log, what its connection management has open (listeners, outgoing
 * attempts, incoming requests, connections) and the order {@code dat_ia_close} closes them in ({@link #close}).
 * A transport adds what an address of its kind is ({@link #isValidAddress}), listening, connecting, how one of
 * its connections is abandoned ({@link #abandon}) and what else its IA holds ({@link #releaseResources}).
 *
 * <p>The connection log is the {@link System.Logger} {@code io.jdat.<name>}, at {@code DEBUG}; the system
 * property {@code jdat.<name>.trace=true} raises it to {@code INFO}, which the default backend prints.
 *
 * <p>The transport keeps the four sets: a listener, attempt, request or connection is added when it starts and
 * removed when it ends, so {@link #close} finds only what is still open. They are concurrent sets: an element
 * may leave while {@link #close} walks them.
 *
 * @param <A> the kind of address the transport's IAs have
 * @param <C> the transport's connection type
 */
public abstract class IaTransport<A extends SocketAddress, C> implements Transport {
    /** The open listeners ({@code dat_psp_create}, {@code dat_rsp_create}). */
    public final Set<Transport.Listener> listeners = ConcurrentHashMap.newKeySet();
    /** The outgoing attempts without an outcome yet ({@code dat_ep_connect}). */
    public final Set<OutgoingAttempt> attempts = ConcurrentHashMap.newKeySet();
    /** The incoming requests not yet answered or not yet through their handshake. */
    public final Set<ReceivedRequest> incoming = ConcurrentHashMap.newKeySet();
    /** The established connections, until they are closed. */
    public final Set<C> connections = ConcurrentHashMap.newKeySet();

    /** The first qualifier {@link #listenOnAny} tries. */
    private static final long FIRST_ANY_QUAL = 1024;

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

    /**
     * {@code dat_psp_create_any} for a transport whose qualifiers are its own namespace (not TCP ports): listens
     * on the first free qualifier of 65536 from 1024 on (PSP-09).
     *
     * @param listenOn listens on one qualifier, or returns null when that qualifier is in use
     * @return the listener
     * @throws DatException {@link DatReturnType#CONN_QUAL_UNAVAILABLE} when every one is in use
     */
    protected final Listener listenOnAny(LongFunction<Listener> listenOn) {
        for (long q = FIRST_ANY_QUAL; q < FIRST_ANY_QUAL + 65536; q++) {
            Listener l = listenOn.apply(q);
            if (l != null) {
                return l;
            }
        }
        throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE, "no free connection qualifier (PSP-09)");
    }

    /** The IA closes: from now on {@link #closed} is true (a volatile write, seen by every thread). */
    private void markClosed() {
        closed = true;
    }

    /**
     * {@code dat_ia_close} (abrupt): marks the transport closed, then closes its listeners, cancels its
     * attempts, drops its incoming requests ({@link ReceivedRequest#abort}), abandons its connections
     * ({@link #abandon}) and last releases what else the IA holds ({@link #releaseResources}): a listener is
     * closed before the requests it took are dropped, a request before the connections are abandoned.
     */
    @Override
    public final void close() {
        stopListening();
        for (OutgoingAttempt a : attempts) {
            a.cancel();
        }
        for (ReceivedRequest r : incoming) {
            r.abort();
        }
        for (C c : connections) {
            abandon(c);
        }
        releaseResources();
    }

    /** The first step of {@link #close} and of a graceful close: marks the transport closed, closes its listeners. */
    protected final void stopListening() {
        markClosed();
        for (Transport.Listener l : listeners) {
            l.close();
        }
    }

    /**
     * The IA closes under an open connection: the connection breaks at once, without a graceful exchange.
     *
     * @param connection one of {@link #connections}
     */
    protected abstract void abandon(C connection);

    /** The last step of {@link #close}: stops the progress thread and frees what else the IA holds. */
    protected abstract void releaseResources();

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
