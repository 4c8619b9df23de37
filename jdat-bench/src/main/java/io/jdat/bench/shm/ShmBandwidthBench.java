package io.jdat.bench.shm;

import io.jdat.DatEvent;
import io.jdat.LmrTriplet;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
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

/**
 * jdat {@code shm} between two processes: streaming bandwidth of 1 MiB RDMA Writes, RDMA Reads or sends, the
 * DAT counterpart of {@code ucx_perftest ucp_put_bw}, {@code ucp_get} and {@code tag_bw} with
 * {@code UCX_TLS=posix,self}.
 *
 * <p>This JMH fork keeps {@value #WINDOW} transfers outstanding between its registered buffer and a
 * {@link ShmPeer} process's (which polls its EVD, so its receive path serves the Writes and Reads and
 * reposts receives); one invocation reaps one completion and posts the next transfer. With {@code buffers=1}
 * (the default) every transfer of the window uses the same pair of 1 MiB buffers, as {@code ucx_perftest}
 * does, so the data stays in the caches like the peer's; {@code buffers=8} gives each outstanding transfer its
 * own pair (16 MiB in all: a memory-bandwidth figure). Sends land in the peer's rotating receive buffers
 * either way.
 * {@code @OperationsPerInvocation(1 MiB)}: the score is bytes per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(1 << 20)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class ShmBandwidthBench {
    private static final int SIZE = 1 << 20;
    private static final int WINDOW = 8;

    /** {@code write}, {@code read} or {@code send}. */
    @Param({"write", "read", "send"})
    public String op;

    /**
     * This side's memory: {@code native} (the peer reaches it with cross-memory attach) or {@code shared}
     * ({@link io.jdat.shm.ShmMemory}, which the peer maps and copies with {@code MemorySegment.copy}).
     */
    @Param({"native", "shared"})
    public String memory;

    /** Distinct 1 MiB buffer pairs the window cycles through: {@code 1} (as ucx_perftest) or up to 8. */
    @Param({"1"})
    public int buffers;

    private ShmClient c;
    private final LmrTriplet[][] local = new LmrTriplet[WINDOW][];
    private final io.jdat.RmrTriplet[] remote = new io.jdat.RmrTriplet[WINDOW];
    private int next;
    private final DatEvent event = new DatEvent();

    /** Starts the peer, connects and fills the window. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        c = new ShmClient("shm", SIZE, memory.equals("shared"));
        for (int i = 0; i < WINDOW; i++) {
            long at = ShmPeer.BULK + (long) (i % Math.clamp(buffers, 1, WINDOW)) * SIZE;
            local[i] = new LmrTriplet[] {c.lmr.triplet(at, SIZE)};
            remote[i] = c.remote(at, SIZE);
            c.buf.set(ValueLayout.JAVA_BYTE, at, (byte) 0); // a send the peer does not answer
        }
        for (int i = 0; i < WINDOW; i++) {
            post(i);
        }
    }

    /** Drains the window, ends the peer and closes the IA. */
    @TearDown(Level.Trial)
    public void tearDown() {
        for (int i = 0; i < WINDOW; i++) {
            ShmClient.take(c.reqEvd, event);
        }
        c.close();
    }

    private void post(int i) {
        switch (op) {
            case "write" -> c.ep.postRdmaWrite(1, local[i], i, remote[i], 0);
            case "read" -> c.ep.postRdmaRead(1, local[i], i, remote[i], 0);
            default -> c.ep.postSend(1, local[i], i, 0);
        }
    }

    /** Reaps one transfer and posts the next. */
    @Benchmark
    public long transfer() {
        ShmClient.take(c.reqEvd, event);
        int i = next;
        next = (i + 1) % WINDOW;
        post(i);
        return event.transferredLength();
    }
}
