package io.jdat.tools.perf;

/**
 * The rounds of one measurement, decided by the client and announced to the server with
 * {@link Sync#decide} / {@link Sync#learn}: a warm-up (not recorded), then the measured part, each either a
 * fixed count or as many rounds as fit into a time budget. A timed round is sized from the rate of the one
 * before (at most {@value #TARGET_MILLIS} ms, at most 8 times the last one), so the measured time ends
 * close to the budget while the server only ever learns a count. The client's time between rounds (the
 * barrier) is not counted.
 *
 * <p>The warm-up goes on while the JIT compiles: after its planned rounds, a round of the same size is added as
 * long as the compilers worked during the last one (the JVM's accumulated compilation time grew), for at most
 * {@value #MAX_EXTRA_WARMUP_MILLIS} ms more. On a 2-core machine a compiler thread takes the core one of the two
 * busy-polling threads needs, and the C2 compilations of the data path ran for seconds, into the measured part
 * (issue 18: part of the run-to-run spread of the shm figures). A warm-up of 0 stays 0.
 *
 * <p>A round's iterations run in chunks of {@value #CHUNK} ({@link #run}): each measurement's loop body is a method
 * of its own, called the same way in the warm-up and in the measured rounds, with no branch on the phase inside. A
 * warm-up of a few thousand iterations calls it hundreds of times, enough for the JIT to compile it as a whole method
 * (not only on-stack, in the middle of one long loop), so the measured rounds run the code the warm-up compiled.
 * Before, one loop served every round: C2 compiled it on-stack during the warm-up with the never-taken "record the
 * sample" branch as an uncommon trap, and the first measured sample threw the whole loop back into the interpreter
 * (under emulation for seconds, longer than a measured round of a few thousand iterations).
 */
final class Rounds {
    /** Iterations (latency) or completions (streams) per call of a measurement's loop body. */
    static final int CHUNK = 16;

    /**
     * A measurement's loop body: iterations {@code from} to {@code to - 1} of a round that ends before {@code end}.
     * It records or counts the same way in every phase.
     */
    @FunctionalInterface
    interface Chunk {
        /**
         * Runs the iterations.
         *
         * @param from the first iteration
         * @param to   the iteration after the last of this chunk
         * @param end  the iteration after the last of the round
         */
        void run(long from, long to, long end);
    }

    /**
     * Runs iterations {@code from} to {@code end - 1} through {@code body}, {@value #CHUNK} at a time.
     *
     * @param from the first iteration
     * @param end  the iteration after the last
     * @param body the loop body
     * @return {@code end}
     */
    static long run(long from, long end, Chunk body) {
        for (long i = from; i < end;) {
            long to = Math.min(end, i + CHUNK);
            body.run(i, to, end);
            i = to;
        }
        return end;
    }

    /** The most the warm-up is extended while the JIT compiles. */
    static final long MAX_EXTRA_WARMUP_MILLIS = 3000;
    private static final long MAX_EXTRA_WARMUP_NANOS = MAX_EXTRA_WARMUP_MILLIS * 1_000_000L;
    /** The JVM's accumulated JIT compilation time in ms (-1: not known). */
    private final java.util.function.LongSupplier jitMillis;
    private long jitSeen = -1;
    private long extraNanos;
    /** The longest timed round. */
    static final long TARGET_MILLIS = 200;
    private static final long TARGET_NANOS = TARGET_MILLIS * 1_000_000L;
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int DONE = 2;

    private final long warmCount;
    private final long warmNanos;
    private final long count;
    private final long nanos;
    private final long first;
    private int phase = WARMUP;
    private long phaseRounds;
    private long phaseNanos;
    private long last;

    /**
     * Creates the schedule. Of each pair, the count is used when the time budget is 0.
     *
     * @param warmCount the warm-up count (0: none, unless {@code warmNanos})
     * @param warmNanos the warm-up time budget (0: use {@code warmCount})
     * @param count     the measured count
     * @param nanos     the measured time budget (0: use {@code count})
     * @param first     the size of the first round of a timed phase
     */
    Rounds(long warmCount, long warmNanos, long count, long nanos, long first) {
        this(warmCount, warmNanos, count, nanos, first, Rounds::jitCompilationMillis);
    }

    /**
     * Creates the schedule with its source of the JIT's accumulated compilation time (tests).
     *
     * @param jitMillis the accumulated compilation time in ms, or -1 when unknown (no extension)
     */
    Rounds(long warmCount, long warmNanos, long count, long nanos, long first, java.util.function.LongSupplier jitMillis) {
        this.jitMillis = jitMillis;
        this.warmCount = warmCount;
        this.warmNanos = warmNanos;
        this.count = count;
        this.nanos = nanos;
        this.first = Math.max(1, first);
    }

    /**
     * The rounds of a latency test: {@code --warmup} iterations, then {@code -n} iterations or
     * {@code --duration}.
     *
     * @param c the settings
     * @return the schedule
     */
    static Rounds latency(PerfConfig c) {
        return new Rounds(c.warmup(), 0, c.iterations(), c.durationNanos(), 256);
    }

    /**
     * The rounds of a bandwidth test: a warm-up of an eighth of the count (at least two windows), then
     * the count; with a duration, a tenth of it as warm-up, then the duration. {@code --bw-warmup N} makes the
     * warm-up N transfers in either case (0: none).
     *
     * @param c    the settings
     * @param size the transfer size
     * @return the schedule
     */
    static Rounds bandwidth(PerfConfig c, long size) {
        long n = c.bwCount(size);
        long w2 = 2L * c.window();
        long warm = c.bwWarmup();
        if (c.timed()) {
            return warm >= 0 ? new Rounds(warm, 0, 0, c.durationNanos(), w2)
                    : new Rounds(0, Math.max(1, c.durationNanos() / 10), 0, c.durationNanos(), w2);
        }
        return new Rounds(warm >= 0 ? warm : Math.min(n, Math.max(w2, n / 8)), 0, n, 0, w2);
    }

    /**
     * The size of the next round.
     *
     * @param lastNanos how long the last round took (ignored before the first)
     * @return the number of iterations or transfers, or 0 when the measurement is over
     */
    long next(long lastNanos) {
        if (phaseRounds > 0) {
            phaseNanos += lastNanos;
        }
        if (phase == WARMUP && phaseRounds == 0) {
            jitSeen = jitMillis.getAsLong();
        }
        while (phase != DONE) {
            long n = phase == WARMUP ? step(warmCount, warmNanos, lastNanos) : step(count, nanos, lastNanos);
            if (n == 0 && phase == WARMUP && phaseRounds > 0) {
                n = extraWarmup(lastNanos);
            }
            if (n > 0) {
                phaseRounds++;
                last = n;
                return n;
            }
            phase++;
            phaseRounds = 0;
            phaseNanos = 0;
            last = 0;
        }
        return 0;
    }

    /**
     * After the planned warm-up: one more round of the last size if the JIT compiled during the last round and the
     * extension has time left, else 0.
     */
    private long extraWarmup(long lastNanos) {
        long jit = jitMillis.getAsLong();
        boolean compiling = jit >= 0 && jitSeen >= 0 && jit != jitSeen;
        jitSeen = jit;
        if (!compiling || extraNanos >= MAX_EXTRA_WARMUP_NANOS || last <= 0) {
            return 0;
        }
        extraNanos += Math.max(1, lastNanos);
        return last;
    }

    /** The JVM's accumulated JIT compilation time in ms, or -1 when the JVM does not report it. */
    static long jitCompilationMillis() {
        java.lang.management.CompilationMXBean c = java.lang.management.ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : -1;
    }

    /** Whether the round {@link #next} returned is measured (not warm-up). */
    boolean measuring() {
        return phase == MEASURE;
    }

    /**
     * Whether the round {@link #next} returned is the first measured one: the warm-up's samples, recorded by the same
     * code, are to be dropped now.
     */
    boolean firstMeasured() {
        return phase == MEASURE && phaseRounds == 1;
    }

    /** The next round of the current phase, or 0 when it is over. */
    private long step(long fixed, long budget, long lastNanos) {
        if (budget <= 0) {
            return phaseRounds == 0 ? fixed : 0;
        }
        if (phaseRounds == 0) {
            return first;
        }
        long remaining = budget - phaseNanos;
        if (remaining <= 0) {
            return 0;
        }
        double rate = (double) last / Math.max(1, lastNanos);
        double n = Math.ceil(rate * Math.min(remaining, TARGET_NANOS));
        return (long) Math.max(1, Math.min(n, Math.min(last * 8.0, 1L << 40)));
    }
}
