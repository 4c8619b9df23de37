package io.jdat.tcp;

import io.jdat.spi.ConnectionSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

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
 * once ({@link #pollerIdle}).
 */
final class TcpProgress implements Runnable {
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

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ByteBuffer lingerBuffer = ByteBuffer.allocateDirect(16 * 1024);
    /** The selection callback, created once: a method reference per select would allocate. */
    private final java.util.function.Consumer<SelectionKey> readyAction = this::ready;
    /** The IA's connections, read without a lock by pollers. */
    private final ConnectionSet<TcpConnection> connections = new ConnectionSet<>(new TcpConnection[0]);
    /** When a consumer last polled (0: no poller). Written by pollers, read by this thread. */
    private volatile long lastPoll;
    private volatile boolean running = true;

    TcpProgress(String name) {
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        thread = Thread.ofPlatform().daemon().name("jdat-tcp-" + name).unstarted(this);
        thread.start();
    }

    /** Consumer-driven progress: one receive (and send) pass over every connection, on the calling thread. */
    boolean poll() {
        long now = System.nanoTime();
        if (now - lastPoll > POLLER_GRACE_NANOS / 4) {
            lastPoll = now | 1; // refreshed a few times per grace period, not on every poll
        }
        TcpConnection[] cs = connections.snapshot();
        boolean any = false;
        for (TcpConnection c : cs) {
            any |= c.poll();
        }
        return any;
    }

    /** The polling consumer stops: this thread takes over now. */
    void pollerIdle() {
        if (lastPoll != 0) {
            lastPoll = 0;
            LockSupport.unpark(thread);
        }
    }

    /** Runs {@code task} on this thread soon (core notifications, registrations). */
    void execute(Runnable task) {
        tasks.add(task);
        wake();
    }

    /** Wakes the thread, wherever it waits. */
    void wake() {
        LockSupport.unpark(thread);
        selector.wakeup();
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

    /** Stops watching {@code c}. */
    void remove(TcpConnection c) {
        connections.remove(c);
    }

    /** Stops the thread (the IA closed). */
    void shutdown() {
        running = false;
        wake();
        try {
            selector.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public void run() {
        long lastHousekeeping = System.nanoTime();
        long lastActive = 0;
        while (running) {
            try {
                runTasks();
                long t = System.nanoTime();
                if (t - lastHousekeeping > SELECT_MILLIS * 1_000_000L) {
                    lastHousekeeping = t; // also while a consumer polls: deadlines do not wait for it
                    housekeeping();
                }
                long lp = lastPoll;
                if (lp != 0 && t - lp < POLLER_GRACE_NANOS) {
                    LockSupport.parkNanos(this, POLLER_PARK_NANOS);
                    continue;
                }
                // Spin briefly on a non-blocking select after traffic: waking a thread blocked in epoll costs
                // tens of microseconds here, more than a round trip.
                int n = selector.selectNow(readyAction);
                long now = System.nanoTime();
                if (n > 0) {
                    lastActive = now;
                } else if (now - lastActive > SPIN_NANOS) {
                    selector.select(readyAction, SELECT_MILLIS);
                    now = System.nanoTime();
                    lastActive = now;
                } else {
                    Thread.onSpinWait();
                }
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    return;
                }
                // A selector failure must not kill the IA's progress: keep going.
                LockSupport.parkNanos(1_000_000L);
            }
        }
    }

    private void runTasks() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // a core notification failed: the EP is gone; nothing else to do
            }
        }
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
