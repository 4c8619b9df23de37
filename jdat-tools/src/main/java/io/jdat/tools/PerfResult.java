package io.jdat.tools;

import org.HdrHistogram.Histogram;

/**
 * One row of the perf table; absent values are {@link Double#NaN}.
 *
 * @param operation    the operation
 * @param size         bytes per transfer
 * @param count        measured iterations (latency) or transfers (bandwidth)
 * @param medianMicros median latency in microseconds (one-way for ping-pongs)
 * @param p99Micros    99th percentile latency in microseconds (one-way for ping-pongs)
 * @param p999Micros   99.9th percentile latency in microseconds (one-way for ping-pongs)
 * @param maxMicros    the largest latency in microseconds (one-way for ping-pongs)
 * @param mbPerSecond  bandwidth in 10^6 bytes per second
 */
record PerfResult(String operation, long size, long count, double medianMicros, double p99Micros, double p999Micros,
        double maxMicros, double mbPerSecond) {
    /**
     * A latency row from a histogram of nanoseconds.
     *
     * @param operation the operation
     * @param size      bytes per transfer
     * @param h         the recorded times in nanoseconds
     * @param divisor   2 to report RTT/2 of a ping-pong, 1 for a plain operation time
     * @return the row
     */
    static PerfResult latency(String operation, long size, Histogram h, int divisor) {
        double d = 1000.0 * divisor;
        return new PerfResult(operation, size, h.getTotalCount(), h.getValueAtPercentile(50) / d,
                h.getValueAtPercentile(99) / d, h.getValueAtPercentile(99.9) / d, h.getMaxValue() / d, Double.NaN);
    }

    /**
     * A bandwidth row.
     *
     * @param operation the operation
     * @param size      bytes per transfer
     * @param count     transfers measured
     * @param nanos     time taken
     * @return the row
     */
    static PerfResult bandwidth(String operation, long size, long count, long nanos) {
        return new PerfResult(operation, size, count, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                count * size * 1000.0 / Math.max(1, nanos));
    }
}
