package io.jdat.bench.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * The limit of a two-process ping-pong through shared memory on this machine: two 8-byte counters in one
 * mapped file, 128 bytes apart; this JMH fork writes the ping counter (release) and spins (acquire) until
 * the child process, {@link #main}, has copied it to the pong counter. No ring, no copy of a payload, no
 * DAT: what {@link ShmPingPongBench} is compared with. {@code @OperationsPerInvocation(2)}: one-way ns.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseParallelGC"})
public class SpinFilePingPongBench {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long PING = 0;
    private static final long PONG = 128;

    private Path file;
    private Arena arena;
    private MemorySegment seg;
    private Process child;
    private long seq;

    /** Maps the file and starts the echo process. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        file = Files.createTempFile(dir, "jdat-spin-bench", ".shm");
        arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
        }
        child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseParallelGC", "-cp", System.getProperty("java.class.path"),
                SpinFilePingPongBench.class.getName(), file.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).redirectOutput(ProcessBuilder.Redirect.INHERIT).start();
        // the child announces itself by echoing a first ping
        roundTrip();
    }

    /** Stops the child (a negative ping) and removes the file. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        LONG.setRelease(seg, PING, -1L);
        child.waitFor(10, TimeUnit.SECONDS);
        child.destroyForcibly();
        arena.close();
        Files.deleteIfExists(file);
    }

    /** One round trip. */
    @Benchmark
    public long roundTrip() {
        long s = ++seq;
        LONG.setRelease(seg, PING, s);
        while ((long) LONG.getAcquire(seg, PONG) != s) {
            Thread.onSpinWait();
        }
        return s;
    }

    /**
     * The echo process: copies each new ping to pong until a negative ping.
     *
     * @param args the file
     */
    public static void main(String[] args) throws IOException {
        try (Arena a = Arena.ofConfined(); FileChannel ch = FileChannel.open(Path.of(args[0]),
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment s = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, a);
            long last = 0;
            for (;;) {
                long p = (long) LONG.getAcquire(s, PING);
                if (p < 0) {
                    return;
                }
                if (p != last) {
                    last = p;
                    LONG.setRelease(s, PONG, p);
                } else {
                    Thread.onSpinWait();
                }
            }
        }
    }
}
