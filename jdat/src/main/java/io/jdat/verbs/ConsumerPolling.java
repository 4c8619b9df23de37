package io.jdat.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Whether a consumer polls an IA's CQs itself ({@code dat_evd_dequeue}, or the spin of {@code dat_evd_wait}
 * through {@code Transport.progress}), so that the IA's progress thread leaves the CQs to it: no CQ event re-arms
 * a CQ and the thread does not poll, so the two do not take turns at the poll lock and the CPU per completion.
 *
 * <p>A consumer counts as polling for the grace ({@value #GRACE_PROPERTY}, default {@value #DEFAULT_GRACE_MICROS}
 * µs) after the progress thread last saw it poll. The grace is long because a busy poller is often descheduled for
 * a few milliseconds (a loaded host, two spinning processes on two CPUs, an emulated guest): with a grace shorter
 * than that, the thread took the CQs over at every such gap, re-armed them and woke per completion, which took CPU
 * from the poller and made the next gap (docs/verbs.md). A consumer that parks in a wait hands the CQs back at once
 * ({@link #idle}), so a waiter's events stay prompt; the grace only delays the events of a consumer that stops
 * polling without waiting, while another thread still waits on the same IA, by at most the grace plus
 * {@link #checkMillis}.
 *
 * <p>A poll costs the consumer one plain increment ({@link #polled}): no clock reading. The progress thread, which
 * looks at least every {@link #checkMillis} while a consumer has the CQs, notes when it saw the count change and
 * measures the grace from there. (The poll used to read {@code System.nanoTime()}: in the siw-vm guest, whose clock
 * source is the emulated HPET, that is a system call and an emulated device read on every turn of a busy poll.)
 *
 * <p>Memory ordering: {@code polls} is written plainly by the polling threads (several may poll; an increment lost
 * to a race does not matter, any change is a poll) and read opaquely by the progress thread, which only asks
 * whether it changed; the consumer's store is not kept in a register across its poll, which ends in a native call.
 * {@code handBack} and {@code idlePolls} are volatile (rare: a consumer parking). {@code seenPolls}, {@code seenAt}
 * and {@code seen} belong to the progress thread. Nothing else is published through this class (the CQs are polled
 * under the IA's poll lock).
 */
final class ConsumerPolling {
    private static final VarHandle POLLS;

    static {
        try {
            POLLS = MethodHandles.lookup().findVarHandle(ConsumerPolling.class, "polls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The system property that sets the grace, in µs (0: the progress thread always keeps the CQs armed). */
    static final String GRACE_PROPERTY = "jdat.verbs.pollerGraceMicros";
    /**
     * The default grace, µs: longer than a time slice of a descheduled poller, and long enough that the progress
     * thread looks only ten times a second ({@link #checkMillis} 100 ms) while a consumer busy-polls. Each look
     * wakes the thread onto a CPU the poller may be spinning on: at 50 ms (a look every 25 ms) the looks took about
     * a tenth of a 64 B RDMA Write stream's rate on rxe in the two-vCPU siw-vm guest (docs/verbs-performance.md).
     */
    static final long DEFAULT_GRACE_MICROS = 200_000;
    /** The longest grace accepted, µs (10 s); a larger value is taken as this. */
    static final long MAX_GRACE_MICROS = 10_000_000;

    /** How long after its last seen poll a consumer still counts as polling. */
    final long graceNanos;
    /**
     * How often (ms) the progress thread looks whether a consumer that has the CQs still polls: half the grace,
     * from 10 to 100 ms.
     */
    final int checkMillis;
    /** Polls so far (plain writes by consumers, opaque reads by the progress thread). */
    private long polls;
    /** {@link #polls} when a consumer last parked ({@link #idle}). */
    private volatile long idlePolls;
    /** A consumer parked: the progress thread takes the CQs back at its next look. */
    private volatile boolean handBack;
    /** Progress thread: the count it last saw, when it saw it change, and whether it ever did since a hand-back. */
    private long seenPolls;
    private long seenAt;
    private boolean seen;

    /**
     * @param graceMicros the grace in µs (see {@link #graceMicros})
     */
    ConsumerPolling(long graceMicros) {
        this.graceNanos = Math.max(0, graceMicros * 1000);
        this.checkMillis = (int) Math.clamp(graceMicros / 2000, 10, 100);
    }

    /** The grace of the system property {@value #GRACE_PROPERTY}, or the default. */
    static ConsumerPolling fromSystemProperty() {
        return new ConsumerPolling(graceMicros(System.getProperty(GRACE_PROPERTY)));
    }

    /**
     * The grace a property value names: a decimal count of µs from 0 to {@value #MAX_GRACE_MICROS} (larger is
     * taken as the maximum); the default for no value, a negative one, or one that is not a number.
     *
     * @param value the property's value, or null
     * @return the grace in µs
     */
    static long graceMicros(String value) {
        if (value == null) {
            return DEFAULT_GRACE_MICROS;
        }
        try {
            long v = Long.parseLong(value.trim());
            return v < 0 ? DEFAULT_GRACE_MICROS : Math.min(v, MAX_GRACE_MICROS);
        } catch (NumberFormatException e) {
            return DEFAULT_GRACE_MICROS;
        }
    }

    /** A consumer polls now ({@code Transport.progress}): one plain increment, no clock reading. */
    void polled() {
        polls++;
    }

    /**
     * A consumer parks in a wait: the CQs go back to the progress thread at once.
     *
     * @return whether a consumer polled since the last hand-back (the progress thread must then be woken to re-arm
     *         the CQs)
     */
    boolean idle() {
        long p = (long) POLLS.getOpaque(this);
        if (p != idlePolls) {
            idlePolls = p;
            handBack = true;
            return true;
        }
        return false;
    }

    /**
     * Whether a consumer polled within the grace before {@code now}, as far as this look and the earlier ones saw
     * (progress thread only).
     *
     * @param now {@code System.nanoTime()}
     * @return true while the progress thread is to leave the CQs to the consumer
     */
    boolean polling(long now) {
        long p = (long) POLLS.getOpaque(this);
        if (handBack) {
            handBack = false;
            seenPolls = p;
            seen = false;
            return false;
        }
        if (p != seenPolls) {
            seenPolls = p;
            seenAt = now;
            seen = true;
        }
        return seen && graceNanos > 0 && now - seenAt < graceNanos;
    }
}
