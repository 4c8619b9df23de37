package io.jdat.bench.mem;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.LmrTriplet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * jdat {@code mem}: send/recv ping-pong of a small message between two threads, the DAT equivalent of
 * {@code SpinPingPongBench} and Aeron's IPC ping-pong.
 *
 * <p>The JMH thread is "ping"; "pong" is an echo thread started by the state. One invocation is one round
 * trip: ping posts a send ({@code SUPPRESS}: no completion on success) and polls its receive EVD with
 * {@code dat_evd_dequeue} until the reply's completion arrives, then re-posts that receive; pong polls,
 * re-posts and sends back. Both keep one receive posted ahead. {@code @OperationsPerInvocation(2)}: the
 * score is the ONE-WAY latency (RTT / 2). Run with {@code -prof gc}: the loop allocates nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(2)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class SendRecvPingPongBench {
    /** Message size in bytes. */
    @Param({"64"})
    public int size;

    private ConnectedPair conn;
    private LmrTriplet[] clientSend;
    private LmrTriplet[] clientRecv;
    private final DatEvent event = new DatEvent();
    private Thread pong;
    private final AtomicBoolean stop = new AtomicBoolean();

    /** The IA name both sides open; subclasses for other providers override it. */
    protected String iaName() {
        return "mem";
    }

    /** Connects the two EPs and starts the echo thread. */
    @Setup(Level.Trial)
    public void setUp() {
        conn = new ConnectedPair(iaName(), 1 << 20, 64);
        clientSend = new LmrTriplet[] {conn.client.lmr.triplet(0, size)};
        clientRecv = new LmrTriplet[] {conn.client.lmr.triplet(8192, size)};
        LmrTriplet[] serverSend = {conn.server.lmr.triplet(0, size)};
        LmrTriplet[] serverRecv = {conn.server.lmr.triplet(8192, size)};
        conn.client.ep.postRecv(1, clientRecv, 1, 0);
        conn.server.ep.postRecv(1, serverRecv, 2, 0);
        ConnectedPair.End s = conn.server;
        pong = new Thread(() -> echo(s, serverSend, serverRecv, stop), "pong");
        pong.setDaemon(true);
        pong.start();
    }

    /** Stops the echo thread and closes both IAs. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        stop.set(true);
        pong.join(10_000);
        conn.close();
    }

    /** One round trip; the score is half of it. */
    @Benchmark
    public void roundTrip() {
        ConnectedPair.End c = conn.client;
        c.ep.postSend(1, clientSend, 3, CompletionFlags.SUPPRESS);
        DatEvent e = event;
        while (!c.recvEvd.dequeue(e)) {
            Thread.onSpinWait();
        }
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("receive failed: " + e);
        }
        c.ep.postRecv(1, clientRecv, 1, 0);
    }

    private static void echo(ConnectedPair.End s, LmrTriplet[] send, LmrTriplet[] recv, AtomicBoolean stop) {
        DatEvent e = new DatEvent();
        while (true) {
            while (!s.recvEvd.dequeue(e)) {
                if (stop.getPlain()) {
                    return;
                }
                Thread.onSpinWait();
            }
            s.ep.postRecv(1, recv, 2, 0);
            s.ep.postSend(1, send, 4, CompletionFlags.SUPPRESS);
        }
    }
}
