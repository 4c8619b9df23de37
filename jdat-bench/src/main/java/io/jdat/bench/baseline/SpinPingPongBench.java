package io.jdat.bench.baseline;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
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
 * In-JVM physical limit: a busy-spin ping-pong of a small message between two threads through a shared
 * native {@link MemorySegment}; modelled on {@code shared/bench/peers/JvmSpinPingPong.java} ("payload" mode).
 *
 * <p>The JMH thread is "ping"; "pong" is an echo thread that this state starts and stops itself. One
 * invocation of {@link #roundTrip} is one round trip:
 * <ol>
 *   <li>ping copies {@code payloadBytes} from its private segment into slot A of the shared segment
 *       ({@code MemorySegment.copy}) and release-stores sequence number {@code i} into flag A;</li>
 *   <li>pong, spinning on flag A with acquire loads, copies slot A into its private segment, copies that
 *       back into slot B, and release-stores {@code i} into flag B;</li>
 *   <li>ping, spinning on flag B, copies slot B into its private segment.</li>
 * </ol>
 * Flags, slots and private buffers are on separate cache lines (and pages), so only the message moves;
 * pong's loop touches nothing else that ping writes.
 *
 * <p>Result: {@code @OperationsPerInvocation(2)} makes JMH divide the time per round trip by two, so the
 * {@code avgt} score (ns/op) is the ONE-WAY latency = RTT / 2. {@code -p payloadBytes=0} measures the bare
 * cache-line hand-off (the peer's "flag" mode).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(2)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class SpinPingPongBench {
    private static final long LINE = 128;   // flags on different lines (and adjacent-line prefetch pairs)
    private static final long FLAG_A = 0, FLAG_B = LINE, STOP = 2 * LINE;
    private static final long SLOT_A = 4 * LINE, SLOT_B = 4 * LINE + 4096;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** Message size in bytes copied each way (0 = flags only). */
    @Param({"64"})
    public int payloadBytes;

    private Arena arena;
    private MemorySegment shared;
    private MemorySegment pingPriv;
    private Thread pong;
    private long seq;                       // written by ping only; pong reads nothing of this object in its loop

    /** Allocates the segments and starts the echo thread. */
    @Setup(Level.Trial)
    public void setUp() {
        if (payloadBytes < 0 || payloadBytes > 4096) throw new IllegalArgumentException("payloadBytes in 0..4096");
        arena = Arena.ofShared();
        shared = arena.allocate(4 * LINE + 8192, 4096);
        pingPriv = arena.allocate(4096, 4096);                 // own page: no false sharing with pong's
        MemorySegment pongPriv = arena.allocate(4096, 4096);
        pingPriv.fill((byte) 'p');
        seq = 0;
        MemorySegment s = shared;
        int n = payloadBytes;
        pong = new Thread(() -> echo(s, pongPriv, n), "pong");
        pong.setDaemon(true);
        pong.start();
    }

    /** Stops the echo thread and frees the segments. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        LONG.setRelease(shared, STOP, 1L);
        pong.join(10_000);
        arena.close();
    }

    /** One round trip of a {@code payloadBytes} message; the score is half of it (see class doc). */
    @Benchmark
    public void roundTrip() {
        long i = ++seq;
        int n = payloadBytes;
        MemorySegment s = shared;
        if (n > 0) MemorySegment.copy(pingPriv, 0, s, SLOT_A, n);
        LONG.setRelease(s, FLAG_A, i);
        while ((long) LONG.getAcquire(s, FLAG_B) != i) Thread.onSpinWait();
        if (n > 0) MemorySegment.copy(s, SLOT_B, pingPriv, 0, n);
    }

    /** The pong loop. The stop flag lives in the shared segment, on its own cache line, so that pong's spin
     *  does not read the cache line of this object, which ping writes ({@code seq}) every round trip. */
    private static void echo(MemorySegment s, MemorySegment priv, int n) {
        for (long i = 1; ; i++) {
            while ((long) LONG.getAcquire(s, FLAG_A) != i) {
                if ((long) LONG.getAcquire(s, STOP) != 0) return;
                Thread.onSpinWait();
            }
            if (n > 0) {
                MemorySegment.copy(s, SLOT_A, priv, 0, n);
                MemorySegment.copy(priv, 0, s, SLOT_B, n);
            }
            LONG.setRelease(s, FLAG_B, i);
        }
    }
}
