package io.jdat.shm;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectBroken;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.sentinel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Errors on {@code shm}: the owner of the memory refuses an access, a message longer than the receive buffer,
 * a receiver that never posts. The owner checks before any byte moves, on every data path (inline,
 * cross-memory attach, fragments, staging); the requester's request fails with the exact status, and both
 * ends see BROKEN.
 */
class ShmErrorTest {
    private static final int BIG = 1 << 20;

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    static Stream<String> ias() {
        return Stream.of(ShmTesting.SHM, ShmTesting.SHM_BOUNCE, ShmTesting.SHM_SMALL);
    }

    private static EpAttr big() {
        return new EpAttr().maxMessageSize(4 * BIG).maxRdmaSize(4 * BIG).maxRecvDtos(16).maxRequestDtos(16)
                .maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4).maxRdmaReadIn(4)
                .maxRdmaReadOut(4);
    }

    /** Registered memory and its segment. */
    private record Region(Lmr lmr, MemorySegment seg) {
        RmrTriplet remoteTriplet(long offset, long length) {
            return lmr.remoteTriplet(offset, length);
        }
    }

    /** A 4 MiB region with every privilege, filled with sentinels. */
    private static Region region(Pair.Side side, Arena arena) {
        MemorySegment seg = arena.allocate(4L * BIG, 4096);
        sentinel(seg);
        return new Region(Lmr.create(side.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), seg.byteSize(),
                side.pz, MemPriv.ALL), seg);
    }

    @ParameterizedTest(name = "{0}, {1} bytes")
    @MethodSource("writeCases")
    @DisplayName("RWR-09 LMF-04: an RDMA Write beyond the target's region: ERR_REMOTE_ACCESS at the initiator,"
            + " both ends BROKEN, not one byte written at the target")
    void writeOutOfBounds(String ia, int size) {
        try (Pair p = new Pair(ia, big(), 16).connect(); Arena arena = Arena.ofShared()) {
            Region src = region(p.client, arena);
            Region dst = region(p.server, arena);
            fill(src.seg(), 0, size, 5);
            RmrTriplet remote = dst.remoteTriplet(4L * BIG - size / 2, size); // half of it outside
            p.client.ep.postRdmaWrite(1, iov(src.lmr(), 0, size), 1, remote, CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 1);
            expectBroken(p);
            assertUntouched(dst.seg(), 0, 4L * BIG, "target region");
        }
    }

    static Stream<Object[]> writeCases() {
        return ias().flatMap(ia -> Stream.of(new Object[] {ia, 64}, new Object[] {ia, BIG}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ias")
    @DisplayName("RWR-09 RDR-13: an RDMA Read with a context the target never issued: ERR_REMOTE_ACCESS, both"
            + " BROKEN, the local destination untouched")
    void readBadContext(String ia) {
        try (Pair p = new Pair(ia, big(), 16).connect(); Arena arena = Arena.ofShared()) {
            Region dst = region(p.client, arena);
            Region src = region(p.server, arena);
            RmrTriplet remote = new RmrTriplet(src.lmr().rmrContext() ^ 0x5a5a0000, src.lmr().registeredAddress(), BIG);
            p.client.ep.postRdmaRead(1, iov(dst.lmr(), 0, BIG), 1, remote, CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 1);
            expectBroken(p);
            assertUntouched(dst.seg(), 0, 4L * BIG, "destination");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ias")
    @DisplayName("RDR-08: an RDMA Read of memory registered without REMOTE_READ: ERR_REMOTE_ACCESS, both BROKEN")
    void readWithoutPrivilege(String ia) {
        try (Pair p = new Pair(ia, big(), 16).connect(); Arena arena = Arena.ofShared()) {
            MemorySegment seg = arena.allocate(8192, 64);
            Lmr writeOnly = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), seg.byteSize(),
                    p.server.pz, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE | MemPriv.REMOTE_WRITE);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 0, 100), 1, writeOnly.remoteTriplet(0, 100),
                    CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 1);
            expectBroken(p);
        }
    }

    @ParameterizedTest(name = "{0}, {1} bytes")
    @MethodSource("writeCases")
    @DisplayName("RCV-05 SND-09: a message longer than the posted buffer: ERR_LOCAL_LENGTH at the receiver,"
            + " ERR_REMOTE_RESPONDER at the sender, both BROKEN, nothing written past the buffer")
    void messageTooLong(String ia, int size) {
        try (Pair p = new Pair(ia, big(), 16).connect(); Arena arena = Arena.ofShared()) {
            Region src = region(p.client, arena);
            Region dst = region(p.server, arena);
            fill(src.seg(), 0, size, 9);
            p.server.ep.postRecv(1, iov(dst.lmr(), 4096, 63), 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(src.lmr(), 0, size), 2, CompletionFlags.DEFAULT);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 1);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_RESPONDER, 2);
            expectBroken(p);
            assertUntouched(dst.seg(), 4096 + 63, 4L * BIG - 4096 - 63, "past the buffer");
        }
    }

    @Test
    @DisplayName("SND-12 RCV-07: a send posted before the receive waits for it, and so does everything behind it;"
            + " once the receive is posted all complete in order with their bytes")
    void receiverNotReadyWaits() throws InterruptedException {
        try (Pair p = new Pair(ShmTesting.SHM, big(), 16).connect(); Arena arena = Arena.ofShared()) {
            Region src = region(p.client, arena);
            Region dst = region(p.server, arena);
            fill(src.seg(), 0, BIG, 11);
            p.client.ep.postSend(1, iov(src.lmr(), 0, 100), 1, CompletionFlags.DEFAULT);
            p.client.ep.postRdmaWrite(1, iov(src.lmr(), 0, BIG), 2, dst.remoteTriplet(BIG, BIG), CompletionFlags.DEFAULT);
            Thread.sleep(200);
            assertEmpty(p.client.reqEvd, "the send waits for a receive, the write behind it too");
            p.server.ep.postRecv(1, iov(dst.lmr(), 0, 4096), 3, CompletionFlags.DEFAULT);
            dtoOk(p.server.recvEvd, 3, 100);
            dtoOk(p.client.reqEvd, 1, 100);
            dtoOk(p.client.reqEvd, 2, BIG);
            assertPattern(dst.seg(), 0, 100, 11, 0, "message");
            assertPattern(dst.seg(), BIG, BIG, 11, 0, "written");
        }
    }

    @Test
    @DisplayName("SND-09: a send that finds no receive within jdat.shm.rnrTimeoutMillis (2 s):"
            + " ERR_RECEIVER_NOT_READY at the sender, both ends BROKEN")
    void receiverNeverReady() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16).connect()) {
            long t0 = System.nanoTime();
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            DatEvent e = io.jdat.testing.DataPath.next(p.client.reqEvd);
            assertEquals(DtoCompletionStatus.ERR_RECEIVER_NOT_READY, e.status(), e.toString());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= ShmReceiver.RNR_TIMEOUT_MILLIS - 50, "failed after " + ms + " ms");
            expectBroken(p);
        }
    }
}
