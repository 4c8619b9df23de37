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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * jdat {@code mem}: RDMA Write bandwidth, the DAT equivalent of {@code MemCopyBench}.
 *
 * <p>One invocation posts one RDMA Write of {@code size} bytes from the client's registered buffer into
 * the server's, and dequeues its completion. The score is operations per second: bandwidth in bytes/s =
 * score × size (for 1 MiB: MB/s = score × 1.048576). Source and sink alternate between two halves of
 * each buffer so that caches behave as in {@code MemCopyBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class RdmaWriteBandwidthBench {
    /** Bytes per RDMA Write. */
    @Param({"1048576"})
    public int size;

    private ConnectedPair conn;
    private LmrTriplet[][] local;
    private RmrTriplet[] remote;
    private final DatEvent event = new DatEvent();
    private int turn;

    /** Connects the two EPs. */
    @Setup(Level.Trial)
    public void setUp() {
        conn = new ConnectedPair(2L * size, 16);
        local = new LmrTriplet[][] {{conn.client.lmr.triplet(0, size)}, {conn.client.lmr.triplet(size, size)}};
        remote = new RmrTriplet[] {conn.server.lmr.remoteTriplet(0, size), conn.server.lmr.remoteTriplet(size, size)};
    }

    /** Closes both IAs. */
    @TearDown(Level.Trial)
    public void tearDown() {
        conn.close();
    }

    /** One RDMA Write and its completion. */
    @Benchmark
    public long write() {
        int t = turn ^= 1;
        ConnectedPair.End c = conn.client;
        c.ep.postRdmaWrite(1, local[t], t, remote[t], 0);
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
