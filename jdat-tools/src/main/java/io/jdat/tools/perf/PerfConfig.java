package io.jdat.tools.perf;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The settings of one {@code jdat perf} run, validated by {@link PerfCommand}.
 *
 * @param iaName         the IA both sides open
 * @param connQual       the connection qualifier the server listens on
 * @param sizes          message sizes of the latency tests (multiples of 8, at least 8)
 * @param warmup         untimed iterations before each latency test
 * @param iterations     timed iterations of each latency test (unless {@code durationNanos} is set)
 * @param bwSizes        transfer sizes of the bandwidth tests (multiples of 8, at least 16)
 * @param bwBytes        bytes moved by each bandwidth test (rounded up to whole transfers; unless
 *                       {@code durationNanos} is set)
 * @param window         transfers kept outstanding in the bandwidth tests
 * @param timeoutSeconds how long any wait may go without progress before the run fails
 * @param ops            the operations to measure
 * @param tests          the kinds of measurement (latency, bandwidth)
 * @param durationNanos  when positive: measure each test for this long instead of {@code iterations} /
 *                       {@code bwBytes}
 * @param waitMode       reap completions with {@code dat_evd_wait} instead of polling {@code dat_evd_dequeue}
 * @param verify         check the data of every transfer
 * @param sharedMemory   allocate both sides' buffers as {@link io.jdat.shm.ShmMemory} (an {@code shm} IA only):
 *                       the peer then maps them and copies once, instead of cross-memory attach
 * @param perOpBuffers   give every outstanding stream transfer its own buffer ({@code --buffers per-op}: out of
 *                       cache, {@code 2 * window + 1} bulk slots) instead of one buffer pair, which every transfer
 *                       of a stream reuses, as {@code ucx_perftest} and {@code fi_pingpong} do (the default)
 * @param signalEvery    a stream's client asks for the completion of every n-th transfer and posts the others with
 *                       {@code DAT_COMPLETION_SUPPRESS_FLAG} ({@code --signal-every}); 0: the default,
 *                       {@link #signalEvery(int)}
 * @param bwWarmup       untimed transfers before each bandwidth test ({@code --bw-warmup}); -1: the default,
 *                       an eighth of the count (at least two windows), or a tenth of the duration when timed
 * @param serverParks    the server of a one-sided test (RDMA Read latency, RDMA Write and Read streams), which has
 *                       nothing to do but wait for the client's end mark, parks between its looks ({@code
 *                       --server-idle park}: a passive target, as perftest's servers without {@code -R}, which block
 *                       in a socket read) instead of busy-polling (as {@code ucx_perftest}'s responder and perftest's
 *                       servers with {@code -R} do: the default)
 */
record PerfConfig(String iaName, long connQual, List<Long> sizes, int warmup, int iterations, List<Long> bwSizes,
        long bwBytes, int window, int timeoutSeconds, Set<PerfOp> ops, Set<PerfTest> tests, long durationNanos,
        boolean waitMode, boolean verify, boolean sharedMemory, boolean perOpBuffers,
        int signalEvery, long bwWarmup, boolean serverParks) {
    /** Immutable collections; the sets keep the enum order. */
    PerfConfig {
        sizes = List.copyOf(sizes);
        bwSizes = List.copyOf(bwSizes);
        ops = java.util.Collections.unmodifiableSet(ops.isEmpty() ? EnumSet.noneOf(PerfOp.class) : EnumSet.copyOf(ops));
        tests = java.util.Collections.unmodifiableSet(
                tests.isEmpty() ? EnumSet.noneOf(PerfTest.class) : EnumSet.copyOf(tests));
    }

    /**
     * Every operation and test, counted, polled and verified: the settings of a default run.
     *
     * @param iaName         the IA both sides open
     * @param connQual       the connection qualifier
     * @param sizes          latency sizes
     * @param warmup         latency warm-up iterations
     * @param iterations     latency iterations
     * @param bwSize         the bandwidth transfer size
     * @param bwBytes        bytes per bandwidth test
     * @param window         outstanding bandwidth transfers
     * @param timeoutSeconds the wait limit
     */
    PerfConfig(String iaName, long connQual, List<Long> sizes, int warmup, int iterations, long bwSize, long bwBytes,
            int window, int timeoutSeconds) {
        this(iaName, connQual, sizes, warmup, iterations, List.of(bwSize), bwBytes, window, timeoutSeconds,
                EnumSet.allOf(PerfOp.class), EnumSet.allOf(PerfTest.class), 0, false, true, false, false, 0, -1, false);
    }

    /** The same settings with another connection qualifier. */
    PerfConfig withConnQual(long qual) {
        return new PerfConfig(iaName, qual, sizes, warmup, iterations, bwSizes, bwBytes, window, timeoutSeconds, ops,
                tests, durationNanos, waitMode, verify, sharedMemory, perOpBuffers, signalEvery, bwWarmup, serverParks);
    }

    /** perftest's {@code cq_mod} default ({@code ib_write_bw}: a completion every 100 work requests at most). */
    static final int PERFTEST_CQ_MOD = 100;

    /**
     * A stream's completion interval: every {@code n}-th transfer is posted with a completion event, the others
     * with {@code DAT_COMPLETION_SUPPRESS_FLAG} (a request queue completes in order, so the event of the n-th
     * says the ones before it completed). The default is 1: every transfer completes with an event, as
     * {@code ucx_perftest}'s and {@code fi_pingpong}'s streams see every completion. {@code ib_write_bw -t W}
     * signals one in its {@code cq_mod} (100, but at most {@code W}): {@code interop/verbs-perf.sh} passes that
     * interval to compare with it. (With the interval equal to the window, the stream waits for the window's last
     * event before it posts again: the queue drains once per window, as perftest's does at {@code cq_mod == W}.)
     *
     * @param depth the transfers the stream keeps outstanding
     * @return the interval, 1 to {@code depth}
     */
    int signalEvery(int depth) {
        return Math.clamp(signalEvery > 0 ? signalEvery : 1, 1, Math.max(1, depth));
    }


    /** Whether the latency tests run. */
    boolean latency() {
        return tests.contains(PerfTest.LATENCY) && !ops.isEmpty();
    }

    /** Whether the bandwidth tests run. */
    boolean bandwidth() {
        return tests.contains(PerfTest.BANDWIDTH) && !ops.isEmpty();
    }

    /** Whether each test runs for {@link #durationNanos} rather than a count. */
    boolean timed() {
        return durationNanos > 0;
    }

    /** The largest latency message size that runs (8 when none does). */
    long maxSize() {
        return latency() ? sizes.stream().mapToLong(Long::longValue).max().orElse(8) : 8;
    }

    /** The largest bandwidth transfer size that runs (0 when none does). */
    long bwSize() {
        return bandwidth() ? bwSizes.stream().mapToLong(Long::longValue).max().orElse(0) : 0;
    }

    /**
     * Transfers per bandwidth test of one size: {@code ceil(bwBytes / size)}.
     *
     * @param size the transfer size
     * @return the count
     */
    long bwCount(long size) {
        return Math.max(1, (bwBytes + size - 1) / size);
    }

    /** The wait limit in nanoseconds. */
    long timeoutNanos() {
        return timeoutSeconds * 1_000_000_000L;
    }
}
