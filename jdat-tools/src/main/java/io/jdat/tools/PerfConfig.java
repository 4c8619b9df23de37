package io.jdat.tools;

import java.util.List;

/**
 * The settings of one {@code jdat perf} run, validated by {@link PerfCommand}.
 *
 * @param iaName          the IA both sides open
 * @param connQual        the connection qualifier the server listens on
 * @param sizes           message sizes of the latency tests (multiples of 8, at least 8)
 * @param warmup          untimed iterations before each latency test
 * @param iterations      timed iterations of each latency test
 * @param bwSize          transfer size of the bandwidth tests (a multiple of 8, at least 16)
 * @param bwBytes         bytes moved by each bandwidth test (rounded up to whole transfers)
 * @param window          transfers kept outstanding in the bandwidth tests
 * @param timeoutSeconds  how long any wait may go without progress before the run fails
 */
record PerfConfig(String iaName, long connQual, List<Long> sizes, int warmup, int iterations, long bwSize,
        long bwBytes, int window, int timeoutSeconds) {
    /** Immutable sizes. */
    PerfConfig {
        sizes = List.copyOf(sizes);
    }

    /** The largest latency message size. */
    long maxSize() {
        return sizes.stream().mapToLong(Long::longValue).max().orElse(8);
    }

    /** Transfers per bandwidth test: {@code ceil(bwBytes / bwSize)}. */
    long bwCount() {
        return Math.max(1, (bwBytes + bwSize - 1) / bwSize);
    }

    /** The wait limit in nanoseconds. */
    long timeoutNanos() {
        return timeoutSeconds * 1_000_000_000L;
    }
}
