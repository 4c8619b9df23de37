package io.jdat.bench.shm;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.shm.ShmMemory;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The parts of one 64 B {@code shm} RDMA Write ping-pong's one-way time that are not the cache-line transfer, each on
 * one thread with every line in this core (issue 18): {@link #post} is one {@code dat_ep_post_rdma_write}
 * {@code SUPPRESS}ed into the peer IA's {@link ShmMemory}, which the shm provider stores directly (the direct store:
 * the core's checks and request bookkeeping, the transmitter, the target-table look-up and the copy; two IAs in this
 * JVM, the initiator storing through its own mapping of the target's file as another process would);
 * {@link #dekkerCopy} is the direct store's own memory accesses alone, as {@code DirectStore} makes them (volatile
 * mark, volatile entry read and its fields, load fence, entry re-read, 64 B copy, release of the mark) on a plain
 * mapped file; {@link #copyOnly} the 64 B copy alone; {@link #peerView} the target's look at the sequence word
 * ({@code jdat perf}'s {@code awaitWord}, once); {@link #emptyDequeue} one {@code dat_evd_dequeue} of an empty shm
 * EVD (what {@code jdat perf}'s wait does between two looks at the word: it drives the transport's progress);
 * {@link #nanoTime} one {@code System.nanoTime()} (the perf loop reads it twice per round trip). Run with
 * {@code -prof gc}: {@link #post} must allocate nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseParallelGC"})
public class ShmDirectWriteBench {
    private static final int SIZE = 64;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private Arena arena;
    private LocalPair pair;
    private ShmMemory targetMemory;
    private Endpoint epA;
    private EventDispatcher reqA;
    private LmrTriplet[] src;
    private RmrTriplet target;
    private MemorySegment srcSeg;
    private MemorySegment dst;
    private final DatEvent event = new DatEvent();
    private long seq;

    // dekkerCopy: stand-ins for the initiator's status block, the target's table entry and its memory file
    private Path scratch;
    private Arena fileArena;
    private MemorySegment block;
    private MemorySegment table;
    private MemorySegment file;

    /** Opens two shm IAs, connects them and checks that a Write is stored directly (no receive pass at B). */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        pair = new LocalPair();
        epA = pair.epA;
        reqA = pair.reqA;
        srcSeg = arena.allocate(1 << 16, 4096);
        targetMemory = ShmMemory.allocate(1 << 16);
        dst = targetMemory.segment();
        Lmr la = Lmr.create(pair.a, MemType.VIRTUAL, RegionDescription.forVa(srcSeg), srcSeg.byteSize(), pair.pzA,
                MemPriv.ALL);
        Lmr lb = Lmr.create(pair.b, MemType.VIRTUAL, RegionDescription.forVa(dst), dst.byteSize(), pair.pzB,
                MemPriv.ALL);
        src = new LmrTriplet[] {la.triplet(0, SIZE)};
        target = new RmrTriplet(lb.rmrContext(), lb.registeredAddress() + 8192, SIZE);
        pair.connect();
        // the direct store: the bytes are at B when the post returns, nobody having polled B
        srcSeg.set(ValueLayout.JAVA_LONG, SIZE - 8, 0x5EED_5EEDL);
        epA.postRdmaWrite(1, src, 0, target, CompletionFlags.SUPPRESS);
        if (dst.get(ValueLayout.JAVA_LONG, 8192 + SIZE - 8) != 0x5EED_5EEDL) {
            throw new IllegalStateException("the Write was not stored directly (jdat.shm.directStore?)");
        }
        scratch = Files.createTempFile("jdat-direct-bench", ".bin");
        fileArena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(scratch, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, 3 * 4096, fileArena);
            block = m.asSlice(0, 4096);
            table = m.asSlice(4096, 4096);
            file = m.asSlice(8192, 4096);
        }
        table.set(ValueLayout.JAVA_INT, 8, 7);
    }

    /** Closes both IAs. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        pair.close();
        targetMemory.close();
        arena.close();
        fileArena.close();
        Files.deleteIfExists(scratch);
    }

    /** One {@code SUPPRESS}ed 64 B RDMA Write, stored directly into B's memory: the post path. */
    @Benchmark
    public void post() {
        long s = ++seq;
        srcSeg.set(ValueLayout.JAVA_LONG, SIZE - 8, s);
        epA.postRdmaWrite(1, src, s, target, CompletionFlags.SUPPRESS);
    }

    /** {@code DirectStore.write}'s memory accesses alone, in its order, on a plain mapped file. */
    @Benchmark
    public int dekkerCopy() {
        INT.setVolatile(block, 0L, 7);
        long sq = (long) LONG.getVolatile(table, 0L);
        int ctx = table.get(ValueLayout.JAVA_INT, 8);
        int pz = table.get(ValueLayout.JAVA_INT, 12);
        int priv = table.get(ValueLayout.JAVA_INT, 16);
        long id = table.get(ValueLayout.JAVA_LONG, 24);
        long off = table.get(ValueLayout.JAVA_LONG, 32);
        long len = table.get(ValueLayout.JAVA_LONG, 48);
        VarHandle.loadLoadFence();
        if ((long) LONG.getVolatile(table, 0L) != sq) {
            return -1;
        }
        MemorySegment.copy(srcSeg, 0, file, 64, SIZE);
        INT.setRelease(block, 0L, 0);
        return ctx + pz + priv + (int) (id + off + len);
    }

    /** The 64 B copy alone. */
    @Benchmark
    public void copyOnly() {
        MemorySegment.copy(srcSeg, 0, file, 64, SIZE);
    }

    /** The target's look at the sequence word ({@code awaitWord}), once. */
    @Benchmark
    public long peerView() {
        return (long) LONG.getAcquire(dst, 8192L + SIZE - 8);
    }

    /** One {@code dat_evd_dequeue} of the initiator's empty request EVD (drives the transport's progress). */
    @Benchmark
    public boolean emptyDequeue() {
        return reqA.dequeue(event);
    }

    /** One clock read. */
    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
