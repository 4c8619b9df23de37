package io.jdat.shm;

import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectBroken;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.sentinel;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.Rmr;
import io.jdat.RmrTriplet;
import io.jdat.testing.Pair;
import io.jdat.testing.RdmaStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The direct store ({@link DirectStore}, {@link ContextTable}): an RDMA Write into the target's {@link ShmMemory}
 * copied by the requester itself after checking the target's published table. What it must keep: the bytes
 * land and the Write completes; every access the core would refuse is refused exactly as before (it goes the
 * ring's way); no store lands after the target's unbind or free returned; a Send after a Write shows the Write's
 * bytes; a hostile table makes the requester store nowhere else.
 */
class ShmDirectStoreTest {
    private static final int MIB = 1 << 20;
    private final List<ShmConnection> started = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    @BeforeEach
    void hook() {
        ShmConnection.startHook = started::add;
    }

    @AfterEach
    void unhook() {
        ShmConnection.startHook = null;
    }

    static EpAttr attr() {
        return new EpAttr().maxMessageSize(4 * MIB).maxRdmaSize(4 * MIB).maxRecvDtos(16).maxRequestDtos(64)
                .maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4).maxRdmaReadIn(4)
                .maxRdmaReadOut(4);
    }

    /** RDMA Writes the client's transmitter stored directly so far. */
    private long directWrites() {
        return directWrites(true);
    }

    /** RDMA Writes stored directly so far by the transmitters of this JVM's active (or passive) sides. */
    private long directWrites(boolean active) {
        return sum(active, ShmTransmitter::directWrites);
    }

    /** {@code count} of the transmitters of this JVM's active (or passive) sides, summed, each under its lock. */
    private long sum(boolean active, java.util.function.ToLongFunction<ShmTransmitter> count) {
        long n = 0;
        for (ShmConnection c : started) {
            if (c.activeSide == active) {
                c.txLock.lock();
                try {
                    n += count.applyAsLong(c.tx);
                } finally {
                    c.txLock.unlock();
                }
            }
        }
        return n;
    }

    /**
     * Waits until the target side of this JVM's active (or passive) connection published its PZ: its EP's
     * ESTABLISHED event comes just before its transport starts the connection, so a Write posted at once may
     * still go the ring (correctly, but these tests count direct stores).
     */
    private void awaitTargetStarted(boolean active) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (;;) {
            for (ShmConnection c : started) {
                if (c.activeSide == active && (int) ConnectionLayout.INT.getAcquire(c.peerBlock,
                        (long) ConnectionLayout.DIRECT_PZ) != 0) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "the target published its PZ within 10 s");
            Thread.sleep(1);
        }
    }

    static Stream<String> ias() {
        return Stream.of(ShmTesting.SHM, ShmTesting.SHM_SMALL);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ias")
    @DisplayName("RWR-01 RWR-03: RDMA Writes of 64 B and 1 MiB + 13 (two gather pieces) into ShmMemory are stored"
            + " by the requester: the bytes land, the rest is untouched, each completes with its length")
    void directWriteLandsAndCompletes(String ia) throws InterruptedException {
        try (Pair p = new Pair(ia, attr(), 64).connect(); Arena arena = Arena.ofShared();
                ShmMemory sm = ShmMemory.allocate(4 * MIB)) {
            MemorySegment src = arena.allocate(4 * MIB, 4096);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), 4 * MIB, p.client.pz,
                    MemPriv.ALL);
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), 4 * MIB,
                    p.server.pz, MemPriv.ALL);
            sentinel(sm.segment());
            fill(src, 0, 2 * MIB, 7);
            awaitTargetStarted(true);
            p.client.ep.postRdmaWrite(1, iov(c, 0, 64), 1, s.remoteTriplet(100, 64), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 1, 64);
            int n = MIB + 13;
            p.client.ep.postRdmaWrite(2, iov(c, 0, 5, 5, n - 5), 2, s.remoteTriplet(2 * MIB, n),
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 2, n);
            assertEquals(2, directWrites(), "stored directly");
            assertPattern(sm.segment(), 100, 64, 7, 0, "64 B write");
            assertPattern(sm.segment(), 2 * MIB, n, 7, 0, "1 MiB write");
            assertUntouched(sm.segment(), 0, 100, "before");
            assertUntouched(sm.segment(), 164, 2 * MIB - 164, "between");
            assertUntouched(sm.segment(), 2 * MIB + n, 2 * MIB - n, "after");
            c.free();
            s.free();
        }
    }

    /** How a refused case names the target. */
    enum Refusal { UNKNOWN_CONTEXT, OUT_OF_BOUNDS, NO_REMOTE_WRITE, OTHER_PZ }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    @DisplayName("RWR-09 LMF-04 PRT: a Write the target's core refuses (unknown context, bounds overrun, no"
            + " REMOTE_WRITE, a region of another PZ) is not stored directly: ERR_REMOTE_ACCESS, both BROKEN, the"
            + " target untouched, as on the ring path")
    void refusedWritesAreRefusedAsBefore(Refusal how) {
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 64).connect(); Arena arena = Arena.ofShared();
                ShmMemory sm = ShmMemory.allocate(MIB)) {
            MemorySegment src = arena.allocate(MIB, 4096);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), MIB, p.client.pz,
                    MemPriv.ALL);
            ProtectionZone other = ProtectionZone.create(p.server.ia);
            int priv = how == Refusal.NO_REMOTE_WRITE ? MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE | MemPriv.REMOTE_READ
                    : MemPriv.ALL;
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), MIB,
                    how == Refusal.OTHER_PZ ? other : p.server.pz, priv);
            int ctx = s.rmrContext();
            sentinel(sm.segment());
            fill(src, 0, 4096, 3);
            RmrTriplet remote = switch (how) {
                case UNKNOWN_CONTEXT -> new RmrTriplet(ctx ^ 0x5A00, s.registeredAddress(), 4096);
                case OUT_OF_BOUNDS -> s.remoteTriplet(MIB - 2048, 4096);
                default -> s.remoteTriplet(0, 4096);
            };
            p.client.ep.postRdmaWrite(1, iov(c, 0, 4096), 1, remote, CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 1);
            expectBroken(p);
            assertEquals(0, directWrites(), "nothing stored directly");
            assertUntouched(sm.segment(), 0, MIB, "target");
        }
    }

    static Stream<Refusal> refusals() {
        return Stream.of(Refusal.values());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("withdrawals")
    @DisplayName("RMB-06 LMF-04 RMF-01: the target unbinds the RMR (or frees the LMR) while the requester streams"
            + " direct Writes: not one byte changes after the unbind or free returned, the guard around the bound"
            + " range is never written, and the stream ends with ERR_REMOTE_ACCESS and BROKEN")
    void noStoreLandsAfterTheWithdrawalReturned(String withdrawal) throws Exception {
        // a store going on when the withdrawal starts is likely, not certain, in one round: several rounds
        for (int round = 0; round < 5; round++) {
            withdrawWhileStreaming(withdrawal);
            started.clear();
        }
    }

    private void withdrawWhileStreaming(String withdrawal) throws Exception {
        int chunk = MIB; // each Write covers the bound range; its last bytes are stored last, 100 µs or so in
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 256).connect(); Arena arena = Arena.ofShared();
                ShmMemory sm = ShmMemory.allocate(4 * MIB)) {
            // two sources of different values, so that consecutive Writes differ and the streamer spends its
            // time in the copies
            MemorySegment src = arena.allocate(2L * chunk, 4096);
            src.asSlice(0, chunk).fill((byte) 1);
            src.asSlice(chunk, chunk).fill((byte) 2);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), 2L * chunk, p.client.pz,
                    MemPriv.ALL);
            boolean rmrCase = withdrawal.equals("rmr unbind");
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), 4 * MIB,
                    p.server.pz, rmrCase ? MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE : MemPriv.ALL);
            sentinel(sm.segment());
            Rmr rmr = null;
            RmrTriplet target;
            if (rmrCase) {
                rmr = Rmr.create(p.server.pz);
                int ctx = rmr.bind(s.triplet(MIB, MIB), MemPriv.REMOTE_WRITE, p.server.ep, 9, CompletionFlags.DEFAULT);
                assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, p.server.next(p.server.reqEvd).eventNumber());
                target = new RmrTriplet(ctx, s.registeredAddress() + MIB, MIB);
            } else {
                target = s.remoteTriplet(MIB, MIB);
            }
            RdmaStream stream = RdmaStream.writes(p.client, c, chunk, target);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (directWrites() < 50 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(directWrites() >= 50, "the stream stores directly");
            Thread.sleep(1); // not right after directWrites(), which waited for the streamer's lock
            if (rmrCase) {
                rmr.bind(new LmrTriplet(s.lmrContext(), s.registeredAddress(), 0), 0, p.server.ep, 10,
                        CompletionFlags.DEFAULT); // an unbind
            } else {
                s.free();
            }
            // at once: the last bytes of the range, which a store still going on would write last
            byte[] tail = sm.segment().asSlice(2 * MIB - 64, 64).toArray(ValueLayout.JAVA_BYTE);
            byte[] after = sm.segment().toArray(ValueLayout.JAVA_BYTE);
            long directAtWithdrawal = directWrites();
            Thread.sleep(200);
            stream.stop();
            assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, stream.failure(), "how the stream ended");
            assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, p.client.next(p.client.connEvd).eventNumber());
            assertArrayEquals(tail, sm.segment().asSlice(2 * MIB - 64, 64).toArray(ValueLayout.JAVA_BYTE),
                    "the range's last bytes changed after the " + withdrawal + " returned");
            assertArrayEquals(after, sm.segment().toArray(ValueLayout.JAVA_BYTE),
                    "bytes changed after the " + withdrawal + " returned");
            assertEquals(directAtWithdrawal, directWrites(), "direct stores after the withdrawal");
            assertUntouched(sm.segment(), 0, MIB, "guard before");
            assertUntouched(sm.segment(), 2 * MIB, 2 * MIB, "guard after");
            if (rmr != null) {
                rmr.free();
                s.free();
            }
            c.free();
        }
    }

    static Stream<String> withdrawals() {
        return Stream.of("rmr unbind", "lmr free");
    }

    @Test
    @DisplayName("RWR-01 SND-01 (ordering): a 1 MiB direct Write then a Send: when the Send's receive completes at"
            + " the target, the Write's bytes are there")
    void aSendAfterAWriteShowsItsBytes() throws InterruptedException {
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 64).connect(); Arena arena = Arena.ofShared();
                ShmMemory sm = ShmMemory.allocate(MIB)) {
            MemorySegment src = arena.allocate(MIB, 4096);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), MIB, p.client.pz,
                    MemPriv.ALL);
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), MIB,
                    p.server.pz, MemPriv.ALL);
            awaitTargetStarted(true);
            for (int round = 1; round <= 20; round++) {
                p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 64)}, round, CompletionFlags.DEFAULT);
                src.fill((byte) round);
                p.client.ep.postRdmaWrite(1, iov(c, 0, MIB), 2 * round, s.remoteTriplet(0, MIB),
                        CompletionFlags.DEFAULT);
                p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(0, 8)}, 2 * round + 1,
                        CompletionFlags.DEFAULT);
                dtoOk(p.server.recvEvd, round, 8);
                for (long k = 0; k < MIB; k += 4096) {
                    assertEquals((byte) round, sm.segment().get(ValueLayout.JAVA_BYTE, k + 4095), "round " + round);
                }
                dtoOk(p.client.reqEvd, 2 * round, MIB);
                dtoOk(p.client.reqEvd, 2 * round + 1, 8);
            }
            assertEquals(20, directWrites(), "stored directly");
            c.free();
            s.free();
        }
    }

    @Test
    @DisplayName("RWR-01 SND-01 (ordering, two processes): the target is a child JVM; 20 rounds of a 256 KiB direct"
            + " Write of a new value then a Send: when the child's receive completes, every byte holds that value")
    void aSendAfterAWriteShowsItsBytesAcrossProcesses() throws Exception {
        int rounds = 20;
        int n = DirectStorePeerMain.BYTES;
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 64)) {
            io.jdat.PublicServicePoint psp = io.jdat.PublicServicePoint.createAny(p.server.ia, p.crEvd,
                    io.jdat.PspFlags.CONSUMER);
            String dir = ((UnixDomainSocketAddress) p.serverAddress()).getPath().toString();
            try (Arena arena = Arena.ofShared(); io.jdat.testing.net.ChildJvm child = io.jdat.testing.net.ChildJvm
                    .start("direct-store-peer", DirectStorePeerMain.class, ShmTesting.SHM, dir,
                            Long.toString(psp.connQual()), Integer.toString(rounds))) {
                DatEvent cr = new DatEvent();
                assertTrue(p.crEvd.waitFor(60_000_000, 1, cr), "the child's connection request within 60 s");
                io.jdat.ConnectionRequest req = cr.cr();
                java.nio.ByteBuffer pd = java.nio.ByteBuffer.wrap(req.query(io.jdat.CrParam.FIELD_ALL).privateData());
                int ctx = pd.getInt();
                long address = pd.getLong();
                req.accept(p.server.ep, 0, new byte[0]);
                p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                child.awaitLine(l -> l.startsWith("CONNECTED"), java.time.Duration.ofSeconds(30));
                awaitTargetStarted(false);
                MemorySegment src = arena.allocate(n, 4096);
                Lmr c = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(src), n, p.server.pz,
                        MemPriv.ALL);
                for (int r = 0; r < rounds; r++) {
                    src.fill((byte) (r + 1));
                    p.server.ep.postRdmaWrite(1, iov(c, 0, n), 2 * r, new RmrTriplet(ctx, address, n),
                            CompletionFlags.DEFAULT);
                    p.server.ep.postSend(1, iov(c, 0, 8), 2 * r + 1, CompletionFlags.DEFAULT);
                    dtoOk(p.server.reqEvd, 2 * r, n);
                    dtoOk(p.server.reqEvd, 2 * r + 1, 8);
                    String line = child.awaitLine(l -> l.startsWith("ROUND "), java.time.Duration.ofSeconds(30));
                    assertEquals("ROUND " + r + " OK", line);
                }
                child.awaitLine(l -> l.equals("DONE"), java.time.Duration.ofSeconds(30));
                assertEquals(rounds, directWrites(false), "stored directly into the child's memory");
                c.free();
            }
            psp.free();
        }
    }

    @Test
    @DisplayName("RDR-16 (shm direct store): once warm, posting direct RDMA Writes (64 B and 4 KiB, suppressed"
            + " completions) allocates nothing on the posting thread")
    void directWritesAllocateNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 64).connect(); ShmMemory sm = ShmMemory.allocate(MIB)) {
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), MIB,
                    p.server.pz, MemPriv.ALL);
            LmrTriplet[] small = iov(p.client.lmr, 0, 64);
            LmrTriplet[] page = iov(p.client.lmr, 0, 4096);
            RmrTriplet a = s.remoteTriplet(0, 64);
            RmrTriplet b = s.remoteTriplet(8192, 4096);
            // the first Writes may go the ring while the target's side of the connection is still starting (its
            // PZ not yet published): wait for one, then warm up, draining whatever the ring left outstanding
            p.client.ep.postRdmaWrite(1, small, 1, a, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 1, 64);
            DatEvent e = new DatEvent();
            for (int i = 0; i < 20_000; i++) { // warm up: the JIT compiles the path
                try {
                    p.client.ep.postRdmaWrite(1, small, i, a, CompletionFlags.SUPPRESS);
                    p.client.ep.postRdmaWrite(1, page, i, b, CompletionFlags.SUPPRESS);
                } catch (io.jdat.DatException x) {
                    assertEquals(io.jdat.DatReturnType.INSUFFICIENT_RESOURCES, x.type(), x.getMessage());
                    p.client.reqEvd.dequeue(e); // the ring's Writes complete as the target handles them
                }
            }
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 5 && best > 0; round++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 1000; i++) {
                    p.client.ep.postRdmaWrite(1, small, i, a, CompletionFlags.SUPPRESS);
                    p.client.ep.postRdmaWrite(1, page, i, b, CompletionFlags.SUPPRESS);
                }
                best = Math.min(best, mx.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(directWrites() >= 2000, "stored directly: " + directWrites());
            assertTrue(best < 2000, "2000 direct Writes allocated " + best + " bytes");
            s.free();
        }
    }

    private static byte sentinelByte() {
        MemorySegment one = MemorySegment.ofArray(new byte[1]);
        sentinel(one);
        return one.get(ValueLayout.JAVA_BYTE, 0);
    }

    /** Direct Writes the client's transmitters placed at once for the core ({@code Channel.writeNow}). */
    private long placedAtOnce() {
        return sum(true, ShmTransmitter::placedAtOnce);
    }

    @Test
    @DisplayName("RWR-01 RWR-03 SND-09 (SUPPRESS, ordering): with nothing outstanding a SUPPRESSed Write is placed by"
            + " the posting thread (the bytes are there when the post returns, no request is kept, it is counted"
            + " posted and completed, no event); behind a Send the target cannot take yet it waits, in order")
    void aSuppressedWriteWithNothingOutstandingIsPlacedAtOnce() throws InterruptedException {
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 64).connect(); Arena arena = Arena.ofShared();
                ShmMemory sm = ShmMemory.allocate(MIB)) {
            MemorySegment src = arena.allocate(4096, 4096);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), 4096, p.client.pz,
                    MemPriv.ALL);
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), MIB,
                    p.server.pz, MemPriv.ALL);
            awaitTargetStarted(true);
            p.client.ep.postRdmaWrite(1, iov(c, 0, 64), 100, s.remoteTriplet(0, 64), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 100, 64); // nothing outstanding from here on
            io.jdat.DtoCounters before = p.client.ep.counters();
            long placed = placedAtOnce();
            for (int i = 1; i <= 10; i++) {
                fill(src, 0, 64, i);
                p.client.ep.postRdmaWrite(1, iov(c, 0, 64), i, s.remoteTriplet(64L * i, 64), CompletionFlags.SUPPRESS);
                assertPattern(sm.segment(), 64L * i, 64, i, 0, "Write " + i + " as its post returned");
            }
            assertEquals(placed + 10, placedAtOnce(), "placed at once");
            io.jdat.DtoCounters after = p.client.ep.counters();
            assertEquals(before.requestsPosted() + 10, after.requestsPosted(), "posted");
            assertEquals(before.requestsCompleted() + 10, after.requestsCompleted(), "completed");
            assertEquals(before.requestBytes() + 640, after.requestBytes(), "bytes");
            assertTrue(!p.client.reqEvd.dequeue(new DatEvent()), "no event for a SUPPRESSed success");
            assertTrue(p.client.ep.getStatus().requestIdle(), "nothing outstanding");

            // a Send the target has no receive for stays outstanding; a SUPPRESSed Write behind it waits for it
            p.client.ep.postSend(1, iov(c, 0, 8), 200, CompletionFlags.DEFAULT);
            fill(src, 0, 64, 77);
            sentinel(sm.segment().asSlice(8192, 64));
            p.client.ep.postRdmaWrite(1, iov(c, 0, 64), 201, s.remoteTriplet(8192, 64), CompletionFlags.SUPPRESS);
            Thread.sleep(50);
            assertEquals(placed + 10, placedAtOnce(), "not placed at once behind the Send");
            assertUntouched(sm.segment(), 8192, 64, "the Write behind the Send, before the Send was taken");
            p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 64)}, 300, CompletionFlags.DEFAULT);
            dtoOk(p.server.recvEvd, 300, 8);
            dtoOk(p.client.reqEvd, 200, 8);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (sm.segment().get(ValueLayout.JAVA_BYTE, 8192 + 63) == sentinelByte() && System.nanoTime() < deadline) {
                p.client.reqEvd.dequeue(new DatEvent()); // drives the client's side; nothing is expected there
                Thread.onSpinWait();
            }
            assertPattern(sm.segment(), 8192, 64, 77, 0, "the Write behind the Send");
            assertEquals(before.requestsCompleted() + 12, p.client.ep.counters().requestsCompleted(), "completed");
            c.free();
            s.free();
        }
    }

    /** A corruption of the target's table entry, made by the test as a hostile target would. */
    enum Corruption { OFFSET_PAST_THE_FILE, LENGTH_PAST_THE_FILE, UNKNOWN_FILE, LINK_TO_A_FILE_NOT_GIVEN }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corruptions")
    @DisplayName("PRT (hostile table): a corrupt entry (offset or length past the file, a file that does not exist,"
            + " a symbolic link to a file of this process) never makes the requester store outside the target's"
            + " mapped file: it takes the ring, the target's core places the Write, the victim file is untouched")
    void aCorruptTableEntryStoresNowhereElse(Corruption how) throws Exception {
        Path link = null;
        Path victim = Files.createTempFile("jdat-victim", ".bin");
        try (Pair p = new Pair(ShmTesting.SHM, attr(), 64).connect(); Arena arena = Arena.ofShared();
                ShmMemory sm = ShmMemory.allocate(MIB)) {
            Files.write(victim, new byte[8192]);
            MemorySegment src = arena.allocate(MIB, 4096);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), MIB, p.client.pz,
                    MemPriv.ALL);
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment().asSlice(4096)),
                    MIB - 4096, p.server.pz, MemPriv.ALL);
            sentinel(sm.segment());
            Path dir = ((UnixDomainSocketAddress) p.serverAddress()).getPath();
            try (FileChannel ch = FileChannel.open(dir.resolve(ContextTable.FILE), StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                MemorySegment table = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
                long e = entryOf(table, s.rmrContext());
                switch (how) {
                    case OFFSET_PAST_THE_FILE -> table.set(ValueLayout.JAVA_LONG, e + ContextTable.FILE_OFFSET, MIB - 100);
                    case LENGTH_PAST_THE_FILE -> {
                        // the region seems larger than the file: an access inside it reaches past the file's end
                        table.set(ValueLayout.JAVA_LONG, e + ContextTable.ADDRESS, s.registeredAddress() - 2 * MIB);
                        table.set(ValueLayout.JAVA_LONG, e + ContextTable.LENGTH, 4L * MIB);
                        table.set(ValueLayout.JAVA_LONG, e + ContextTable.FILE_OFFSET, 0);
                    }
                    case UNKNOWN_FILE -> table.set(ValueLayout.JAVA_LONG, e + ContextTable.MEMORY_ID, 1L << 40);
                    case LINK_TO_A_FILE_NOT_GIVEN -> {
                        long fake = (1L << 40) + 1;
                        link = ShmMemory.home().directory().resolve(ShmMemory.fileName(fake));
                        Files.createSymbolicLink(link, victim);
                        table.set(ValueLayout.JAVA_LONG, e + ContextTable.MEMORY_ID, fake);
                        table.set(ValueLayout.JAVA_LONG, e + ContextTable.FILE_OFFSET, 0);
                    }
                }
            }
            fill(src, 0, 4096, 11);
            p.client.ep.postRdmaWrite(1, iov(c, 0, 4096), 1, s.remoteTriplet(0, 4096), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 1, 4096);
            assertEquals(0, directWrites(), "not stored directly");
            assertPattern(sm.segment(), 4096, 4096, 11, 0, "placed by the target's core");
            assertUntouched(sm.segment(), 0, 4096, "before the region");
            assertUntouched(sm.segment(), 8192, MIB - 8192, "after the write");
            assertArrayEquals(new byte[8192], Files.readAllBytes(victim), "the victim file");
            c.free();
            s.free();
        } finally {
            if (link != null) {
                Files.deleteIfExists(link);
            }
            Files.deleteIfExists(victim);
        }
    }

    static Stream<Corruption> corruptions() {
        return Stream.of(Corruption.values());
    }

    /** The offset of {@code context}'s entry in a mapped context table. */
    private static long entryOf(MemorySegment table, int context) {
        for (int i = 0; i < ContextTable.CAPACITY; i++) {
            long e = ContextTable.HEADER + (long) ContextTable.ENTRY * i;
            if (table.get(ValueLayout.JAVA_INT, e + ContextTable.CONTEXT) == context) {
                return e;
            }
        }
        throw new AssertionError("context 0x" + Integer.toHexString(context) + " is not in the table");
    }
}
