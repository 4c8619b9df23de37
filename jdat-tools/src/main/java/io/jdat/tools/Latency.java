package io.jdat.tools;

import org.HdrHistogram.Histogram;

/** Shared bits of the latency measurements. */
final class Latency {
    /** The largest recordable time: 60 s in nanoseconds (longer samples are clamped). */
    static final long MAX_NANOS = 60_000_000_000L;

    private Latency() {
    }

    /** A histogram of nanoseconds with 3 significant digits. */
    static Histogram histogram() {
        return new Histogram(MAX_NANOS, 3);
    }

    /**
     * Records one sample unless it belongs to the warm-up.
     *
     * @param h         the histogram
     * @param iteration the iteration (0-based, warm-up first)
     * @param warmup    the number of warm-up iterations
     * @param nanos     the sample
     */
    static void record(Histogram h, int iteration, int warmup, long nanos) {
        if (iteration >= warmup) {
            h.recordValue(Math.min(nanos, MAX_NANOS));
        }
    }
}
