package io.jdat.verbs;

/**
 * Whether a consumer polls an IA's CQs itself ({@code dat_evd_dequeue}, or the spin of {@code dat_evd_wait}
 * through {@code Transport.progress}), so that the IA's progress thread leaves the CQs to it: no CQ event re-arms
 * a CQ and the thread does not poll, so the two do not take turns at the poll lock and the CPU per completion.
 *
 * <p>A consumer counts as polling for the grace ({@value #GRACE_PROPERTY}, default {@value #DEFAULT_GRACE_MICROS}
 * µs) after its last poll. The grace is long because a busy poller is often descheduled for a few milliseconds
 * (a loaded host, two spinning processes on two CPUs, an emulated guest): with a grace shorter than that, the
 * thread took the CQs over at every such gap, re-armed them and woke per completion, which took CPU from the
 * poller and made the next gap (docs/verbs.md). A consumer that parks in a wait hands the CQs back at once
 * ({@link #idle}), so a waiter's events stay prompt; the grace only delays the events of a consumer that stops
 * polling without waiting, while another thread still waits on the same IA, by at most the grace plus
 * {@link #checkMillis}.
 *
 * <p>Memory ordering: {@code lastPoll} is volatile, written by any polling thread and read by the progress thread;
 * nothing else is published through it (the CQs themselves are polled under the IA's poll lock).
 */
final class ConsumerPolling {
    /** The system property that sets the grace, in µs (0: the progress thread always keeps the CQs armed). */
    static final String GRACE_PROPERTY = "jdat.verbs.pollerGraceMicros";
    /** The default grace, µs: longer than a time slice of a descheduled poller. */
    static final long DEFAULT_GRACE_MICROS = 50_000;
    /** The longest grace accepted, µs (10 s); a larger value is taken as this. */
    static final long MAX_GRACE_MICROS = 10_000_000;

    /** How long after its last poll a consumer still counts as polling. */
    final long graceNanos;
    /**
     * How often (ms) the progress thread looks whether a consumer that has the CQs still polls: half the grace,
     * from 10 to 100 ms.
     */
    final int checkMillis;
    /** When a consumer last polled ({@code System.nanoTime() | 1}; 0: none, or it went idle). */
    private volatile long lastPoll;

    /**
     * @param graceMicros the grace in µs (see {@link #graceMicros})
     */
    ConsumerPolling(long graceMicros) {
        this.graceNanos = Math.max(0, graceMicros * 1000 - 1); // a poll's reading is now | 1
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

    /** A consumer polls now ({@code now}: {@code System.nanoTime()}). */
    void polled(long now) {
        lastPoll = now | 1;
    }

    /**
     * A consumer parks in a wait: the CQs go back to the progress thread at once.
     *
     * @return whether a consumer had them (the progress thread must then be woken to re-arm them)
     */
    boolean idle() {
        if (lastPoll != 0) {
            lastPoll = 0;
            return true;
        }
        return false;
    }

    /**
     * Whether a consumer polled within the grace before {@code now}.
     *
     * @param now {@code System.nanoTime()}
     * @return true while the progress thread is to leave the CQs to the consumer
     */
    boolean polling(long now) {
        long lp = lastPoll; // now | 1 of the last poll: 1 ns early at most
        return lp != 0 && graceNanos > 0 && now - lp < graceNanos;
    }
}
