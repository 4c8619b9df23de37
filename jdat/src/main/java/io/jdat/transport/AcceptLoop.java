package io.jdat.transport;

import io.jdat.spi.AcceptBackoff;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.function.BooleanSupplier;

/**
 * The accept loop of a listening socket ({@code dat_psp_create}, {@code dat_rsp_create} of {@code shm} and
 * {@code tcp}), run on the listener's virtual thread: accepts until the listener closes and hands each
 * stream to the transport's handshake. A failed accept is retried with a back-off and reported when it
 * persists ({@link AcceptBackoff}); so is a stream that cannot be handed over (no thread, no memory: it is
 * closed, and the loop keeps listening). The loop ends only when the listener closes, or, logged and
 * reported, when its socket was closed under it or an unexpected error escapes.
 */
public final class AcceptLoop {
    /** Takes an accepted stream: starts its handshake (typically on a virtual thread of its own). */
    @FunctionalInterface
    public interface Handoff {
        /**
         * @param ch the accepted stream, now the handshake's
         */
        void accepted(SocketChannel ch);
    }

    /** Sees a failed accept before the back-off does (a trace line), or does nothing. */
    @FunctionalInterface
    public interface FailureTrace {
        /**
         * @param e the accept's failure
         */
        void failed(IOException e);
    }

    private AcceptLoop() {
    }

    /**
     * Runs the loop on the calling thread until {@code listening} turns false or the socket is closed.
     *
     * @param server    the listening socket
     * @param backoff   the listener's back-off and reporter
     * @param listening true while the listener is open
     * @param handoff   what to do with an accepted stream
     * @param trace     sees each failed accept
     */
    public static void run(ServerSocketChannel server, AcceptBackoff backoff, BooleanSupplier listening,
            Handoff handoff, FailureTrace trace) {
        Throwable stop = null;
        try {
            while (listening.getAsBoolean()) {
                SocketChannel ch;
                try {
                    ch = server.accept();
                } catch (ClosedChannelException e) {
                    stop = e;
                    break;
                } catch (IOException e) {
                    if (!listening.getAsBoolean()) {
                        break;
                    }
                    trace.failed(e);
                    backoff.failed(e);
                    continue;
                }
                backoff.accepted();
                try {
                    handoff.accepted(ch);
                } catch (RuntimeException | OutOfMemoryError e) {
                    // No thread for this one (e.g. out of memory): drop it, keep listening.
                    try {
                        ch.close();
                    } catch (IOException ignored) {
                        // gone either way
                    }
                    backoff.failed(e);
                }
            }
        } catch (RuntimeException | Error e) {
            stop = e;
            throw e;
        } finally {
            if (listening.getAsBoolean()) {
                backoff.stopped(stop != null ? stop : new IllegalStateException("accept loop ended"));
            }
        }
    }
}
