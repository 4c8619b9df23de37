package io.jdat.transport;

import io.jdat.spi.AcceptBackoff;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A listening stream socket of a service point ({@code dat_psp_create}, {@code dat_rsp_create}; {@code shm}: a
 * Unix domain socket file, {@code tcp}: a TCP port): the bound socket, its accept loop on a virtual thread
 * ({@link AcceptLoop}, which lives through failed accepts with an {@link AcceptBackoff}) handing each stream to
 * the transport ({@link #accepted}), its place in the transport's {@link IaTransport#listeners} from
 * {@link #start} to {@link #close}, and the close, which takes effect once.
 *
 * @param <T> the transport
 */
public abstract class StreamListener<T extends IaTransport<?, ?>> implements Transport.Listener {
    /** The transport of the IA that listens. */
    protected final T transport;
    private final IncomingHandler handler;
    private final ServerSocketChannel server;
    private final AcceptBackoff backoff;
    private final String threadName;
    /** Set once by {@link #close}; read by the accept thread and the handshakes. */
    private volatile boolean closed;

    /**
     * @param transport  the transport of the IA that listens
     * @param handler    the service point, told of each request and of accepts that keep failing
     * @param server     the bound socket; the listener closes it
     * @param log        where failed accepts are logged ({@code io.jdat.<name>})
     * @param threadName the name of the accept thread
     */
    protected StreamListener(T transport, IncomingHandler handler, ServerSocketChannel server, System.Logger log,
            String threadName) {
        this.transport = transport;
        this.handler = handler;
        this.server = server;
        this.threadName = threadName;
        this.backoff = new AcceptBackoff(log, this, handler);
    }

    /** Joins the transport's {@link IaTransport#listeners} and starts accepting. */
    public final void start() {
        VirtualThreadPoller.start();
        transport.listeners.add(this);
        Thread.ofVirtual().name(threadName).start(() -> AcceptLoop.run(server, backoff, this::isOpen,
                this::accepted, e -> transport.trace(this, "accept failed: " + e)));
    }

    /**
     * Loads, links and initialises the classes a handshake needs, now, while the process has file descriptors:
     * loading a class can need one (an application run from class directories opens a file per class), and a class
     * reference whose resolution fails once fails for good (JVMS 5.4.3). Loaded lazily by a requester handled while
     * the descriptors are exhausted, they would fail every later connection of the process. A listener calls it
     * from its constructor.
     *
     * @param lookup  a lookup with access to {@code classes} (the transport's package)
     * @param classes the handshake's classes
     */
    protected static void linkHandshake(MethodHandles.Lookup lookup, Class<?>... classes) {
        try {
            for (Class<?> c : classes) {
                lookup.ensureInitialized(c);
            }
        } catch (IllegalAccessException e) {
            throw new AssertionError(e); // the classes are the caller's package's
        }
    }

    /**
     * A stream was accepted: its handshake starts (typically a {@link StreamRequest} on a virtual thread).
     *
     * @param ch the accepted stream
     */
    protected abstract void accepted(SocketChannel ch);

    /** {@return the service point's handler of requests} */
    public final IncomingHandler handler() {
        return handler;
    }

    /** {@return true until the listener or its IA closes}: a request that arrives later is refused */
    public final boolean isOpen() {
        return !closed && !transport.closed();
    }

    /** Stops accepting (ends a back-off sleep at once), closes the socket and leaves the transport's listeners. */
    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        backoff.close();
        try {
            server.close();
        } catch (IOException e) {
            // gone either way
        }
        released();
        transport.listeners.remove(this);
    }

    /** After the socket closed ({@link #close}, once): what else the listener holds. Nothing by default. */
    protected void released() {
    }
}
