package io.jdat.verbs;

import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.expectDat;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.sentinel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.AsyncReason;
import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The SRQ checks of {@link VerbsVmCheck} on a device: a DAT SRQ is an {@code ibv_srq} that the queue pairs of its
 * EPs share. A server IA with one SRQ and a client IA; {@link #connect} adds one connection whose server EP is
 * created with the SRQ.
 */
final class VerbsSrqCheck implements AutoCloseable {
    final InterfaceAdapter serverIa;
    final InterfaceAdapter clientIa;
    final ProtectionZone serverPz;
    final ProtectionZone clientPz;
    final SharedReceiveQueue srq;
    final EventDispatcher crEvd;
    final PublicServicePoint psp;
    final Arena arena = Arena.ofShared();
    final MemorySegment serverBuf;
    final MemorySegment clientBuf;
    final Lmr serverLmr;
    final Lmr clientLmr;

    /** One connection: a client EP and the server's SRQ EP. */
    record Conn(Endpoint client, EventDispatcher clientReq, EventDispatcher clientConn, Endpoint server,
            EventDispatcher serverRecv, EventDispatcher serverConn) {
    }

    VerbsSrqCheck(String ia, SrqAttr attr) {
        serverIa = InterfaceAdapter.open(ia, 64, null);
        clientIa = InterfaceAdapter.open(ia, 64, null);
        serverPz = ProtectionZone.create(serverIa);
        clientPz = ProtectionZone.create(clientIa);
        srq = SharedReceiveQueue.create(serverIa, serverPz, attr);
        crEvd = EventDispatcher.create(serverIa, 16, null, EvdFlags.CR);
        psp = PublicServicePoint.createAny(serverIa, crEvd, PspFlags.CONSUMER);
        serverBuf = arena.allocate(64 * 1024, 4096);
        clientBuf = arena.allocate(64 * 1024, 4096);
        serverLmr = Lmr.create(serverIa, MemType.VIRTUAL, RegionDescription.forVa(serverBuf), serverBuf.byteSize(),
                serverPz, MemPriv.ALL);
        clientLmr = Lmr.create(clientIa, MemType.VIRTUAL, RegionDescription.forVa(clientBuf), clientBuf.byteSize(),
                clientPz, MemPriv.ALL);
    }

    Conn connect() {
        EventDispatcher sRecv = EventDispatcher.create(serverIa, 64, null, EvdFlags.DTO);
        EventDispatcher sConn = EventDispatcher.create(serverIa, 16, null, EvdFlags.CONNECTION);
        Endpoint server = Endpoint.createWithSrq(serverIa, serverPz, sRecv,
                EventDispatcher.create(serverIa, 64, null, EvdFlags.DTO), sConn, srq, VerbsVmCheck.attr());
        EventDispatcher cReq = EventDispatcher.create(clientIa, 64, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
        EventDispatcher cConn = EventDispatcher.create(clientIa, 16, null, EvdFlags.CONNECTION);
        Endpoint client = Endpoint.create(clientIa, clientPz, EventDispatcher.create(clientIa, 64, null, EvdFlags.DTO),
                cReq, cConn, VerbsVmCheck.attr());
        java.net.SocketAddress to = serverIa.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        client.connect(to, psp.connQual(), VerbsVmCheck.WAIT_US, 0, new byte[0], Qos.BEST_EFFORT, 0);
        DatEvent cr = VerbsVmCheck.next(crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        cr.cr().accept(server, 0, new byte[0]);
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, VerbsVmCheck.next(sConn).eventNumber());
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, VerbsVmCheck.next(cConn).eventNumber());
        return new Conn(client, cReq, cConn, server, sRecv, sConn);
    }

    /** Sends {@code length} bytes of pattern {@code seed} on {@code c}; its SRQ buffer {@code cookie} receives them. */
    void sendInto(Conn c, int seed, int length, long cookie, long at) {
        fill(clientBuf, 0, length, seed);
        c.client().postSend(1, iov(clientLmr, 0, length), seed, CompletionFlags.DEFAULT);
        VerbsVmCheck.dtoOk(c.clientReq(), seed, length);
        VerbsVmCheck.dtoOk(c.serverRecv(), cookie, length);
        assertPattern(serverBuf, at, length, seed, 0, "message " + seed + " in SRQ buffer " + cookie);
    }

    void assertCounts(int available, int outstanding, String when) {
        SrqParam p = srq.query(SrqParam.FIELD_ALL);
        assertEquals(available, p.availableDtoCount(), "available_dto_count " + when);
        assertEquals(outstanding, p.outstandingDtoCount(), "outstanding_dto_count " + when);
    }

    @Override
    public void close() {
        clientIa.close(CloseFlags.ABRUPT);
        serverIa.close(CloseFlags.ABRUPT);
        arena.close();
    }

    // ------------------------------------------------------------------ checks

    /**
     * Two EPs share one SRQ: its buffers fill in posting order whichever connection a message arrives on, each
     * completes on the EP that received it (SPR-02, SPR-04), a 2-segment buffer scatters, the counts follow
     * (available = posted and not yet filled, outstanding until dequeued), and a disconnect leaves the SRQ's
     * buffers posted for the other EP (SPR-10).
     */
    static void shared(String ia) {
        try (VerbsSrqCheck f = new VerbsSrqCheck(ia, new SrqAttr(8, 2, Dat.SRQ_LW_DEFAULT))) {
            Conn a = f.connect();
            Conn b = f.connect();
            sentinel(f.serverBuf);
            for (int i = 0; i < 5; i++) {
                f.srq.postRecv(1, iov(f.serverLmr, 4096L * i, 2048), 100 + i);
            }
            f.srq.postRecv(2, iov(f.serverLmr, 20480, 100, 24576, 1000), 105);
            f.assertCounts(6, 6, "after 6 posts");
            f.sendInto(a, 1, 64, 100, 0);
            f.sendInto(b, 2, 2048, 101, 4096);
            f.sendInto(a, 3, 1000, 102, 8192);
            f.sendInto(b, 4, 1, 103, 12288);
            f.assertCounts(2, 2, "4 filled and dequeued");
            assertUntouched(f.serverBuf, 64, 4096 - 64, "after message 1");
            // a disconnect flushes nothing of the SRQ: b gets the next buffers
            a.client().disconnect(CloseFlags.ABRUPT);
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, VerbsVmCheck.next(a.serverConn()).eventNumber());
            f.assertCounts(2, 2, "after a's disconnect");
            f.sendInto(b, 5, 500, 104, 16384);
            // 2 segments: 100 bytes, then 1000
            fill(f.clientBuf, 0, 600, 6);
            b.client().postSend(1, iov(f.clientLmr, 0, 600), 6, CompletionFlags.DEFAULT);
            VerbsVmCheck.dtoOk(b.clientReq(), 6, 600);
            VerbsVmCheck.dtoOk(b.serverRecv(), 105, 600);
            assertPattern(f.serverBuf, 20480, 100, 6, 0, "segment 1");
            assertPattern(f.serverBuf, 24576, 500, 6, 100, "segment 2");
            assertUntouched(f.serverBuf, 24576 + 500, 500, "the rest of segment 2");
            f.assertCounts(0, 0, "all dequeued");
            assertFalse(a.serverRecv().dequeue(new DatEvent()), "a's receive EVD: nothing flushed from the SRQ");
        }
    }

    /**
     * DAT's low watermark is the device's SRQ limit: armed with {@code dat_srq_set_lw} (ibv_modify_srq
     * IBV_SRQ_LIMIT), it fires once when fewer buffers than the mark remain (IBV_EVENT_SRQ_LIMIT_REACHED):
     * ASYNC_WATERMARK_EVENT on the IA's async EVD, handle = the SRQ (SLW-01, SLW-05).
     */
    static void lowWatermark(String ia) {
        try (VerbsSrqCheck f = new VerbsSrqCheck(ia, new SrqAttr(8, 1, Dat.SRQ_LW_DEFAULT))) {
            Conn a = f.connect();
            EventDispatcher async = f.serverIa.asyncEvd();
            for (int i = 0; i < 4; i++) {
                f.srq.postRecv(1, iov(f.serverLmr, 4096L * i, 4096), 200 + i);
            }
            f.srq.setLw(3);
            f.sendInto(a, 1, 64, 200, 0);
            DatEvent e = new DatEvent();
            assertFalse(async.waitFor(2_000_000, 1, e), "3 available: not below 3, no event: " + e);
            f.sendInto(a, 2, 64, 201, 4096);
            e = VerbsVmCheck.next(async);
            assertEquals(EventNumber.ASYNC_WATERMARK_EVENT, e.eventNumber());
            assertSame(f.srq, e.asyncHandle());
            assertEquals(AsyncReason.SRQ_LOW_WATERMARK_EVENT, e.reason());
            f.sendInto(a, 3, 64, 202, 8192);
            assertFalse(async.waitFor(2_000_000, 1, new DatEvent()), "one shot: no second event");
        }
    }

    /**
     * {@code dat_srq_resize}: a larger queue is {@code ibv_modify_srq(IBV_SRQ_MAX_WR)} where the device can (rxe),
     * and DAT_INSUFFICIENT_RESOURCES / DAT_RESOURCE_SRQ where it cannot (siw); a smaller one is the core's.
     */
    static void resize(String ia, boolean deviceResizes) {
        try (VerbsSrqCheck f = new VerbsSrqCheck(ia, new SrqAttr(8, 1, Dat.SRQ_LW_DEFAULT))) {
            Conn a = f.connect();
            f.srq.resize(4);
            assertEquals(4, f.srq.query(SrqParam.FIELD_ALL).maxRecvDtos());
            f.srq.resize(8);
            if (deviceResizes) {
                f.srq.resize(32);
                assertEquals(32, f.srq.query(SrqParam.FIELD_ALL).maxRecvDtos());
                for (int i = 0; i < 12; i++) {
                    f.srq.postRecv(1, iov(f.serverLmr, 1024L * i, 1024), 300 + i);
                }
                for (int i = 0; i < 12; i++) {
                    f.sendInto(a, 10 + i, 1024, 300 + i, 1024L * i);
                }
            } else {
                DatException e = expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                        () -> f.srq.resize(32));
                System.out.println("  " + e.getMessage());
                assertEquals(8, f.srq.query(SrqParam.FIELD_ALL).maxRecvDtos());
                f.srq.postRecv(1, iov(f.serverLmr, 0, 1024), 300);
                f.sendInto(a, 10, 1024, 300, 0);
            }
        }
    }

    /** A message longer than the SRQ buffer: DAT_DTO_ERR_LOCAL_LENGTH on the receiving EP, which breaks. */
    static void tooLong(String ia) {
        try (VerbsSrqCheck f = new VerbsSrqCheck(ia, new SrqAttr(8, 1, Dat.SRQ_LW_DEFAULT))) {
            Conn a = f.connect();
            sentinel(f.serverBuf);
            f.srq.postRecv(1, iov(f.serverLmr, 0, 64), 400);
            a.client().postSend(1, iov(f.clientLmr, 0, 128), 401, CompletionFlags.DEFAULT);
            DatEvent r = VerbsVmCheck.next(a.serverRecv());
            assertEquals(400, r.userCookie());
            System.out.println("  receiver: " + r.status());
            if (r.status() != DtoCompletionStatus.ERR_FLUSHED) {
                assertEquals(DtoCompletionStatus.ERR_LOCAL_LENGTH, r.status(), "the receiver's status");
            }
            EventNumber n = VerbsVmCheck.next(a.serverConn()).eventNumber();
            System.out.println("  receiver's connection: " + n);
            assertUntouched(f.serverBuf, 64, f.serverBuf.byteSize() - 64, "beyond the SRQ buffer");
        }
    }

    /** No EP made with the SRQ yet: it is freed, its device queue destroyed; an EP's SRQ can be freed after the EP. */
    static void free(String ia) {
        try (VerbsSrqCheck f = new VerbsSrqCheck(ia, new SrqAttr(8, 1, Dat.SRQ_LW_DEFAULT))) {
            Conn a = f.connect();
            f.srq.postRecv(1, iov(f.serverLmr, 0, 64), 500);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, f.srq::free);
            a.server().disconnect(CloseFlags.ABRUPT);
            VerbsVmCheck.next(a.serverConn());
            a.server().free();
            f.srq.free();
            SharedReceiveQueue again = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(4, 1, 0));
            again.free();
        }
    }
}
