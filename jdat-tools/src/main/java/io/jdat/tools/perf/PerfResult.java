package io.jdat.tools.perf;

import org.HdrHistogram.Histogram;

/**
 * One row of the perf table; absent values are {@link Double#NaN}. The latency columns are those perftest prints
 * ({@code t_min}, {@code t_typical}, {@code t_avg}, {@code t_stdev}, 99%, 99.9%, {@code t_max}); the message rate
 * is ucx_perftest's and fi_pingpong's.
 *
 * @param operation    the operation
 * @param size         bytes per transfer
 * @param count        measured iterations (latency) or transfers (bandwidth)
 * @param minMicros    the smallest latency in microseconds (one-way for ping-pongs)
 * @param medianMicros median latency in microseconds (one-way for ping-pongs)
 * @param meanMicros   average latency in microseconds (one-way for ping-pongs)
 * @param stdevMicros  standard deviation of the latency in microseconds (one-way for ping-pongs)
 * @param p99Micros    99th percentile latency in microseconds (one-way for ping-pongs)
 * @param p999Micros   99.9th percentile latency in microseconds (one-way for ping-pongs)
 * @param maxMicros    the largest latency in microseconds (one-way for ping-pongs)
 * @param mbPerSecond  bandwidth in 10^6 bytes per second
 * @param msgPerSecond messages per second: {@code 1 / average latency} for a latency row (one message in flight),
 *                     transfers per second for a stream
 * @param histogram    the recorded latencies in nanoseconds (RTT for ping-pongs), or {@code null} for a stream
 * @param divisor      what the histogram's values are divided by for the row: 2 for a ping-pong (RTT/2), else 1
 * @param cpuMicrosPerMessage CPU time both sides' processes used per message over the measured rounds, in
 *                     microseconds (a ping-pong iteration is two messages; a read or a stream transfer one), or
 *                     NaN when unknown
 */
record PerfResult(String operation, long size, long count, double minMicros, double medianMicros, double meanMicros,
        double stdevMicros, double p99Micros, double p999Micros, double maxMicros, double mbPerSecond,
        double msgPerSecond, Histogram histogram, int divisor, double cpuMicrosPerMessage) {
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
        double mean = h.getMean() / d;
        return new PerfResult(operation, size, h.getTotalCount(), h.getMinValue() / d,
                h.getValueAtPercentile(50) / d, mean, h.getStdDeviation() / d, h.getValueAtPercentile(99) / d,
                h.getValueAtPercentile(99.9) / d, h.getMaxValue() / d, Double.NaN,
                mean > 0 ? 1e6 / mean : Double.NaN, h, divisor, Double.NaN);
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
        double seconds = Math.max(1, nanos) / 1e9;
        return new PerfResult(operation, size, count, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, count * size / seconds / 1e6, count / seconds, null, 1, Double.NaN);
    }

    /**
     * This row with the CPU time of its measured part.
     *
     * @param cpuNanos the CPU time both sides used, or negative when unknown
     * @return the row with {@link #cpuMicrosPerMessage()} set
     */
    PerfResult withCpu(long cpuNanos) {
        long messages = count * divisor;
        double perMessage = cpuNanos < 0 || messages <= 0 ? Double.NaN : cpuNanos / 1000.0 / messages;
        return new PerfResult(operation, size, count, minMicros, medianMicros, meanMicros, stdevMicros, p99Micros,
                p999Micros, maxMicros, mbPerSecond, msgPerSecond, histogram, divisor, perMessage);
    }

    /** Whether this is a latency row (it has a histogram). */
    boolean isLatency() {
        return histogram != null;
    }
}
