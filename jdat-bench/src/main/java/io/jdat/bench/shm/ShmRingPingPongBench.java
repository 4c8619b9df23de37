package io.jdat.bench.shm;

import io.jdat.shm.RecordHandler;
import io.jdat.shm.RingCorruptException;
import io.jdat.shm.RingDescriptor;
import io.jdat.shm.ShmRing;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Ping-pong of one record between two threads through two {@link ShmRing}s (ping to pong, pong to ping) laid
 * out in one memory-mapped, owner-only file (under {@code /dev/shm} when it exists); the same shape as
 * {@link io.jdat.bench.baseline.SpinPingPongBench}, which is its limit: ping copies {@code payloadBytes}
 * from a private buffer into its ring, pong copies the record out into its private buffer and writes it back
 * through the other ring, ping copies the answer out. Both spin on {@code read}.
 *
 * <p>The JMH thread is ping; this state starts and stops pong. {@code @OperationsPerInvocation(2)}: the
 * score (ns/op) is the ONE-WAY latency, round trip / 2.
 *
 * <p>Two threads of one JVM are a stand-in: the goal (issue 5) is the same ping-pong across two processes,
 * measured against UCX {@code posix}, libfabric {@code shm}, Aeron IPC and a bare two-process spin.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(2)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class ShmRingPingPongBench {
    private static final int CAPACITY = 64 * 1024;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final int TYPE = 1;

    /** Record payload in bytes. */
    @Param({"64"})
    public int payloadBytes;

    private Arena arena;
    private Path file;
    private MemorySegment stop;
    private ShmRing.Producer ping;
    private ShmRing.Consumer pingIn;
    private MemorySegment pingPriv;
    private Copy pingCopy;
    private Thread pong;

    /** Copies each record's payload into a private buffer. */
    private static final class Copy implements RecordHandler {
        final MemorySegment priv;
        int lastLength;

        Copy(MemorySegment priv) {
            this.priv = priv;
        }

        @Override
        public boolean onRecord(int type, MemorySegment segment, long offset, int length) {
            MemorySegment.copy(segment, offset, priv, 0, length);
            lastLength = length;
            return true;
        }
    }

    /** Maps the file, formats both rings and starts pong. */
    @Setup(Level.Trial)
    public void setUp() throws IOException, RingCorruptException {
        Path dir = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        file = Files.createTempFile(dir, "jdat-ring-bench", ".shm",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        long ringBytes = (RingDescriptor.totalLength(CAPACITY) + 4095) & -4096L;
        arena = Arena.ofShared();
        MemorySegment map;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 2 * ringBytes, arena);
        }
        MemorySegment a = map.asSlice(0, ringBytes);
        MemorySegment b = map.asSlice(ringBytes, ringBytes);
        ShmRing.format(a, CAPACITY);
        ShmRing.format(b, CAPACITY);
        ping = ShmRing.producer(a);
        pingIn = ShmRing.consumer(b, TYPE);
        ShmRing.Consumer pongIn = ShmRing.consumer(a, TYPE);
        ShmRing.Producer pongOut = ShmRing.producer(b);
        // paired as a connection's rings are: each answer carries the consumer position, no head is stored
        ShmRing.pair(pingIn, ping);
        ShmRing.pair(pongIn, pongOut);
        pingPriv = arena.allocate(4096, 4096);
        pingPriv.fill((byte) 'p');
        pingCopy = new Copy(pingPriv);
        stop = arena.allocate(4096, 4096);
        MemorySegment pongPriv = arena.allocate(4096, 4096);
        MemorySegment st = stop;
        pong = new Thread(() -> echo(pongIn, pongOut, new Copy(pongPriv), st), "pong");
        pong.setDaemon(true);
        pong.start();
    }

    /** Stops pong, unmaps and deletes the file. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException, IOException {
        INT.setRelease(stop, 0L, 1);
        pong.join(10_000);
        arena.close();
        Files.deleteIfExists(file);
    }

    /** One round trip; the score is half of it. */
    @Benchmark
    public void roundTrip() throws RingCorruptException {
        int n = payloadBytes;
        while (!ping.tryWrite(TYPE, pingPriv, 0, n)) {
            Thread.onSpinWait();
        }
        while (pingIn.read(pingCopy, 1) == 0) {
            Thread.onSpinWait();
        }
    }

    private static void echo(ShmRing.Consumer in, ShmRing.Producer out, Copy copy, MemorySegment stop) {
        try {
            while (true) {
                while (in.read(copy, 1) == 0) {
                    if ((int) INT.getAcquire(stop, 0L) != 0) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                while (!out.tryWrite(TYPE, copy.priv, 0, copy.lastLength)) {
                    Thread.onSpinWait();
                }
            }
        } catch (RingCorruptException e) {
            throw new IllegalStateException(e);
        }
    }
}
