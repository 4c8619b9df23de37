package io.jdat.conformance;

import static io.jdat.testing.DataPath.assertBytes;
import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.assertUntouchedExcept;
import static io.jdat.testing.DataPath.attr;
import static io.jdat.testing.DataPath.bytes;
import static io.jdat.testing.DataPath.concat;
import static io.jdat.testing.DataPath.disconnect;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectBroken;
import static io.jdat.testing.DataPath.expectDat;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.sentinel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.conformance.Transports.IaUnderTest;
import io.jdat.testing.Pair;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.DisplayName;

/**
 * {@code dat_ep_post_send} and {@code dat_ep_post_recv} on every transport ({@link EveryTransport};
 * CONFORMANCE.md §2.1 SND, §2.2 RCV): gather and scatter, zero-length messages, messages longer than the
 * buffer, posts in every EP state, completion flags, local iov errors in the order of the checks, one receive
 * per message, queue and size limits, and the posting order of two threads.
 */
class SendRecvTest {
    private static final DatReturnType PARAM = DatReturnType.INVALID_PARAMETER;

    /**
     * {@link io.jdat.testing.DataPath#attr()} with messages of at most 6 segments: a device bounds a Send's and a
     * receive's segments by its {@code max_sge} (siw: 6), and refuses an EP that asks for more.
     */
    private static EpAttr messageAttr() {
        return attr().maxRecvIov(6).maxRequestIov(6);
    }

    @EveryTransport
    @DisplayName("SND-01 SND-02 SND-05 SND-09 RCV-01 RCV-02 EPC-06 EPC-07: 3-segment gather into a 4-segment scatter"
            + " list fills leading segments, one partially, leaves the rest untouched")
    void gatherScatter(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64)) {
            sentinel(p.server.buf);
            sentinel(p.client.buf);
            fill(p.client.buf, 0, 100, 1);
            fill(p.client.buf, 1000, 37, 2);
            fill(p.client.buf, 5000, 200, 3);
            byte[] msg = concat(bytes(p.client.buf, 0, 100), bytes(p.client.buf, 1000, 37),
                    bytes(p.client.buf, 5000, 200));
            p.server.ep.postRecv(4, iov(p.server.lmr, 0, 128, 2048, 64, 4096, 300, 8192, 50), 77,
                    CompletionFlags.DEFAULT);
            p.connect();
            p.client.ep.postSend(3, iov(p.client.lmr, 0, 100, 1000, 37, 5000, 200), 0x5555_0000_0001L,
                    CompletionFlags.DEFAULT);

            assertEquals(p.client.ep, dtoOk(p.client.reqEvd, 0x5555_0000_0001L, 337).ep());
            assertEquals(p.server.ep, dtoOk(p.server.recvEvd, 77, 337).ep());
            assertBytes(p.server.buf, 0, msg, 0, 128, "segment 0 (full)");
            assertBytes(p.server.buf, 2048, msg, 128, 64, "segment 1 (full)");
            assertBytes(p.server.buf, 4096, msg, 192, 145, "segment 2 (partial)");
            assertUntouchedExcept(p.server.buf, 0, 128, 2048, 64, 4096, 145);
            // the source is unchanged
            assertPattern(p.client.buf, 0, 100, 1, 0, "source 0");
            assertPattern(p.client.buf, 1000, 37, 2, 0, "source 1");
            assertPattern(p.client.buf, 5000, 200, 3, 0, "source 2");
            assertUntouchedExcept(p.client.buf, 0, 100, 1000, 37, 5000, 200);
            // EPC-06/07: receive completions only on recv_evd, send completions only on request_evd
            assertEmpty(p.server.reqEvd, "server request EVD");
            assertEmpty(p.client.recvEvd, "client recv EVD");
            assertEmpty(p.client.reqEvd, "client request EVD");
            assertEmpty(p.server.recvEvd, "server recv EVD");
        }
    }

    @EveryTransport
    @DisplayName("SND-01 RCV-01 SND-09: zero-length sends (0 segments / NULL iov, and a 0-length triplet with a"
            + " garbage context) complete with length 0 into 0-segment and ordinary buffers, writing nothing")
    void zeroLength(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.server.buf);
            p.server.ep.postRecv(0, null, 1, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 2, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, new LmrTriplet[] {new LmrTriplet(0xDEAD_BEEF, 12345, 0)}, 3,
                    CompletionFlags.DEFAULT);
            p.client.ep.postSend(0, null, 10, CompletionFlags.DEFAULT);
            p.client.ep.postSend(0, null, 11, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, new LmrTriplet[] {new LmrTriplet(0, -1, 0)}, 12, CompletionFlags.DEFAULT);
            for (long c = 10; c <= 12; c++) {
                dtoOk(p.client.reqEvd, c, 0);
            }
            for (long c = 1; c <= 3; c++) {
                dtoOk(p.server.recvEvd, c, 0);
            }
            assertUntouched(p.server.buf, 0, p.server.buf.byteSize(), "server buffer");
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
        }
    }

    @EveryTransport
    @DisplayName("RCV-05 RCV-06 SND-09: a 16-byte message into a 0-segment buffer completes the receive with"
            + " DAT_DTO_ERR_LOCAL_LENGTH, the send with ERR_REMOTE_RESPONDER (or SUCCESS where a Send completes once sent), and"
            + " breaks the connection")
    void sendIntoZeroSegmentBuffer(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 16, 4);
            p.server.ep.postRecv(0, null, 5, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 16), 6, CompletionFlags.DEFAULT);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 5);
            sendOfRefusedMessage(ia, p, 6);
            expectBroken(p);
            assertUntouched(p.server.buf, 0, p.server.buf.byteSize(), "server buffer");
        }
    }

    @EveryTransport
    @DisplayName("RCV-05 RCV-06 SND-06 SND-09: a 33-byte message into a 2-segment 32-byte buffer → recv"
            + " ERR_LOCAL_LENGTH, send ERR_REMOTE_RESPONDER, BROKEN on both sides, nothing written outside the"
            + " buffer; a later send in D is flushed")
    void messageLongerThanBuffer(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 33, 5);
            p.server.ep.postRecv(2, iov(p.server.lmr, 100, 16, 200, 16), 7, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 1000, 64), 8, CompletionFlags.DEFAULT);
            p.client.ep.postSend(2, iov(p.client.lmr, 0, 20, 20, 13), 9, CompletionFlags.DEFAULT);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 7);
            sendOfRefusedMessage(ia, p, 9);
            expectBroken(p);
            // the second receive was never consumed: it is flushed by the break
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 8);
            assertUntouchedExcept(p.server.buf, 100, 16, 200, 16);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 10, CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 10);
            assertUntouched(p.server.buf, 1000, 64, "second receive buffer");
        }
    }

    @EveryTransport
    @DisplayName("SND-06 RCV-07 RCV-08 RCV-09: send is refused in UNCONNECTED and ACTIVE_CONNECTION_PENDING"
            + " (DAT_INVALID_STATE); receives post in every state and fill once CONNECTED; in DISCONNECTED both are"
            + " accepted and flushed at once, even with SUPPRESS")
    void postsByState(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64)) {
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 30, 6);
            fill(p.server.buf, 0, 40, 7);
            fill(p.server.buf, 100, 50, 8);
            LmrTriplet[] src = iov(p.client.lmr, 0, 30);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> p.client.ep.postSend(1, src, 1, CompletionFlags.DEFAULT));
            p.client.ep.postRecv(1, iov(p.client.lmr, 1024, 64), 101, CompletionFlags.DEFAULT);

            long qual = p.listen();
            p.client.ep.connect(p.serverAddress(), qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, p.client.ep.getStatus().epState());
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                    () -> p.client.ep.postSend(1, src, 2, CompletionFlags.DEFAULT));
            p.client.ep.postRecv(1, iov(p.client.lmr, 2048, 64), 102, CompletionFlags.DEFAULT);
            DatEvent cr = p.server.next(p.crEvd);
            p.server.ep.postRecv(1, iov(p.server.lmr, 4096, 64), 201, CompletionFlags.DEFAULT);
            cr.cr().accept(p.server.ep, 0, null);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEmpty(p.client.recvEvd, "client receives before any message");
            assertEmpty(p.client.reqEvd, "refused sends");

            p.server.ep.postSend(1, iov(p.server.lmr, 0, 40), 301, CompletionFlags.DEFAULT);
            p.server.ep.postSend(1, iov(p.server.lmr, 100, 50), 302, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, src, 3, CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 301, 40);
            dtoOk(p.server.reqEvd, 302, 50);
            dtoOk(p.client.reqEvd, 3, 30);
            dtoOk(p.client.recvEvd, 101, 40);
            dtoOk(p.client.recvEvd, 102, 50);
            dtoOk(p.server.recvEvd, 201, 30);
            assertPattern(p.client.buf, 1024, 40, 7, 0, "receive posted in UNCONNECTED");
            assertPattern(p.client.buf, 2048, 50, 8, 0, "receive posted in ACTIVE_CONNECTION_PENDING");
            assertPattern(p.server.buf, 4096, 30, 6, 0, "receive posted before accept");
            assertUntouchedExcept(p.client.buf, 0, 30, 1024, 40, 2048, 50);

            disconnect(p);
            byte[] before = io.jdat.testing.DataPath.snapshot(p.server.buf);
            p.client.ep.postSend(1, src, 4, CompletionFlags.SUPPRESS);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 4);
            p.client.ep.postRecv(1, iov(p.client.lmr, 8192, 64), 103, CompletionFlags.DEFAULT);
            dto(p.client.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 103);
            assertUntouched(p.client.buf, 8192, 64, "receive posted in DISCONNECTED");
            io.jdat.testing.DataPath.assertUnchanged(p.server.buf, before, "peer memory after a send in D");
            assertEmpty(p.client.reqEvd, "one flush per post");
            assertEmpty(p.client.recvEvd, "one flush per post");
        }
    }

    @EveryTransport
    @DisplayName("SND-03 SND-04 SND-05 RCV-03: send accepts SUPPRESS, SOLICITED_WAIT, BARRIER_FENCE and their"
            + " combination (SUPPRESS hides the success event); UNSIGNALLED without UNSIGNALLED EP flags and"
            + " undefined bits → DAT_INVALID_PARAMETER; recv accepts DEFAULT only here")
    void sendAndRecvFlags(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.server.buf);
            for (int i = 0; i < 5; i++) {
                fill(p.client.buf, 100 * i, 10 + i, 20 + i);
                p.server.ep.postRecv(1, iov(p.server.lmr, 100 * i, 100), 50 + i, CompletionFlags.DEFAULT);
            }
            for (int bad : new int[] {CompletionFlags.UNSIGNALLED, CompletionFlags.EVD_THRESHOLD, 0x20, 0x100,
                    CompletionFlags.UNSIGNALLED | CompletionFlags.SUPPRESS}) {
                expectDat(PARAM, DatReturnSubtype.INVALID_ARG5,
                        () -> p.client.ep.postSend(1, iov(p.client.lmr, 0, 10), 99, bad));
            }
            int[] flags = {CompletionFlags.SUPPRESS, CompletionFlags.SOLICITED_WAIT, CompletionFlags.BARRIER_FENCE,
                CompletionFlags.SUPPRESS | CompletionFlags.SOLICITED_WAIT | CompletionFlags.BARRIER_FENCE,
                CompletionFlags.DEFAULT};
            for (int i = 0; i < 5; i++) {
                p.client.ep.postSend(1, iov(p.client.lmr, 100 * i, 10 + i), i, flags[i]);
            }
            dtoOk(p.client.reqEvd, 1, 11);
            dtoOk(p.client.reqEvd, 2, 12);
            dtoOk(p.client.reqEvd, 4, 14);
            for (int i = 0; i < 5; i++) {
                dtoOk(p.server.recvEvd, 50 + i, 10 + i);
                assertPattern(p.server.buf, 100 * i, 10 + i, 20 + i, 0, "message " + i);
                assertUntouched(p.server.buf, 100 * i + 10 + i, 90 - i, "rest of buffer " + i);
            }
            assertEmpty(p.client.reqEvd, "suppressed successes");

            for (int bad : new int[] {CompletionFlags.SUPPRESS, CompletionFlags.SOLICITED_WAIT,
                    CompletionFlags.BARRIER_FENCE, CompletionFlags.UNSIGNALLED, CompletionFlags.EVD_THRESHOLD}) {
                expectDat(PARAM, DatReturnSubtype.INVALID_ARG5,
                        () -> p.server.ep.postRecv(1, iov(p.server.lmr, 0, 8), 98, bad));
            }
            assertTrue(p.server.ep.getStatus().recvIdle(), "no refused receive was posted");
        }
    }

    @EveryTransport
    @DisplayName("SND-07 SND-08 SND-11 RCV-09 EPC-04 AMB-11: local iov errors in the order of the checks — invalid"
            + " LMR → PRIVILEGES_VIOLATION, LMR in another PZ → PROTECTION_VIOLATION, missing local read (send) /"
            + " local write (recv) → PRIVILEGES_VIOLATION, segment outside its LMR → INVALID_PARAMETER; nothing is"
            + " posted")
    void localIovErrors(IaUnderTest under) {
        try (Pair p = new Pair(under.ia(), null, 64).connect()) {
            InterfaceAdapter ia = p.client.ia;
            MemorySegment extra = p.client.arena.allocate(4096, 256);
            sentinel(p.server.buf);
            ProtectionZone pz2 = ProtectionZone.create(ia);
            Lmr otherPz = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(extra.asSlice(0, 1024)), 1024, pz2,
                    MemPriv.ALL);
            Lmr otherPzWriteOnly = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(extra.asSlice(1024, 1024)),
                    1024, pz2, MemPriv.LOCAL_WRITE);
            Lmr writeOnly = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(extra.asSlice(2048, 1024)), 1024,
                    p.client.pz, MemPriv.LOCAL_WRITE);
            Lmr readOnly = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(extra.asSlice(3072, 1024)), 1024,
                    p.client.pz, MemPriv.LOCAL_READ);
            Lmr good = p.client.lmr;
            LmrTriplet stale = new LmrTriplet(good.lmrContext() ^ 0x01, good.registeredAddress(), 8);
            LmrTriplet zero = new LmrTriplet(0, good.registeredAddress(), 8);
            LmrTriplet past = good.triplet(good.registeredSize() - 4, 8);
            LmrTriplet below = new LmrTriplet(good.lmrContext(), good.registeredAddress() - 1, 8);

            // send: sources need LOCAL_READ
            sendFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, stale);
            sendFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, zero);
            sendFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ, otherPz.triplet(0, 8));
            sendFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, writeOnly.triplet(0, 8));
            sendFails(p, PARAM, DatReturnSubtype.INVALID_ARG3, past);
            sendFails(p, PARAM, DatReturnSubtype.INVALID_ARG3, below);
            // precedence when a segment has several faults
            sendFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ,
                    new LmrTriplet(stale.lmrContext(), good.registeredAddress() - 100, 1 << 20));
            sendFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ,
                    otherPzWriteOnly.triplet(0, 8));
            sendFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ,
                    otherPz.triplet(1000, 100));
            sendFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ,
                    writeOnly.triplet(1000, 100));
            // a later faulty segment fails the whole post
            sendFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ, good.triplet(0, 8),
                    otherPz.triplet(0, 8));

            // recv: targets need LOCAL_WRITE (AMB-11)
            recvFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE, stale);
            recvFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE, otherPz.triplet(0, 8));
            recvFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE, readOnly.triplet(0, 8));
            recvFails(p, PARAM, DatReturnSubtype.INVALID_ARG3, past);
            recvFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    otherPzWriteOnly.triplet(2000, 8));
            recvFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    readOnly.triplet(1020, 8));
            assertTrue(p.client.ep.getStatus().recvIdle(), "no refused receive was posted");
            assertTrue(p.client.ep.getStatus().requestIdle(), "no refused send was posted");
            assertEmpty(p.client.reqEvd, "refused sends");

            // nothing reached the peer: the first good send lands in the first receive; the right-privileged
            // one-privilege LMRs work
            fill(extra, 2048, 24, 9);
            fill(extra, 3072, 24, 10);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            p.client.ep.postRecv(1, new LmrTriplet[] {writeOnly.triplet(512, 64)}, 2, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, new LmrTriplet[] {readOnly.triplet(0, 24)}, 3, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 3, 24);
            dtoOk(p.server.recvEvd, 1, 24);
            assertPattern(p.server.buf, 0, 24, 10, 0, "first message");
            assertUntouched(p.server.buf, 24, p.server.buf.byteSize() - 24, "rest of the server buffer");
            fill(p.server.buf, 100, 16, 11);
            p.server.ep.postSend(1, iov(p.server.lmr, 100, 16), 4, CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 4, 16);
            dtoOk(p.client.recvEvd, 2, 16);
            assertPattern(extra, 2048 + 512, 16, 11, 0, "receive into a LOCAL_WRITE-only LMR");
        }
    }

    /** Where a Send is outstanding until placed, a third request finds the 2-deep request queue full. */
    private static void fullRequestQueue(IaUnderTest ia, Pair p) {
        if (ia.requestCompletesWhenSent()) {
            return;
        }
        expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                () -> p.client.ep.postSend(1, iov(p.client.lmr, 0, 7), 14, CompletionFlags.DEFAULT));
        expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                () -> p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 15,
                        p.server.lmr.remoteTriplet(8192, 8), CompletionFlags.DEFAULT));
        expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                () -> p.client.ep.postRdmaRead(1, iov(p.client.lmr, 4096, 8), 16,
                        p.server.lmr.remoteTriplet(0, 8), CompletionFlags.DEFAULT));
    }

    /**
     * The completion of the client's Send {@code cookie} that the server could not place: ERR_REMOTE_RESPONDER,
     * or on a transport whose Send completes once sent (tcp) also SUCCESS, when it completed before the error
     * came back.
     */
    private static void sendOfRefusedMessage(IaUnderTest ia, Pair p, long cookie) {
        DatEvent e = io.jdat.testing.DataPath.next(p.client.reqEvd);
        assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber(), "event number of " + e);
        assertEquals(cookie, e.userCookie(), "cookie of " + e);
        if (!(ia.requestCompletesWhenSent() && e.status() == DtoCompletionStatus.SUCCESS)) {
            assertEquals(DtoCompletionStatus.ERR_REMOTE_RESPONDER, e.status(), "status of " + e);
        }
    }

    private static void sendFails(Pair p, DatReturnType type, DatReturnSubtype subtype, LmrTriplet... iov) {
        expectDat(type, subtype, () -> p.client.ep.postSend(iov.length, iov, 666, CompletionFlags.DEFAULT));
    }

    private static void recvFails(Pair p, DatReturnType type, DatReturnSubtype subtype, LmrTriplet... iov) {
        expectDat(type, subtype, () -> p.client.ep.postRecv(iov.length, iov, 666, CompletionFlags.DEFAULT));
    }

    @EveryTransport
    @DisplayName("SND-09: three messages (10, 0, 100 bytes) consume exactly three receives in order, each"
            + " transfered_length the message length")
    void oneReceivePerMessage(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 10, 12);
            fill(p.client.buf, 1000, 100, 13);
            for (int i = 0; i < 3; i++) {
                p.server.ep.postRecv(1, iov(p.server.lmr, 100 * i, 100), i + 1, CompletionFlags.DEFAULT);
            }
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 10), 11, CompletionFlags.DEFAULT);
            p.client.ep.postSend(0, null, 12, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 1000, 100), 13, CompletionFlags.DEFAULT);
            dtoOk(p.server.recvEvd, 1, 10);
            dtoOk(p.server.recvEvd, 2, 0);
            dtoOk(p.server.recvEvd, 3, 100);
            dtoOk(p.client.reqEvd, 11, 10);
            dtoOk(p.client.reqEvd, 12, 0);
            dtoOk(p.client.reqEvd, 13, 100);
            assertPattern(p.server.buf, 0, 10, 12, 0, "message 1");
            assertPattern(p.server.buf, 200, 100, 13, 0, "message 3");
            assertUntouchedExcept(p.server.buf, 0, 10, 200, 100);
            assertTrue(p.server.ep.getStatus().recvIdle(), "all three receives consumed");
        }
    }

    @EveryTransport
    @DisplayName("RCV-10 SND-11 RDR-15 RCV-09: max_recv_dtos and max_request_dtos exceeded →"
            + " DAT_INSUFFICIENT_RESOURCES; max_message_size and max_request_iov exceeded, short or null iov →"
            + " DAT_INVALID_PARAMETER; a freed EP → DAT_INVALID_HANDLE")
    void limits(IaUnderTest ia) {
        EpAttr a = messageAttr().maxRecvDtos(2).maxRequestDtos(2).maxMessageSize(64);
        try (Pair p = new Pair(ia.ia(), a, 64)) {
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 128, 14);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 64, 64), 2, CompletionFlags.DEFAULT);
            expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                    () -> p.server.ep.postRecv(1, iov(p.server.lmr, 128, 64), 3, CompletionFlags.DEFAULT));
            assertEquals(2, p.server.ep.recvQuery().nbufsAllocated());
            p.connect();

            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> p.client.ep.postSend(2, iov(p.client.lmr, 0, 32, 32, 33), 9, CompletionFlags.DEFAULT));
            LmrTriplet[] nine = iov(p.client.lmr, 0, 1, 1, 1, 2, 1, 3, 1, 4, 1, 5, 1, 6, 1, 7, 1, 8, 1);
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2,
                    () -> p.client.ep.postSend(9, nine, 9, CompletionFlags.DEFAULT));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2,
                    () -> p.client.ep.postSend(-1, nine, 9, CompletionFlags.DEFAULT));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> p.client.ep.postSend(3, iov(p.client.lmr, 0, 1, 1, 1), 9, CompletionFlags.DEFAULT));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> p.client.ep.postSend(1, null, 9, CompletionFlags.DEFAULT));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> p.client.ep.postSend(1, new LmrTriplet[1], 9, CompletionFlags.DEFAULT));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2,
                    () -> p.client.ep.postRecv(9, nine, 9, CompletionFlags.DEFAULT));

            p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), 10, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 64, 10), 11, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 10, 64);
            dtoOk(p.client.reqEvd, 11, 10);
            dtoOk(p.server.recvEvd, 1, 64);
            dtoOk(p.server.recvEvd, 2, 10);

            // No receive is posted now: two sends wait (receiver not ready) and, where a Send is outstanding until
            // it is placed, fill the request queue (on tcp they complete once in the socket: the queue is free).
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 5), 12, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 5, 6), 13, CompletionFlags.DEFAULT);
            fullRequestQueue(ia, p);
            p.server.ep.postRecv(1, iov(p.server.lmr, 200, 64), 3, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 300, 64), 4, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 12, 5);
            dtoOk(p.client.reqEvd, 13, 6);
            dtoOk(p.server.recvEvd, 3, 5);
            dtoOk(p.server.recvEvd, 4, 6);
            assertPattern(p.server.buf, 200, 5, 14, 0, "first waiting send");
            assertPattern(p.server.buf, 300, 6, 14, 5, "second waiting send");
            assertUntouchedExcept(p.server.buf, 0, 64, 64, 10, 200, 5, 300, 6);

            // in CONNECTED too, the third outstanding receive is refused
            p.server.ep.postRecv(1, iov(p.server.lmr, 400, 8), 5, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 408, 8), 6, CompletionFlags.DEFAULT);
            expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                    () -> p.server.ep.postRecv(1, iov(p.server.lmr, 416, 8), 7, CompletionFlags.DEFAULT));

            p.client.ep.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 17, CompletionFlags.DEFAULT));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> p.client.ep.postRecv(1, iov(p.client.lmr, 0, 8), 18, CompletionFlags.DEFAULT));
        }
    }

    @EveryTransport
    @DisplayName("SND-12 SND-09: 10 000 messages posted by 2 threads on one EP arrive in each thread's posting"
            + " order, none lost, each in its own receive")
    void orderingTwoThreads(IaUnderTest ia) throws Exception {
        final int perThread = 5_000;
        final int total = 2 * perThread;
        EpAttr a = messageAttr().maxRecvDtos(total).maxRequestDtos(total);
        try (Pair p = new Pair(ia.ia(), a, 16_384).connect()) {
            MemorySegment src = p.client.arena.allocate(8L * total, 256);
            MemorySegment dst = p.server.arena.allocate(8L * total, 256);
            dst.fill((byte) 0xEE);
            Lmr srcLmr = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), src.byteSize(),
                    p.client.pz, MemPriv.LOCAL_READ);
            Lmr dstLmr = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(dst), dst.byteSize(),
                    p.server.pz, MemPriv.LOCAL_WRITE);
            for (int i = 0; i < total; i++) {
                p.server.ep.postRecv(1, new LmrTriplet[] {dstLmr.triplet(8L * i, 8)}, i, CompletionFlags.DEFAULT);
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Throwable> failures = new ArrayList<>();
            Thread[] posters = new Thread[2];
            for (int t = 0; t < 2; t++) {
                final int id = t;
                posters[t] = new Thread(() -> {
                    try {
                        start.await();
                        LmrTriplet[] one = new LmrTriplet[1];
                        for (int s = 0; s < perThread; s++) {
                            long slot = 8L * (id * perThread + s);
                            src.set(ValueLayout.JAVA_LONG, slot, ((long) id << 32) | s);
                            one[0] = srcLmr.triplet(slot, 8);
                            p.client.ep.postSend(1, one, ((long) id << 32) | s, CompletionFlags.DEFAULT);
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }, "poster-" + t);
                posters[t].start();
            }
            start.countDown();
            for (Thread t : posters) {
                t.join(30_000);
                assertTrue(!t.isAlive(), "poster finished");
            }
            assertTrue(failures.isEmpty(), () -> "poster failed: " + failures);

            int[] nextSend = new int[2];
            int[] nextSeq = new int[2];
            DatEvent e = new DatEvent();
            for (int i = 0; i < total; i++) {
                assertTrue(p.client.reqEvd.waitFor(5_000_000, 1, e), "send completion " + i);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                int id = (int) (e.userCookie() >>> 32);
                assertEquals(nextSend[id]++, (int) e.userCookie(), "send completions of thread " + id + " in order");
                assertEquals(8, e.transferredLength());
            }
            for (int i = 0; i < total; i++) {
                assertTrue(p.server.recvEvd.waitFor(5_000_000, 1, e), "receive completion " + i);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                assertEquals(i, e.userCookie(), "receives complete in posting order");
                assertEquals(8, e.transferredLength());
                long v = dst.get(ValueLayout.JAVA_LONG, 8L * i);
                int id = (int) (v >>> 32);
                assertTrue(id == 0 || id == 1, "message " + i + " carries a thread id: " + Long.toHexString(v));
                assertEquals(nextSeq[id]++, (int) v, "thread " + id + "'s messages arrive in its posting order");
            }
            assertEquals(perThread, nextSeq[0]);
            assertEquals(perThread, nextSeq[1]);
            assertEmpty(p.server.recvEvd, "no extra receive completion");
            assertEmpty(p.client.reqEvd, "no extra send completion");
        }
    }
}
