package io.jdat.transport;

import io.jdat.spi.ChannelSink;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * How a connection ended, as the core hears it: once, on the IA's progress thread (never from under the
 * connection's locks), that the peer disconnected ({@link ChannelSink#remoteDisconnected}) or that the
 * connection broke ({@link ChannelSink#broken}). The ending may come before the core gave its sink (the
 * stream ended between the handshake and {@code start}); then {@link #attach} says so and the connection
 * delivers it.
 *
 * <p>Memory ordering: the sink and the ending change under this object's monitor, so exactly one of
 * {@link #attach} and {@link #end} schedules the notification; the state is volatile, so the notification
 * task reads the latest value (a {@code tcp} ending may still rise from disconnected to broken).
 */
public final class ConnectionEnding {
    private static final int NOT_ENDED = 0;
    private static final int DISCONNECTED = 1;
    private static final int BROKEN = 2;

    private final Executor progress;
    private final BooleanSupplier closed;
    private final boolean rises;
    private ChannelSink sink;
    private volatile int state = NOT_ENDED;

    /**
     * @param progress the IA's progress thread ({@link ProgressThread#execute})
     * @param closed   true once the connection is closed: the core is told nothing then
     * @param rises    a disconnect seen first may still turn into a break before the core hears it (after a
     *                 reset, Linux reports the error to one system call and end of stream to the next)
     */
    public ConnectionEnding(Executor progress, BooleanSupplier closed, boolean rises) {
        this.progress = progress;
        this.closed = closed;
        this.rises = rises;
    }

    /**
     * The core gave its sink.
     *
     * @return true when the connection ended already: the caller then {@link #deliver delivers} to {@code s}
     */
    public synchronized boolean attach(ChannelSink s) {
        sink = s;
        return state != NOT_ENDED;
    }

    /**
     * The connection ended; the first ending (or a break after a disconnect, if it {@code rises}) counts.
     *
     * @param broken the connection broke (else the peer disconnected)
     * @return true when this call changed the ending (the caller may trace it)
     */
    public boolean end(boolean broken) {
        int want = broken ? BROKEN : DISCONNECTED;
        ChannelSink s;
        synchronized (this) {
            int was = state;
            if (rises ? was >= want : was != NOT_ENDED) {
                return false;
            }
            state = want;
            s = was == NOT_ENDED ? sink : null; // already scheduled: the task reads the raised value
        }
        if (s != null) {
            deliver(s); // with no sink yet, attach() says so and the connection delivers
        }
        return true;
    }

    /** Tells {@code s} of the ending, on the progress thread, unless the connection is closed by then. */
    public void deliver(ChannelSink s) {
        progress.execute(() -> {
            if (!closed.getAsBoolean()) {
                if (state == BROKEN) {
                    s.broken();
                } else {
                    s.remoteDisconnected();
                }
            }
        });
    }
}
