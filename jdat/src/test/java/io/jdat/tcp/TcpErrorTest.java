package io.jdat.tcp;

import static io.jdat.tcp.TcpFixture.pattern;
import static io.jdat.tcp.TcpFixture.region;
import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectBroken;
import static io.jdat.testing.DataPath.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.tcp.TcpFixture.Region;
import io.jdat.testing.Pair;
import java.lang.foreign.MemorySegment;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Error paths of the {@code tcp} data path (IWARP.md §9): a message longer than its receive buffer, RDMA
 * naming memory the target refuses, reads beyond the target's IRD, the order of failures, and a receiver
 * that is not ready (the sender waits, within the limit, then the connection breaks).
 */
class TcpErrorTest {
    private static final int KIB = 1024;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    private static EpAttr attr() {
        return new EpAttr().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(64).maxRequestDtos(64)
                .maxRecvIov(8).maxRequestIov(8).maxRdmaReadIov(8).maxRdmaWriteIov(8).maxRdmaReadIn(4)
                .maxRdmaReadOut(4).recvCompletionFlags(CompletionFlags.EVD_THRESHOLD)
                .requestCompletionFlags(CompletionFlags.EVD_THRESHOLD);
    }

    /** Waits for the completion of {@code cookie}, which must have one of {@code allowed} statuses. */
    private static DatEvent dtoAnyOf(io.jdat.EventDispatcher evd, long cookie, DtoCompletionStatus... allowed) {
        DatEvent e = next(evd);
        assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber(), "event number of " + e);
        assertEquals(cookie, e.userCookie(), "cookie of " + e);
        assertTrue(java.util.Arrays.asList(allowed).contains(e.status()), "status of " + e);
        return e;
    }

    // ------------------------------------------------------------------ message too long

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {TcpTesting.LO, TcpTesting.LO_SMALL})
    @DisplayName("RCV-05 RCV-06 SND-09: a 100-byte message into a 2-segment 64-byte buffer: the receive completes"
            + " with DAT_DTO_ERR_LOCAL_LENGTH, the receiver sends a Terminate, both EPs BROKEN; nothing is written"
            + " outside the buffer, the next receive and a later send are flushed")
    void sendLongerThanBuffer(String ia) {
        try (Pair p = new Pair(ia, attr(), 64).connect()) {
            Region dst = region(p.server, 8 * KIB);
            Region src = region(p.client, 8 * KIB);
            src.put(0, pattern(1, 100), 0, 100);
            p.server.ep.postRecv(2, dst.iov(100, 32, 200, 32), 7, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, dst.iov(1000, 512), 8, CompletionFlags.DEFAULT);
            p.client.ep.postSend(2, src.iov(0, 60, 60, 40), 9, CompletionFlags.DEFAULT);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 7);
            // tcp completes a Send when its bytes are in the socket: success, or the Terminate's error if it
            // came first
            dtoAnyOf(p.client.reqEvd, 9, DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
            expectBroken(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 8);
            byte[] after = dst.snapshot();
            for (int i = 0; i < after.length; i++) {
                boolean inBuffer = (i >= 100 && i < 132) || (i >= 200 && i < 232);
                if (!inBuffer) {
                    assertEquals(TcpFixture.SENTINEL, after[i], "byte " + i + " outside the receive buffer");
                }
            }
            p.client.ep.postSend(1, src.iov(0, 8), 10, CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 10);
            assertEmpty(p.server.recvEvd, "server receives");
        }
    }

    @Test
    @DisplayName("RCV-05 SND-09: a 1 MiB message into a 64-byte buffer: ERR_LOCAL_LENGTH at the receiver, the send"
            + " completes (success or the Terminate's error), both BROKEN, nothing written outside the buffer")
    void largeSendIntoSmallBuffer() {
        try (Pair p = new Pair(TcpTesting.LO, attr(), 64).connect()) {
            Region dst = region(p.server, 8 * KIB);
            Region src = region(p.client, 1 << 20);
            src.put(0, pattern(2, 1 << 20), 0, 1 << 20);
            p.server.ep.postRecv(1, dst.iov(64, 64), 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, src.iov(0, 1 << 20), 2, CompletionFlags.DEFAULT);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 1);
            dtoAnyOf(p.client.reqEvd, 2, DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_REMOTE_RESPONDER,
                    DtoCompletionStatus.ERR_FLUSHED);
            expectBroken(p);
            byte[] after = dst.snapshot();
            for (int i = 0; i < after.length; i++) {
                if (i < 64 || i >= 128) {
                    assertEquals(TcpFixture.SENTINEL, after[i], "byte " + i + " outside the receive buffer");
                }
            }
        }
    }

    // ------------------------------------------------------------------ remote access errors

    /** A remote range the target must refuse. */
    record Bad(String name, Function<Pair, RmrTriplet> remote) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Bad> badRemotes() {
        return Stream.of(
                new Bad("unknown context", p -> new RmrTriplet(p.server.lmr.rmrContext() ^ 0x5A5A00,
                        p.server.lmr.registeredAddress(), 64)),
                new Bad("beyond the region", p -> p.server.lmr.remoteTriplet(p.server.lmr.registeredSize() - 32, 64)),
                new Bad("below the region", p -> new RmrTriplet(p.server.lmr.rmrContext(),
                        p.server.lmr.registeredAddress() - 8, 64)),
                new Bad("freed LMR", p -> {
                    MemorySegment m = p.server.arena.allocate(4096, 256);
                    Lmr l = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(m), 4096, p.server.pz,
                            MemPriv.ALL);
                    RmrTriplet t = l.remoteTriplet(0, 64);
                    l.free();
                    return t;
                }),
                new Bad("no remote privilege", p -> {
                    MemorySegment m = p.server.arena.allocate(4096, 256);
                    Lmr l = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(m), 4096, p.server.pz,
                            MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
                    return l.remoteTriplet(0, 64);
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRemotes")
    @DisplayName("RWR-09 RWR-08: an RDMA Write to a range the target refuses: the write completes (success: its"
            + " bytes were in the socket, or ERR_REMOTE_ACCESS), the target answers with a Terminate, both EPs"
            + " BROKEN, no target byte changes")
    void rdmaWriteRefused(Bad bad) {
        try (Pair p = new Pair(TcpTesting.LO, attr(), 64).connect()) {
            p.server.buf.fill((byte) 0x33);
            p.client.buf.asSlice(0, 64).fill((byte) 0x44);
            RmrTriplet remote = bad.remote().apply(p);
            byte[] target = p.server.buf.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            p.server.ep.postRecv(1, new io.jdat.LmrTriplet[] {p.server.lmr.triplet(0, 64)}, 1, 0);
            p.client.ep.postRdmaWrite(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 42, remote,
                    CompletionFlags.DEFAULT);
            dtoAnyOf(p.client.reqEvd, 42, DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            expectBroken(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
            TcpFixture.assertImageEquals(p.server.buf, target, "target memory");
            assertEmpty(p.server.reqEvd, "target request EVD");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRemotes")
    @DisplayName("RWR-09 RDR-13 RDR-14: an RDMA Read of a range the target refuses completes with"
            + " DAT_DTO_ERR_REMOTE_ACCESS, both EPs BROKEN, the sink untouched, the source unchanged")
    void rdmaReadRefused(Bad bad) {
        try (Pair p = new Pair(TcpTesting.LO, attr(), 64).connect()) {
            p.client.buf.fill(TcpFixture.SENTINEL);
            p.server.buf.fill((byte) 0x33);
            RmrTriplet remote = bad.remote().apply(p);
            byte[] source = p.server.buf.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            p.client.ep.postRdmaRead(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(1024, 64)}, 42, remote,
                    CompletionFlags.SUPPRESS);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 42);
            expectBroken(p);
            TcpFixture.assertImageEquals(p.client.buf, TcpFixture.sentinelImage(p.client.buf.byteSize()), "read sink");
            TcpFixture.assertImageEquals(p.server.buf, source, "read source");
        }
    }

    @Test
    @DisplayName("RDR-17: a read arriving at an EP whose max_rdma_read_in is 0 is refused: ERR_REMOTE_ACCESS, both"
            + " EPs BROKEN, nothing moves")
    void readWithZeroReadIn() {
        try (Pair p = new Pair(TcpTesting.LO, attr().maxRdmaReadIn(0).maxRdmaReadOut(4), 64).connect()) {
            p.client.buf.fill(TcpFixture.SENTINEL);
            p.server.buf.asSlice(0, 64).fill((byte) 0x21);
            p.client.ep.postRdmaRead(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 9,
                    p.server.lmr.remoteTriplet(0, 64), CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 9);
            expectBroken(p);
            TcpFixture.assertImageEquals(p.client.buf, TcpFixture.sentinelImage(p.client.buf.byteSize()), "read sink");
        }
    }

    @Test
    @DisplayName("RDR-17 CON-21 CON-23 CRA-10: an initiator with max_rdma_read_out 8 and a target with"
            + " max_rdma_read_in 2 agree on 2 in the MPA exchange: 16 reads posted at once all succeed")
    void readDepthNegotiated() {
        try (TcpFixture.Node client = new TcpFixture.Node(TcpTesting.LO);
                TcpFixture.Node server = new TcpFixture.Node(TcpTesting.LO)) {
            TcpFixture.Ep c = client.ep(attr().maxRdmaReadOut(8).maxRdmaReadIn(8), 64);
            TcpFixture.Ep s = server.ep(attr().maxRdmaReadIn(2).maxRdmaReadOut(2), 64);
            TcpFixture.connect(c, s, server.listen());
            Region src = server.region(16 * 4 * KIB);
            Region sink = client.region(16 * 4 * KIB);
            byte[] data = pattern(3, 16 * 4 * KIB);
            src.put(0, data, 0, data.length);
            for (int i = 0; i < 16; i++) {
                c.ep.postRdmaRead(1, sink.iov(i * 4L * KIB, 4 * KIB), i, src.remote(i * 4L * KIB, 4 * KIB),
                        CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < 16; i++) {
                dtoOk(c.reqEvd, i, 4 * KIB);
            }
            sink.assertImage(data, "read data");
            assertEquals(EpState.CONNECTED, s.ep.getStatus().epState());
        }
    }

    // ------------------------------------------------------------------ failure order

    @Test
    @DisplayName("DSC-05 RWR-09: after a read fails with ERR_REMOTE_ACCESS, the send posted right behind it (whose"
            + " bytes the target never took) is FLUSHED, not a success; the target's receive is flushed")
    void sendBehindFailedRead() {
        try (Pair p = new Pair(TcpTesting.LO, attr(), 64).connect()) {
            p.server.ep.postRecv(1, new io.jdat.LmrTriplet[] {p.server.lmr.triplet(0, 64)}, 1, 0);
            RmrTriplet bad = new RmrTriplet(p.server.lmr.rmrContext() ^ 0x100, p.server.lmr.registeredAddress(), 8);
            p.client.ep.postRdmaRead(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(0, 8)}, 10, bad, 0);
            p.client.ep.postSend(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(64, 8)}, 11, 0);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 10);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 11);
            expectBroken(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
        }
    }

    @Test
    @DisplayName("DSC-05 RWR-09: a write to a bad context followed by a good read: the write completes (success or"
            + " ERR_REMOTE_ACCESS), the read the target never served is FLUSHED, not blamed for the write's error")
    void readBehindFailedWrite() {
        try (Pair p = new Pair(TcpTesting.LO, attr(), 64).connect()) {
            RmrTriplet bad = new RmrTriplet(p.server.lmr.rmrContext() ^ 0x100, p.server.lmr.registeredAddress(), 8);
            p.client.ep.postRdmaWrite(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(0, 8)}, 10, bad, 0);
            p.client.ep.postRdmaRead(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(64, 8)}, 11,
                    p.server.lmr.remoteTriplet(0, 8), 0);
            dtoAnyOf(p.client.reqEvd, 10, DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_REMOTE_ACCESS);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 11);
            expectBroken(p);
        }
    }

    // ------------------------------------------------------------------ receiver not ready

    @Test
    @DisplayName("SND-09 SND-12 RCV-07: a send posted before the receive waits (TCP flow control): the receive"
            + " posted 200 ms later gets the data; three more sends each wait for their own late receive; the"
            + " connection stays up")
    void receiverNotReadyWaits() throws InterruptedException {
        try (Pair p = new Pair(TcpTesting.LO, attr(), 64).connect()) {
            Region src = region(p.client, 64 * KIB);
            Region dst = region(p.server, 64 * KIB);
            byte[][] msg = new byte[4][];
            for (int i = 0; i < 4; i++) {
                msg[i] = pattern(10 + i, 3000 + i);
                src.put(i * 4096L, msg[i], 0, msg[i].length);
                p.client.ep.postSend(1, src.iov(i * 4096L, msg[i].length), i, CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < 4; i++) {
                Thread.sleep(i == 0 ? 200 : 50); // the receiver is late on purpose (not synchronisation)
                p.server.ep.postRecv(1, dst.iov(i * 4096L, 4096), 100 + i, CompletionFlags.DEFAULT);
                dtoOk(p.server.recvEvd, 100 + i, msg[i].length);
                TcpFixture.assertImageEquals(dst.seg.asSlice(i * 4096L, msg[i].length), msg[i], "message " + i);
            }
            for (int i = 0; i < 4; i++) {
                dtoOk(p.client.reqEvd, i, msg[i].length);
            }
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
            assertEquals(EpState.CONNECTED, p.server.ep.getStatus().epState());
            assertEmpty(p.client.connEvd, "client");
            assertEmpty(p.server.connEvd, "server");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {TcpTesting.LO, TcpTesting.LO_SMALL})
    @DisplayName("SND-09 SND-12 RCV-07: 3000 sends racing a receiver thread that waits for each message and"
            + " re-posts one buffer at a time all arrive in order, exact")
    void senderOutrunsReceiver(String ia) throws Exception {
        int n = 3000;
        try (Pair p = new Pair(ia, attr(), 256).connect()) {
            io.jdat.LmrTriplet[] recv = {p.server.lmr.triplet(0, 256)};
            p.server.ep.postRecv(1, recv, 0, 0);
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            Thread receiver = new Thread(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        dtoOk(p.server.recvEvd, i, 8 + i % 200);
                        byte[] exp = pattern(5000 + i % 50, 8 + i % 200);
                        java.nio.ByteBuffer.wrap(exp).putInt(0, i);
                        TcpFixture.assertImageEquals(p.server.buf.asSlice(0, exp.length), exp, "message " + i);
                        p.server.ep.postRecv(1, recv, i + 1, 0);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "tcp-test-receiver");
            receiver.start();
            // One message in flight at a time from a fresh slot: 50 slots of 256 bytes, reused in turn.
            Region src = region(p.client, 50 * 256);
            for (int i = 0; i < n; i++) {
                byte[] msg = pattern(5000 + i % 50, 8 + i % 200);
                java.nio.ByteBuffer.wrap(msg).putInt(0, i);
                src.put((i % 50) * 256L, msg, 0, msg.length);
                p.client.ep.postSend(1, src.iov((i % 50) * 256L, msg.length), i, 0);
                dtoOk(p.client.reqEvd, i, msg.length);
            }
            receiver.join(30_000);
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("SND-09: a send that finds no receive within jdat.tcp.rnrTimeoutMillis (2 s): the receiver"
            + " sends a Terminate (no buffer), both EPs BROKEN, a later request is flushed")
    void receiverNeverReady() {
        try (Pair p = new Pair(TcpTesting.LO, attr(), 64).connect()) {
            p.client.ep.postSend(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(0, 100)}, 1, 0);
            dtoAnyOf(p.client.reqEvd, 1, DtoCompletionStatus.SUCCESS, DtoCompletionStatus.ERR_REMOTE_RESPONDER);
            expectBroken(p);
            p.client.ep.postSend(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(0, 8)}, 2, 0);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            p.server.ep.postRecv(1, new io.jdat.LmrTriplet[] {p.server.lmr.triplet(0, 128)}, 3, 0);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
        }
    }
}
