package io.jdat.tools.perf;

import org.HdrHistogram.Histogram;

/**
 * The samples of one latency measurement. The client records the warm-up's samples as it records the measured ones
 * (the same code in every phase, see {@link Rounds}) and drops them when the measured rounds begin ({@link #round}).
 * One instance per measurement, used by its client thread only.
 */
final class Latency {
    /** The largest recordable time: 60 s in nanoseconds (longer samples are clamped). */
    static final long MAX_NANOS = 60_000_000_000L;

    private Histogram h = histogram();

    /** A histogram of nanoseconds with 3 significant digits. */
    static Histogram histogram() {
        return new Histogram(MAX_NANOS, 3);
    }

    /**
     * Records one sample.
     *
     * @param nanos the sample
     */
    void record(long nanos) {
        h.recordValue(Math.min(nanos, MAX_NANOS));
    }

    /**
     * Runs one round of a latency client: tells the CPU meter whether it is measured, drops the warm-up's samples at
     * the first measured round, and runs iterations {@code from} to {@code from + n - 1} through {@code body}
     * ({@link Rounds#run}).
     *
     * @param rounds the schedule, after its {@code next} returned {@code n}
     * @param cpu    the measurement's CPU meter
     * @param from   the first iteration
     * @param n      the round's iterations
     * @param body   the loop body, which records into this
     * @return the round's time in nanoseconds
     */
    long round(Rounds rounds, CpuMeter cpu, long from, long n, Rounds.Chunk body) {
        cpu.round(rounds.measuring());
        if (rounds.firstMeasured()) {
            // A new histogram, allocated rather than cleared, so that no loop the JIT has not compiled yet runs now.
            h = histogram();
        }
        long r0 = System.nanoTime();
        Rounds.run(from, from + n, body);
        return System.nanoTime() - r0;
    }

    /** {@return the samples recorded since the last restart} */
    Histogram samples() {
        return h;
    }
}
