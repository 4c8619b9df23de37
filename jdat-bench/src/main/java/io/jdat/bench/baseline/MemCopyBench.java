package io.jdat.bench.baseline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Memory-copy bandwidth limit: {@code MemorySegment.copy} of 1 MiB between two 64-byte-aligned native
 * segments; modelled on {@code shared/bench/peers/MemCopyBench.java} (native->native, 1 MiB).
 *
 * <p>Result: {@code @OperationsPerInvocation(1 MiB)} counts one operation per byte copied, so the
 * {@code thrpt} score in ops/s is bytes copied per second (bytes counted once: the memory traffic is
 * read + write, twice that). MB/s as in the peer table (10^6 B/s) = score / 10^6. Do not change the
 * time unit with {@code -tu} unless you convert accordingly.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class MemCopyBench {
    /** Bytes per copy: 1 MiB (fits in L2/L3, like the peers' figure). */
    public static final int SIZE = 1 << 20;

    private Arena arena;
    private MemorySegment src;
    private MemorySegment dst;

    /** Allocates and touches both segments. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        src = arena.allocate(SIZE, 64);
        dst = arena.allocate(SIZE, 64);
        src.fill((byte) 1);
        dst.fill((byte) 2);
    }

    /** Frees the segments. */
    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** One 1 MiB copy, counted as {@value #SIZE} operations (bytes). */
    @Benchmark
    @OperationsPerInvocation(SIZE)
    public void nativeToNative1MiB() {
        MemorySegment.copy(src, 0, dst, 0, SIZE);   // writes off-heap memory: not dead code
    }
}
