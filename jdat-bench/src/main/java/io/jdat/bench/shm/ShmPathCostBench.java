package io.jdat.bench.shm;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * The software cost of one small {@code shm} transfer with no core-to-core traffic: two IAs in this JVM, one
 * thread that posts on one side, polls the other side (which handles the record: checks, copies, consumes) and
 * polls the first side again (which reaps the completion). Every cache line stays in this core, so the score is
 * the instructions and fences of the post, receive and completion paths together; the ping-pong benchmarks
 * ({@link ShmPingPongBench}) add the lines that change cores.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class ShmPathCostBench {
    /** {@code write} (RDMA Write) or {@code send} (with a receive reposted each time). */
    @Param({"write", "send"})
    public String op;

    /** Bytes per transfer (inline). */
    @Param({"64"})
    public int size;

    private Arena arena;
    private LocalPair pair;
    private Endpoint epA;
    private Endpoint epB;
    private EventDispatcher reqA;
    private EventDispatcher recvB;
    private LmrTriplet[] src;
    private LmrTriplet[] dst;
    private RmrTriplet target;
    private final DatEvent event = new DatEvent();

    /** Opens two shm IAs and connects them. */
    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        pair = new LocalPair();
        epA = pair.epA;
        epB = pair.epB;
        reqA = pair.reqA;
        recvB = pair.recvB;
        MemorySegment ma = arena.allocate(1 << 16, 4096);
        MemorySegment mb = arena.allocate(1 << 16, 4096);
        Lmr la = Lmr.create(pair.a, MemType.VIRTUAL, RegionDescription.forVa(ma), ma.byteSize(), pair.pzA, MemPriv.ALL);
        Lmr lb = Lmr.create(pair.b, MemType.VIRTUAL, RegionDescription.forVa(mb), mb.byteSize(), pair.pzB, MemPriv.ALL);
        src = new LmrTriplet[] {la.triplet(0, size)};
        dst = new LmrTriplet[] {lb.triplet(4096, size)};
        target = new RmrTriplet(lb.rmrContext(), lb.registeredAddress() + 8192, size);
        pair.connect();
    }

    /** Closes both IAs. */
    @TearDown(Level.Trial)
    public void tearDown() {
        pair.close();
        arena.close();
    }

    /** Post, handle at the target, reap at the initiator: all on this thread. */
    @Benchmark
    public long transfer() {
        if (op.equals("send")) {
            epB.postRecv(1, dst, 1, CompletionFlags.DEFAULT);
            epA.postSend(1, src, 2, CompletionFlags.DEFAULT);
            take(recvB);
        } else {
            epA.postRdmaWrite(1, src, 2, target, CompletionFlags.DEFAULT);
            while (true) {
                recvB.dequeue(event); // drives B's receive path (a Write raises no event at its target)
                if (reqA.dequeue(event)) {
                    return check(event);
                }
            }
        }
        take(reqA);
        return event.transferredLength();
    }

    private void take(EventDispatcher evd) {
        while (!evd.dequeue(event)) {
            Thread.onSpinWait();
        }
        check(event);
    }

    private static long check(DatEvent e) {
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("DTO failed: " + e);
        }
        return e.transferredLength();
    }
}
