package io.jdat.transport;

import io.jdat.spi.Transport;
import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * A connection request that arrives as a stream one of the transport's listeners accepted ({@code shm},
 * {@code tcp}): the transport, the listener and the stream, its place in the transport's
 * {@link IaTransport#incoming} requests from {@link #launch} until it is answered or dropped, and the drop
 * ({@link #abort}) that closes the stream. The transport adds the handshake: reading the request, then
 * {@code accept}, {@code reject} or {@code refuse}.
 *
 * @param <T> the transport
 * @param <L> the transport's listener
 */
public abstract class StreamRequest<T extends IaTransport<?, ?>, L extends Transport.Listener>
        extends ReceivedRequest {
    /** The transport of the IA that listens. */
    protected final T transport;
    /** The listener that accepted the stream. */
    protected final L listener;
    /** The accepted stream, in blocking mode: the handshake runs on virtual threads. */
    protected final SocketChannel ch;

    /**
     * @param transport the transport of the IA that listens
     * @param listener  the listener that accepted {@code ch}
     * @param ch        the accepted stream
     */
    protected StreamRequest(T transport, L listener, SocketChannel ch) {
        this.transport = transport;
        this.listener = listener;
        this.ch = ch;
    }

    /**
     * Joins the transport's {@link IaTransport#incoming} requests and runs the handshake on a virtual thread.
     * A handshake that ends in an {@link Error} (a class that cannot be loaded while the fds are exhausted, an
     * {@link OutOfMemoryError}...) drops a request nobody answered yet at once, so that the requester hears the
     * closed stream now instead of waiting out its timeout; the error still ends the thread.
     *
     * @param threadName the thread's name
     * @param handshake  reads and checks the request, then offers it to the listener's handler
     */
    public final void launch(String threadName, Runnable handshake) {
        transport.incoming.add(this);
        Thread.ofVirtual().name(threadName).start(() -> {
            try {
                handshake.run();
            } catch (Error e) {
                if (claimAnswer()) {
                    abort();
                }
                throw e;
            }
        });
    }

    /** Leaves the transport's {@link IaTransport#incoming} requests: {@code dat_ia_close} no longer drops it. */
    protected final void leave() {
        transport.incoming.remove(this);
    }

    /** Closes the stream (a failure to close leaves it closed as well). */
    protected final void closeStream() {
        try {
            ch.close();
        } catch (IOException e) {
            // closed either way
        }
    }

    /** Drops the request (a deadline, the IA closes, a bad request): leaves the incoming requests, closes the stream. */
    @Override
    protected void abort() {
        leave();
        closeStream();
    }
}
