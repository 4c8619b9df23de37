package io.jdat.tcp;

import io.jdat.transport.BackoffIdle;
import io.jdat.transport.ProgressThread;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;

/**
 * The progress engine of one {@code tcp} IA: one daemon thread with a {@link Selector} over the IA's
 * connections, and the consumer-driven path that lets a polling thread move bytes itself.
 *
 * <p>Idle strategy. While no consumer polls, the thread blocks in {@code select} (after spinning on
 * {@code selectNow} for {@link #SPIN_NANOS} after the last traffic, if configured) and burns no CPU; it reads
 * what arrives, finishes sends the socket could not take, closes lingering streams and runs the core
 * notifications ({@link #execute}). While a consumer polls an event dispatcher of this IA (it called
 * {@link #poll} within the last {@value #POLLER_GRACE_MICROS} µs), that consumer reads the sockets itself
 * and this thread stays out of the way, parking in 2 ms slices instead of selecting, so that two threads
 * never fight for one socket or one core. A consumer that stops polling to park in a wait hands over at
 * once ({@link #pollerIdle}). The loop and the hand-over are {@link ProgressThread}'s, with these constants.
 */
final class TcpProgress extends ProgressThread<TcpConnection> {
    static final long POLLER_GRACE_MICROS = 200;
    private static final long POLLER_GRACE_NANOS = POLLER_GRACE_MICROS * 1000;
    /**
     * How long the thread parks between looks while a consumer polls. Long, because every wake-up takes a
     * slice of a core the polling threads are spinning on; a consumer that parks hands over at once anyway
     * ({@link #pollerIdle}), only one that stops polling without waiting leaves its bytes this long.
     */
    private static final long POLLER_PARK_NANOS = 2_000_000;
    private static final long SELECT_MILLIS = 250;
    /**
     * How long the thread keeps spinning on {@code selectNow} after traffic before it blocks (system
     * property {@code jdat.tcp.progressSpinNanos}, default 0). Spinning lowers the latency of work no consumer
     * polls for (an RDMA Read served by a passive side: about 27 µs to 7 µs here) but takes a core while
     * traffic flows; on a 2-core machine whose consumers busy-poll it is a third busy thread, so it is off
     * unless asked for.
     */
    static final long SPIN_NANOS = Long.getLong("jdat.tcp.progressSpinNanos", 0L);

    private final ByteBuffer lingerBuffer = ByteBuffer.allocateDirect(16 * 1024);
    /** The selection callback, created once: a method reference per select would allocate. */
    private final java.util.function.Consumer<SelectionKey> readyAction = this::ready;
    private long lastHousekeeping = System.nanoTime();

    TcpProgress(String name) {
        super("jdat-tcp-" + name, POLLER_GRACE_NANOS, POLLER_PARK_NANOS, new BackoffIdle(SPIN_NANOS, 0),
                new TcpConnection[0]);
        start();
    }

    /** Consumer-driven progress: one receive (and send) pass over every connection, on the calling thread. */
    boolean poll() {
        long now = System.nanoTime();
        if (now - lastPoll() > POLLER_GRACE_NANOS / 4) {
            polledAt(now); // refreshed a few times per grace period, not on every poll
        }
        return pollConnections();
    }

    /** Starts watching {@code c}. */
    void add(TcpConnection c) {
        connections.add(c);
        execute(() -> {
            try {
                c.key = c.ch.register(selector, c.interest(), c);
            } catch (ClosedChannelException | CancelledKeyException e) {
                remove(c);
            }
        });
    }

    /** Stops the thread (the IA closed). */
    void shutdown() {
        stop();
        closeSelector();
    }

    @Override
    protected void periodic(long now) {
        if (now - lastHousekeeping > SELECT_MILLIS * 1_000_000L) {
            lastHousekeeping = now; // also while a consumer polls: deadlines do not wait for it
            housekeeping();
        }
    }

    @Override
    protected void whilePolled() {
        // the poller reads the sockets; housekeeping runs in periodic()
    }

    /** A non-blocking select: spinning on it after traffic avoids waking from epoll (tens of µs here). */
    @Override
    protected boolean pass() throws IOException {
        return selector.selectNow(readyAction) > 0;
    }

    @Override
    protected void block() throws IOException {
        selector.select(readyAction, SELECT_MILLIS);
    }

    private void ready(SelectionKey k) {
        TcpConnection c = (TcpConnection) k.attachment();
        try {
            if (c.lingerUntil != 0) {
                c.linger(lingerBuffer);
                return;
            }
            if (k.isReadable()) {
                c.rx.poll();
            }
            if (k.isValid() && k.isWritable()) {
                c.tx.kick();
            }
        } catch (CancelledKeyException e) {
            // closed meanwhile
        }
    }

    /** Receive-not-ready deadlines, lingering closes that saw no traffic, drain and liveness deadlines. */
    private void housekeeping() {
        long now = System.nanoTime();
        for (TcpConnection c : connections.snapshot()) {
            if (c.lingerUntil != 0) {
                c.linger(lingerBuffer);
                continue;
            }
            if (c.rx.stalled()) {
                c.rx.poll();
            }
            c.checkDeadlines(now);
        }
    }
}
