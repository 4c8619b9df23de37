package io.jdat.tools.perf;

import org.HdrHistogram.Histogram;

/**
 * The samples of one latency measurement. The client records the warm-up's samples as it records the measured ones
 * (the same code in every phase, see {@link Rounds}) and drops them when the measured rounds begin ({@link #restart}).
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
     * Drops the samples so far (the warm-up's): a new histogram, allocated rather than cleared, so that no loop the
     * JIT has not compiled yet runs when the measured rounds start.
     */
    void restart() {
        h = histogram();
    }

    /** {@return the samples recorded since the last restart} */
    Histogram samples() {
        return h;
    }
}
