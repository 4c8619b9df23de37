package io.jdat.tools.perf;

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
     * Records one sample of a measured round (warm-up rounds record nothing).
     *
     * @param h       the histogram
     * @param measure whether the round is measured
     * @param nanos   the sample
     */
    static void record(Histogram h, boolean measure, long nanos) {
        if (measure) {
            h.recordValue(Math.min(nanos, MAX_NANOS));
        }
    }
}
