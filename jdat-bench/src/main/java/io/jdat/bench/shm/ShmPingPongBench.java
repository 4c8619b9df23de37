package io.jdat.bench.shm;

import io.jdat.DatEvent;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
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
 * jdat {@code shm} between two processes: ping-pong latency, the DAT counterpart of {@code ucx_perftest}
 * {@code tag_lat} ({@code op=send}) and {@code ucp_put_lat} ({@code op=write}) with {@code UCX_TLS=posix,self}.
 *
 * <p>This JMH fork is "ping"; "pong" is a {@link ShmPeer} process. {@code send}: ping sends {@code size}
 * bytes and polls its receive EVD until the echo arrives (one receive always posted ahead), then reaps its
 * send's completion. {@code write}: ping RDMA-writes {@code size} bytes whose last word is a sequence number
 * into the peer's memory and polls its own memory for the peer's RDMA Write back (dequeuing its request EVD
 * meanwhile, which is what drives the receive path in this process), as {@code ucp_put_lat} and
 * {@code ib_write_lat} do. Both processes busy-poll: nothing else may run on a 2-core machine.
 * {@code @OperationsPerInvocation(2)}: the score is the ONE-WAY latency (RTT / 2).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class ShmPingPongBench {
    /** {@code send} (send/recv) or {@code write} (RDMA Write, memory polled). */
    @Param({"send", "write"})
    public String op;

    /** Message size in bytes (at least 8). */
    @Param({"64"})
    public int size;

    /** This side's memory: {@code native} or {@code shared} ({@link io.jdat.shm.ShmMemory}). */
    @Param({"native"})
    public String memory;

    private ShmClient c;
    private LmrTriplet[] send;
    private LmrTriplet[] recv;
    private RmrTriplet writeTarget;
    private long seqAt;
    private long seq;
    private final DatEvent event = new DatEvent();

    /** Starts the peer process and connects. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        c = new ShmClient("shm", size, memory.equals("shared"));
        send = new LmrTriplet[] {c.lmr.triplet(ShmPeer.SEND_AT, size)};
        recv = new LmrTriplet[] {c.lmr.triplet(ShmPeer.RECV_AT, Math.max(size, 64))};
        writeTarget = c.remote(ShmPeer.WRITE_IN, size);
        seqAt = ShmPeer.WRITE_IN + size - 8;
        c.ep.postRecv(1, recv, 1, 0);
    }

    /** Ends the peer and closes the IA. */
    @TearDown(Level.Trial)
    public void tearDown() {
        c.close();
    }

    /** One round trip. */
    @Benchmark
    public long roundTrip() {
        return op.equals("send") ? sendRoundTrip() : writeRoundTrip();
    }

    private long sendRoundTrip() {
        c.ep.postSend(1, send, 2, 0);
        ShmClient.take(c.recvEvd, event);
        long n = event.transferredLength();
        c.ep.postRecv(1, recv, 1, 0);
        ShmClient.take(c.reqEvd, event);
        return n;
    }

    private long writeRoundTrip() {
        long s = ++seq;
        c.buf.set(ValueLayout.JAVA_LONG, ShmPeer.SEND_AT + size - 8, s);
        c.ep.postRdmaWrite(1, send, 3, writeTarget, 0);
        boolean completed = false;
        while (c.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, seqAt) != s || !completed) {
            if (c.reqEvd.dequeue(event)) {
                completed = true;
            } else {
                Thread.onSpinWait();
            }
        }
        return s;
    }
}
