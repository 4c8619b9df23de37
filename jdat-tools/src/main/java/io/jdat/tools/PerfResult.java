package io.jdat.tools;

import org.HdrHistogram.Histogram;

/**
 * One row of the perf table; absent values are {@link Double#NaN}.
 *
 * @param operation    the operation
 * @param size         bytes per transfer
 * @param medianMicros median latency in microseconds (one-way for ping-pongs)
 * @param p99Micros    99th percentile latency in microseconds (one-way for ping-pongs)
 * @param mbPerSecond  bandwidth in 10^6 bytes per second
 */
record PerfResult(String operation, long size, double medianMicros, double p99Micros, double mbPerSecond) {
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
        return new PerfResult(operation, size, h.getValueAtPercentile(50) / 1000.0 / divisor,
                h.getValueAtPercentile(99) / 1000.0 / divisor, Double.NaN);
    }

    /**
     * A bandwidth row.
     *
     * @param operation the operation
     * @param size      bytes per transfer
     * @param bytes     bytes moved
     * @param nanos     time taken
     * @return the row
     */
    static PerfResult bandwidth(String operation, long size, long bytes, long nanos) {
        return new PerfResult(operation, size, Double.NaN, Double.NaN, bytes * 1000.0 / Math.max(1, nanos));
    }
}
