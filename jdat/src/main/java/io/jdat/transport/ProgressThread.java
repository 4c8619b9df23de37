package io.jdat.transport;

import io.jdat.spi.ConnectionSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * consumer polled within the poller grace ({@link #POLLER_GRACE_MICROS}), park in slices of the poller park
 * ({@link #POLLER_PARK_MILLIS}) and look only at what the poller does not ({@link #whilePolled}); otherwise one
 * pass of work ({@link #pass}), then spin or block ({@link #block}) as the idle strategy says. A selector or
 * task failure never ends the loop.
 *
 * <p>The idle strategy and its constants live here, the same for every transport: the poller grace and the park
 * slice above, the return window ({@link #CONSUMER_RETURN_MICROS}) and a {@link BackoffIdle} that spins after
 * the last work. A transport gives only its spin (the constructor's {@code spinNanos}), its consumer's
 * {@link #poll}, and what a pass and a block are ({@link #pass}, {@link #block}: {@code shm} blocks in
 * {@code select} for at most 100 ms, {@code tcp} for at most 250 ms).
 *
 * <p>Presence. A consumer counts as polling while it called {@link #polledAt} within the poller grace, or, once
 * it has polled at all ({@link #lastPoll} not 0), while its successful dequeues keep coming
 * ({@link #eventDequeued}, counted between two looks of this thread): a consumer busy with many connections
 * dequeues and handles the events of one pass for milliseconds (at 1024 connections, 10-25 ms per cycle) without
 * polling, and a grace long enough for that would leave the bytes of a consumer that stopped polling waiting as
 * long. Once the dequeues stop, the thread takes over after at most one park slice plus the grace.
 *
 * <p>Just gone. For {@link #CONSUMER_RETURN_MICROS} after a consumer was last present (and unless it handed over
 * with {@link #pollerIdle}), the thread expects it back: it makes one pass per park slice, and neither spins
 * nor blocks. One consumer thread often serves several IAs in turn (a server and a client IA in one process,
 * or IAs of several providers), or handles a burst of events between two polls of this IA; taken for absence,
 * each of these gaps made the thread spin on a core the consumer needs, and its sleep decision made every hot
 * connection of a busy {@code shm} IA cold (the peer then rings a doorbell for every message; issue 18, 1024
 * connections). A consumer that truly left without a wait leaves its peers' bytes at most one slice until the
 * window ends, then the thread works and sleeps as before.
 *
 * <p>Memory ordering: {@link #lastPoll} is volatile, written by pollers and read by this thread; the dequeue
 * count is written with an opaque store (no fence: a plain {@code mov} on x86, on the consumer's hot path) and
 * read with an opaque load: a heuristic that needs no ordering with anything else, only that the thread sees a
 * changed count eventually (within its next slice). Tasks go through a concurrent queue; {@link #wake} unparks
 * the thread and wakes its selector, wherever it waits.
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
    private final BackoffIdle idle;
    /**
     * How long after its last poll ({@link #polledAt}) a consumer still counts as polling: 200 µs, a few
     * thousand empty polls, so a consumer that polls on keeps the thread out of its way while it refreshes its
     * stamp only now and then (every transport's {@link #poll} does so on one call in 16 or 32, not on each).
     */
    public static final long POLLER_GRACE_MICROS = 200;
    /** {@link #POLLER_GRACE_MICROS} in nanoseconds. */
    protected static final long POLLER_GRACE_NANOS = POLLER_GRACE_MICROS * 1000;
    /**
     * The park slice while a consumer polls: 2 ms. Long, because every wake-up takes a slice of a core the
     * polling threads are spinning on; a consumer that parks hands over at once anyway ({@link #pollerIdle}),
     * only one that stops polling without waiting leaves its bytes this long.
     */
    public static final long POLLER_PARK_MILLIS = 2;
    private static final long POLLER_PARK_NANOS = POLLER_PARK_MILLIS * 1_000_000L;
    /** When a consumer last polled (0: no poller). Written by pollers, read by this thread. */
    private volatile long lastPoll;
    /**
     * Consumers' successful dequeues on this IA's event dispatchers ({@link #eventDequeued}), at index
     * {@link #DEQUEUED}, a cache line away from the array's ends and from this object's other fields: consumers
     * write it on every dequeue, this thread reads it once per loop.
     */
    private final long[] dequeued = new long[2 * DEQUEUED + 1];
    private static final int DEQUEUED = 8;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** The dequeue count at this thread's previous look (thread-confined). */
    private long dequeuedSeen;
    /** When this thread last found a consumer present ({@link #consumerPresent}; thread-confined). */
    private long presentAt;
    /**
     * How long after a consumer was last present this thread still expects it back ({@link #CONSUMER_RETURN_MICROS}).
     */
    private final long consumerReturnNanos = CONSUMER_RETURN_MICROS * 1000;
    /**
     * How long after a consumer was last present (it polled within the grace, or its dequeues kept coming) the
     * thread still expects it back: meanwhile it makes one pass per park slice and neither spins nor blocks,
     * so it neither takes a core from a consumer between two of its visits nor makes the hot connections of
     * a busy IA cold (system property {@code jdat.progress.consumerReturnMicros}; default 20 ms, 0 turns it off).
     */
    public static final long CONSUMER_RETURN_MICROS = Long.getLong("jdat.progress.consumerReturnMicros", 20_000L);
    private volatile boolean running = true;

    /**
     * Opens the selector; the subclass calls {@link #start} at the end of its constructor (or later).
     *
     * @param threadName the daemon thread's name
     * @param spinNanos  the idle strategy's spin after the last work before blocking ({@link BackoffIdle}): the
     *                   transport's constant
     * @param none       an empty array of the connection type
     */
    protected ProgressThread(String threadName, long spinNanos, C[] none) {
        this.connections = new ConnectionSet<>(none);
        try {
            selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.idle = new BackoffIdle(spinNanos, 0); // the loop starts the spin when it starts (idle.woke)
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

    /**
     * Consumer-driven progress on the calling thread ({@code Transport.progress}: a consumer polls or spin-waits
     * on an event dispatcher of this IA and found nothing). Calls {@link #polledAt} now and then, so that this
     * thread stays out of the consumer's way; never blocks, allocates nothing.
     *
     * @return true when it moved bytes or completed something
     */
    public abstract boolean poll();

    /** A consumer polled at {@code now}: this thread stays out of its way for the poller grace. */
    protected final void polledAt(long now) {
        lastPoll = now | 1;
    }

    /**
     * A consumer dequeued an event from one of this IA's event dispatchers ({@code dat_evd_dequeue} that returned
     * one): while these keep coming, a consumer that has polled counts as polling (see the class comment). On the
     * consumer's hot path: a plain load and an opaque store (no fence, no allocation, no clock read); racy across
     * consumers on purpose (a lost increment still changes the count).
     */
    public final void eventDequeued() {
        LONGS.setOpaque(dequeued, DEQUEUED, (long) LONGS.get(dequeued, DEQUEUED) + 1);
    }

    /** True when consumers dequeued since this thread's previous call (thread-confined: the loop's). */
    private boolean dequeuedSinceLastLook() {
        long d = (long) LONGS.getOpaque(dequeued, DEQUEUED);
        if (d == dequeuedSeen) {
            return false;
        }
        dequeuedSeen = d;
        return true;
    }

    /**
     * Whether a consumer counts as polling at {@code now}: it polled within the grace, or it has polled
     * ({@code lastPoll != 0}: not handed over with {@link #pollerIdle}) and dequeued since this thread's previous
     * look. Called once per loop (it moves the look).
     */
    private boolean consumerPresent(long now) {
        boolean dequeuing = dequeuedSinceLastLook();
        long lp = lastPoll;
        return lp != 0 && (now - lp < POLLER_GRACE_NANOS || dequeuing);
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
        presentAt = System.nanoTime() - consumerReturnNanos - 1; // not just gone
        while (running) {
            try {
                runTasks();
                long t = System.nanoTime();
                periodic(t);
                if (consumerPresent(t)) {
                    presentAt = t;
                    LockSupport.parkNanos(this, POLLER_PARK_NANOS);
                    whilePolled();
                    continue;
                }
                if (lastPoll != 0 && t - presentAt < consumerReturnNanos) {
                    // Just gone: one pass per slice, no spin, no sleep decision (see the class comment).
                    pass();
                    LockSupport.parkNanos(this, POLLER_PARK_NANOS);
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
