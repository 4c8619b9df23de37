package io.jdat.bench.shm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import io.jdat.shm.CrossMemory;

/**
 * Cross-memory attach bandwidth: {@link CrossMemory#read} (and {@link CrossMemory#write}) of 1 MiB between
 * this JVM and either a second JVM ({@code target=child}, {@link CrossMemoryPeer}, started by the benchmark's
 * setup) or this JVM itself through its own pid ({@code target=self}). Compare with
 * {@code io.jdat.bench.baseline.MemCopyBench} (a {@code MemorySegment.copy} of 1 MiB in one process): the kernel
 * copies once, page by page, after pinning the remote pages.
 *
 * <p>Result: as in {@code MemCopyBench}, one operation per byte, so the {@code thrpt} score in ops/s is bytes
 * per second (GB/s = score / 10^9).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class CrossMemoryReadBench {
    /** Bytes per transfer: 1 MiB. */
    public static final int SIZE = 1 << 20;

    /** Whose memory: {@code child} (a second JVM) or {@code self} (this JVM through its own pid). */
    @Param({"child", "self"})
    public String target;

    private Arena arena;
    private MemorySegment local;
    private CrossMemory cm;
    private Process child;
    private long pid;
    private long remote;

    /** Starts the peer (or allocates the self target) and the local buffer. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        cm = CrossMemory.probe();
        arena = Arena.ofShared();
        local = arena.allocate(SIZE, 64);
        local.fill((byte) 1);
        if (target.equals("self")) {
            MemorySegment src = arena.allocate(SIZE, 64);
            src.fill((byte) 7);
            pid = ProcessHandle.current().pid();
            remote = src.address();
        } else {
            child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    CrossMemoryPeer.class.getName(), Integer.toString(SIZE))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (line == null || !line.startsWith("READY ")) {
                child.destroyForcibly();
                throw new IOException("peer did not start: " + line);
            }
            String[] f = line.split(" ");
            pid = Long.parseLong(f[1]);
            remote = Long.parseLong(f[2]);
        }
        if (cm.access(pid, remote) != CrossMemory.Access.ALLOWED) {
            throw new IllegalStateException("cross-memory attach to pid " + pid + ": " + cm.access(pid, remote));
        }
    }

    /** Stops the peer and frees the buffers. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (child != null) {
            child.destroyForcibly();
            child.waitFor();
        }
        cm.close();
        arena.close();
    }

    /** One 1 MiB {@code process_vm_readv} (remote to local), counted as {@value #SIZE} operations (bytes). */
    @Benchmark
    @OperationsPerInvocation(SIZE)
    public long read1MiB() {
        return cm.read(pid, remote, local, 0, SIZE);
    }

    /** One 1 MiB {@code process_vm_writev} (local to remote), counted as {@value #SIZE} operations (bytes). */
    @Benchmark
    @OperationsPerInvocation(SIZE)
    public long write1MiB() {
        return cm.write(pid, remote, local, 0, SIZE);
    }
}
