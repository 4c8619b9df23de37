package io.jdat.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The IA's poll lock: one poller of the IA's CQs at a time (a consumer in {@code dat_evd_dequeue} through
 * {@code Transport.progress}, or the progress thread), and the native objects are destroyed under it. Reentrant
 * (the progress thread dispatches an rdma_cm event under it, and the handler polls or destroys under it again).
 *
 * <p>It replaces a {@code ReentrantLock} on the consumer's busy poll: an uncontended {@link #tryLock} is one
 * compare-and-set and {@link #unlock} one release store, small enough for C1 to inline (the guest's JIT mode), where
 * {@code ReentrantLock.tryLock} and {@code unlock} were several calls and a full fence per turn (a JFR profile of
 * the poll loop: 34% of its samples in {@code tryLock}; docs/verbs.md, "Per-turn cost of the consumer's poll").
 * There is no queue of waiters: {@link #lock} (the progress thread, a connection's destroy, both rare) spins a
 * little, then parks for short intervals until the lock is free. A consumer that finds it held returns at once,
 * as before.
 *
 * <p>Memory ordering: the owner is taken by a compare-and-set (volatile: acquire) and given up by a release store,
 * so everything a holder wrote under the lock (a connection's send and receive counters, the completion array,
 * the native objects' state) happens-before whatever the next holder does after taking it. {@code holds} is read
 * and written by the owner only.
 */
final class PollLock {
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(PollLock.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Spins of {@link #lock} before it parks between tries. */
    private static final int SPINS = 64;
    /** How long {@link #lock} parks between tries once it has spun, ns. */
    private static final long PARK_NANOS = 20_000;

    /** The holder, or null (through {@link #OWNER}). */
    @SuppressWarnings("unused")
    private volatile Thread owner;
    /** How many times the owner holds it (owner only). */
    private int holds;

    /**
     * Takes the lock if it is free or already held by this thread.
     *
     * @return whether this thread now holds it
     */
    boolean tryLock() {
        Thread me = Thread.currentThread();
        if (OWNER.compareAndSet(this, (Thread) null, me)) {
            holds = 1;
            return true;
        }
        if ((Thread) OWNER.getOpaque(this) == me) { // only this thread can have stored itself
            holds++;
            return true;
        }
        return false;
    }

    /** Takes the lock, waiting (spinning, then parking briefly) while another thread holds it. */
    void lock() {
        for (int tries = 0; !tryLock(); tries++) {
            if (tries < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, PARK_NANOS);
            }
        }
    }

    /**
     * Gives up one hold; the last one frees the lock.
     *
     * @throws IllegalMonitorStateException when this thread does not hold it
     */
    void unlock() {
        if ((Thread) OWNER.getOpaque(this) != Thread.currentThread()) {
            throw new IllegalMonitorStateException("the poll lock is not held by " + Thread.currentThread());
        }
        if (--holds == 0) {
            OWNER.setRelease(this, (Thread) null);
        }
    }

    /** Whether this thread holds the lock. */
    boolean isHeldByCurrentThread() {
        return (Thread) OWNER.getOpaque(this) == Thread.currentThread();
    }
}
