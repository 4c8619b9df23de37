package io.jdat.transport;

import io.jdat.spi.ConnectionSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The progress thread of one IA of a selector-based transport ({@code shm}, {@code tcp}): one daemon thread
 * that runs tasks handed to it ({@link #execute}: core notifications, registrations), makes progress on the
 * IA's connections and idles with a {@link BackoffIdle}, and the hand-over with a consumer that polls an event
 * dispatcher of the IA and so makes progress on its own thread.
 *
 * <p>The loop, one pass at a time: run the tasks; the transport's periodic work ({@link #periodic}); while a
 * consumer polled within the poller grace, park in slices of the poller park and look only at what the poller
 * does not ({@link #whilePolled}); otherwise one pass of work ({@link #pass}), then spin or block
 * ({@link #block}) as the idle strategy says. A selector or task failure never ends the loop.
 *
 * <p>Memory ordering: {@link #lastPoll} is volatile, written by pollers and read by this thread; tasks go
 * through a concurrent queue; {@link #wake} unparks the thread and wakes its selector, wherever it waits.
 */
public abstract class ProgressThread<C extends ProgressThread.Polled> implements Runnable {
    /** A connection the thread, or a consumer that polls, makes progress on. */
    public interface Polled {
        /**
         * One pass of progress on this connection (any thread; it skips what another thread is doing).
         *
         * @return true when it moved bytes or completed something
         */
        boolean poll();
    }

    /** The IA's connections, read without a lock by pollers. */
    protected final ConnectionSet<C> connections;
    /** The IA's selector: connections' sockets (and, for {@code shm}, doorbells). */
    protected final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final long pollerGraceNanos;
    private final long pollerParkNanos;
    private final BackoffIdle idle;
    /** When a consumer last polled (0: no poller). Written by pollers, read by this thread. */
    private volatile long lastPoll;
    private volatile boolean running = true;

    /**
     * Opens the selector; the subclass calls {@link #start} at the end of its constructor.
     *
     * @param threadName       the daemon thread's name
     * @param pollerGraceNanos how long after a consumer's last poll it still counts as polling
     * @param pollerParkNanos  the park slice while a consumer polls
     * @param idle             the idle strategy, with the transport's spin
     * @param none             an empty array of the connection type
     */
    protected ProgressThread(String threadName, long pollerGraceNanos, long pollerParkNanos, BackoffIdle idle,
            C[] none) {
        this.connections = new ConnectionSet<>(none);
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.pollerGraceNanos = pollerGraceNanos;
        this.pollerParkNanos = pollerParkNanos;
        this.idle = idle;
        thread = Thread.ofPlatform().daemon().name(threadName).unstarted(this);
    }

    /** Starts the thread (the last statement of the subclass's constructor: the loop uses its fields). */
    protected final void start() {
        thread.start();
    }

    /** True while the loop runs (until {@link #stop}). */
    protected final boolean running() {
        return running;
    }

    /** Ends the loop and wakes the thread; the subclass closes the rest (its {@code shutdown}). */
    protected final void stop() {
        running = false;
        wake();
    }

    /** Waits up to {@code millis} for the thread to end. */
    protected final void join(long millis) {
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes the selector (after {@link #stop}). */
    protected final void closeSelector() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    /** Runs {@code task} on this thread soon (core notifications, registrations, unmapping). */
    public final void execute(Runnable task) {
        tasks.add(task);
        wake();
    }

    /** Wakes the thread, wherever it waits. */
    public final void wake() {
        LockSupport.unpark(thread);
        selector.wakeup();
    }

    /** One pass over every connection ({@link Polled#poll}). @return true when one did something */
    protected final boolean pollConnections() {
        boolean any = false;
        for (C c : connections.snapshot()) {
            any |= c.poll();
        }
        return any;
    }

    /** Stops making progress on {@code c}. */
    public final void remove(C c) {
        connections.remove(c);
    }

    /** True when tasks wait (the thread must not block). */
    protected final boolean hasTasks() {
        return !tasks.isEmpty();
    }

    /** Runs the queued tasks; a failed one is dropped (a core notification whose EP is gone). */
    protected final void runTasks() {
        Runnable r;
        while ((r = tasks.poll()) != null) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // a core notification failed: the EP is gone; nothing else to do
            }
        }
    }

    /** A consumer polled at {@code now}: this thread stays out of its way for the poller grace. */
    protected final void polledAt(long now) {
        lastPoll = now | 1;
    }

    /** When a consumer last polled, 0 when none does. */
    protected final long lastPoll() {
        return lastPoll;
    }

    /** The polling consumer stops (to park in a wait): this thread takes over now. */
    public final void pollerIdle() {
        if (lastPoll != 0) {
            lastPoll = 0;
            wake();
        }
    }

    @Override
    public final void run() {
        while (running) {
            try {
                loop();
            } catch (InternalError e) {
                fault(e);
            }
        }
    }

    private void loop() {
        idle.woke(System.nanoTime());
        while (running) {
            try {
                runTasks();
                long t = System.nanoTime();
                periodic(t);
                long lp = lastPoll;
                if (lp != 0 && t - lp < pollerGraceNanos) {
                    LockSupport.parkNanos(this, pollerParkNanos);
                    whilePolled();
                    continue;
                }
                boolean work = pass();
                if (idle.idle(work, System.nanoTime())) {
                    block();
                    idle.woke(System.nanoTime());
                }
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    return;
                }
                LockSupport.parkNanos(1_000_000L); // a selector failure must not end the IA's progress
            }
        }
    }

    /** Periodic work at {@code now}, also while a consumer polls (deadlines, heartbeats). */
    protected abstract void periodic(long now);

    /** After a park slice while a consumer polls: what the poller does not look at (peers' ends). */
    protected abstract void whilePolled() throws IOException;

    /** One pass of progress on the IA's connections. @return true when it did something */
    protected abstract boolean pass() throws IOException;

    /** Blocks until something may be ready (the selector, with the transport's timeout). */
    protected abstract void block() throws IOException;

    /**
     * An {@link InternalError} escaped the loop (an unsafe-access fault that compiled code raised after the
     * handler near the access); the loop starts over after this. By default it ends the thread.
     */
    protected void fault(InternalError e) {
        throw e;
    }
}
