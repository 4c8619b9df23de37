package io.jdat.bench.mem;

import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * jdat {@code mem}: RDMA Write bandwidth, the DAT equivalent of {@code MemCopyBench}.
 *
 * <p>One invocation posts one RDMA Write of 1 MiB from the client's registered buffer into
 * the server's, and dequeues its completion. {@code @OperationsPerInvocation} makes the score bytes
 * per second (MB/s = score / 10^6), directly comparable with {@code MemCopyBench}, which copies the same
 * source to the same sink, as this does.
 */
@State(Scope.Thread)
@OperationsPerInvocation(1 << 20)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class RdmaWriteBandwidthBench {
    /** Bytes per RDMA Write (the unit of the score: keep it equal to {@code @OperationsPerInvocation}). */
    private static final int SIZE = 1 << 20;

    private ConnectedPair conn;
    private LmrTriplet[] local;
    private RmrTriplet remote;
    private final DatEvent event = new DatEvent();
    private Thread target;
    private volatile boolean stop;

    /** The IA name both sides open; subclasses for other providers override it. */
    protected String iaName() {
        return "mem";
    }

    /** Connects the two EPs. */
    @Setup(Level.Trial)
    public void setUp() {
        conn = new ConnectedPair(iaName(), SIZE, 16);
        conn.client.buf.fill((byte) 1);
        conn.server.buf.fill((byte) 2);
        local = new LmrTriplet[] {conn.client.lmr.triplet(0, SIZE)};
        remote = conn.server.lmr.remoteTriplet(0, SIZE);
        if (pollsTarget()) {
            startTargetPoller();
        }
    }

    /**
     * True when the target needs a thread of its own to take the bytes in (a software transport: the
     * consumer-driven progress of a busy receiver, like the draining thread of the raw NIO stream).
     */
    protected boolean pollsTarget() {
        return false;
    }

    /** Closes both IAs. */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        stop = true;
        if (target != null) {
            target.join(10_000);
        }
        conn.close();
    }

    private void startTargetPoller() {
        ConnectedPair.End s = conn.server;
        target = new Thread(() -> {
            DatEvent e = new DatEvent();
            while (!stop) {
                if (s.recvEvd.dequeue(e)) {
                    throw new IllegalStateException("unexpected event at the RDMA Write target: " + e);
                }
                Thread.onSpinWait();
            }
        }, "target-progress");
        target.setDaemon(true);
        target.start();
    }

    /** One RDMA Write and its completion. */
    @Benchmark
    public long write() {
        ConnectedPair.End c = conn.client;
        c.ep.postRdmaWrite(1, local, 1, remote, 0);
        DatEvent e = event;
        while (!c.reqEvd.dequeue(e)) {
            Thread.onSpinWait();
        }
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("write failed: " + e);
        }
        return e.transferredLength();
    }
}
