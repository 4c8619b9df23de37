package io.jdat;

import static io.jdat.testing.ConnFixture.assertDat;
import static io.jdat.testing.ConnFixture.assertNoEvent;
import static io.jdat.testing.ConnFixture.assertSeq;
import static io.jdat.testing.ConnFixture.cmBarrier;
import static io.jdat.testing.ConnFixture.expect;
import static io.jdat.testing.ConnFixture.mem;
import static io.jdat.testing.ConnFixture.seq;
import static io.jdat.testing.ConnFixture.timedOutRequest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.testing.ConnFixture.CmGate;
import io.jdat.testing.ConnFixture.Ep;
import io.jdat.testing.ConnFixture.Node;
import io.jdat.testing.Pair;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_cr_query}, {@code dat_cr_accept}, {@code dat_cr_reject}, {@code dat_cr_handoff}. */
class ConnectionRequestTest {
    private static final DatReturnType HANDLE = DatReturnType.INVALID_HANDLE;
    private static final DatReturnType PARAM = DatReturnType.INVALID_PARAMETER;
    private static final DatReturnType STATE = DatReturnType.INVALID_STATE;



    /** Every use of a destroyed CR fails with INVALID_HANDLE / INVALID_HANDLE_CR. */
    private static void assertCrGone(ConnectionRequest cr, Endpoint someEp) {
        DatReturnSubtype st = DatReturnSubtype.INVALID_HANDLE_CR;
        assertDat(HANDLE, st, () -> cr.query(CrParam.FIELD_ALL));
        assertDat(HANDLE, st, () -> cr.accept(someEp, 0, null));
        assertDat(HANDLE, st, () -> cr.reject());
        assertDat(HANDLE, st, () -> cr.handoff(1));
    }

    @Test
    @DisplayName("CRQ-01 EVW-19: the request event and dat_cr_query report address, port, private data, local EP")
    void queryAndEvent() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, seq(10, 20));
            DatEvent e = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(server.crEvd, e.evd());
            assertSame(psp, e.spHandle());
            assertEquals(qual, e.connQual());
            assertEquals(mem(), e.localIaAddress());
            ConnectionRequest cr = e.cr();
            assertEquals(HandleType.CR, cr.getHandleType());
            CrParam p = cr.query(CrParam.FIELD_ALL);
            assertEquals(mem(), p.remoteIaAddress());
            assertEquals(c.ep.query(EpParam.FIELD_LOCAL_PORT_QUAL).localPortQual(), p.remotePortQual());
            assertEquals(20, p.privateDataSize());
            assertSeq(10, 20, p.privateData());
            assertNull(p.localEpHandle(), "a consumer-model PSP request carries no EP");
            // The CR stays valid until it is answered; a query returns a copy each time.
            p.privateData()[0] = 0;
            assertSeq(10, 20, cr.query(CrParam.FIELD_PRIVATE_DATA).privateData());
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> cr.query(0x20));
            cr.accept(s.ep, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertCrGone(cr, s.ep);
        }
    }

    @Test
    @DisplayName("CRA-01 CRA-03 CRA-09: accept's private data arguments checked by position; size 0 may have NULL data")
    void acceptArguments() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            int max = server.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr().maxPrivateDataSize();
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, null);
            ConnectionRequest cr = server.request();
            // dat_cr_accept(cr_handle, ep_handle, private_data_size, private_data)
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> cr.accept(s.ep, -1, null));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> cr.accept(s.ep, max + 1, new byte[max + 1]));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4, () -> cr.accept(s.ep, 1, null));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4, () -> cr.accept(s.ep, 3, new byte[2]));
            assertEquals(EpState.UNCONNECTED, s.state());
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
            cr.accept(s.ep, 0, null);
            assertEquals(0, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateDataSize());
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CRA-02 CRA-05: EP argument rules (none for a consumer PSP, none but its own for a carried EP)")
    void acceptEpRules() {
        try (Node client = new Node(); Node server = new Node(); Node elsewhere = new Node()) {
            long qual = Pair.freshQual();
            long rspQual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep c2 = client.ep();
            Ep s = server.ep();
            Ep reserved = server.ep();
            Ep foreign = elsewhere.ep();
            Ep freed = server.ep();
            freed.ep.free();
            EventDispatcher rspEvd = EventDispatcher.create(server.ia, 4, null, EvdFlags.CR);
            ReservedServicePoint.create(server.ia, rspQual, reserved.ep, rspEvd);
            c.connect(qual, seq(1, 3));
            c2.connect(rspQual, null);
            ConnectionRequest cr = server.request();
            ConnectionRequest rcr = expect(rspEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
            DatReturnSubtype ep = DatReturnSubtype.INVALID_HANDLE_EP;
            assertDat(HANDLE, ep, () -> cr.accept(null, 0, null));
            assertDat(HANDLE, ep, () -> cr.accept(foreign.ep, 0, null));
            assertDat(HANDLE, ep, () -> cr.accept(freed.ep, 0, null));
            assertDat(HANDLE, ep, () -> rcr.accept(s.ep, 0, null));
            // Nothing changed: both requests, their data and the requesters are as before.
            assertSeq(1, 3, cr.query(CrParam.FIELD_ALL).privateData());
            assertSame(reserved.ep, rcr.query(CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle());
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, reserved.state());
            assertEquals(EpState.UNCONNECTED, s.state());
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c2.state());
            assertNoEvent(c.connEvd);
            cr.accept(s.ep, 0, null);
            rcr.accept(null, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c2.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            reserved.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CRA-05 CRA-09 AMB-16: accept with an EP in the wrong state -> INVALID_STATE, CR and requester untouched")
    void acceptWithEpInWrongState() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            long silentQual = Pair.freshQual();
            server.listen(qual);
            EventDispatcher silentEvd = EventDispatcher.create(server.ia, 4, null, EvdFlags.CR);
            PublicServicePoint.create(server.ia, silentQual, silentEvd, PspFlags.CONSUMER);
            Ep c = client.ep();
            Ep first = client.ep();
            Ep s = server.ep();
            Ep connected = server.ep();
            Ep pending = server.ep();
            Endpoint notReady = Endpoint.create(server.ia, server.pz, null, null, null, null);
            pending.connect(silentQual, null); // never answered: stays ACTIVE_CONNECTION_PENDING
            first.connect(qual, null);
            server.request().accept(connected.ep, 0, null);
            connected.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.connect(qual, seq(5, 6));
            ConnectionRequest cr = server.request();

            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING, () -> cr.accept(pending.ep, 0, null));
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_CONNECTED, () -> cr.accept(connected.ep, 2, seq(1, 2)));
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY, () -> cr.accept(notReady, 0, null));
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, pending.state());
            assertEquals(EpState.CONNECTED, connected.state());
            assertSeq(5, 6, cr.query(CrParam.FIELD_ALL).privateData());
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
            assertNoEvent(c.connEvd);
            assertNoEvent(connected.connEvd);
            cr.accept(s.ep, 1, new byte[] {7});
            assertSeq(7, 1, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CRA-06: the accepting EP passes through COMPLETION_PENDING to CONNECTED; ESTABLISHED on its connect EVD")
    void acceptThroughCompletionPending() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, null);
            ConnectionRequest cr = server.request();
            try (CmGate gate = new CmGate()) {
                cr.accept(s.ep, 0, null);
                assertEquals(EpState.COMPLETION_PENDING, s.state());
                assertNoEvent(s.connEvd);
                assertCrGone(cr, s.ep); // destroyed by the accept already
            }
            DatEvent e = s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(0, e.privateDataSize());
            assertEquals(EpState.CONNECTED, s.state());
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CRA-07: accept after the requester timed out -> ACCEPT_COMPLETION_ERROR, DISCONNECTED, receives flushed")
    void acceptCompletionError() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            ConnectionRequest cr = timedOutRequest(c, server, server.crEvd, qual, seq(1, 2), () -> { }, () -> { });
            s.postRecv(51, 0, 64);
            s.postRecv(52, 64, 64);
            cr.accept(s.ep, 4, seq(1, 4)); // synchronous success: the failure is asynchronous
            DatEvent e = s.expectConn(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(0, e.privateDataSize());
            assertEquals(EpState.DISCONNECTED, s.state());
            s.expectFlushedRecvs(51, 52);
            assertCrGone(cr, s.ep);
            cmBarrier(client);
            assertNoEvent(c.connEvd);
            assertEquals(EpState.DISCONNECTED, c.state());
        }
    }

    @Test
    @DisplayName("CRA-07: the requester's IA closes between accept and handshake -> ACCEPT_COMPLETION_ERROR")
    void requesterGoneBeforeHandshake() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, null);
            ConnectionRequest cr = server.request();
            s.postRecv(53, 0, 64);
            try (CmGate gate = new CmGate()) {
                cr.accept(s.ep, 0, null);
                client.closeAbrupt();
            }
            s.expectConn(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, s.state());
            s.expectFlushedRecvs(53);
        }
    }

    @Test
    @DisplayName("CRA-08 EVW-19: a successful accept destroys the CR; every later use -> INVALID_HANDLE")
    void acceptDestroysCr() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            Ep s2 = server.ep();
            c.connect(qual, seq(1, 8));
            ConnectionRequest cr = server.request();
            cr.accept(s.ep, 0, null);
            assertCrGone(cr, s2.ep);
            assertEquals(EpState.UNCONNECTED, s2.state());
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertNoEvent(s2.connEvd);
        }
    }

    @Test
    @DisplayName("CRJ-01 CRJ-02 CRJ-05 CRJ-06: dat_cr_reject(cr) is synchronous, destroys the CR; requester PEER_REJECTED")
    void reject() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.postRecv(61, 0, 64);
            c.connect(qual, seq(1, 8));
            ConnectionRequest cr = server.request();
            cr.reject();
            assertCrGone(cr, s.ep);
            c.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, c.state());
            c.expectFlushedRecvs(61);
            assertEquals(EpState.UNCONNECTED, s.state());
            assertNoEvent(s.connEvd);
        }
    }

    @Test
    @DisplayName("CRJ-03 PSP-04: rejecting a provider-EP request returns the EP to the provider; its handle is invalid")
    void rejectProviderEp() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.PROVIDER);
            Ep c = client.ep();
            c.connect(qual, null);
            ConnectionRequest cr = server.request();
            Endpoint pe = cr.query(CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle();
            assertNotNull(pe);
            assertEquals(EpState.UNCONFIGURED_TENTATIVE, pe.getStatus().epState());
            cr.reject();
            c.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, pe::getStatus);
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, pe::free);
            assertCrGone(cr, null);
        }
    }

    @Test
    @DisplayName("CRJ-04 RSP-05: rejecting an RSP request returns its EP to the consumer in UNCONNECTED, reusable")
    void rejectRspEp() {
        try (Node client = new Node(); Node server = new Node()) {
            long rspQual = Pair.freshQual();
            long qual = Pair.freshQual();
            client.listen(qual);
            Ep c = client.ep();
            Ep r = server.ep();
            ReservedServicePoint.create(server.ia, rspQual, r.ep, server.crEvd);
            c.connect(rspQual, null);
            ConnectionRequest cr = server.request();
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, r.state());
            cr.reject();
            assertEquals(EpState.UNCONNECTED, r.state());
            c.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertCrGone(cr, r.ep);
            // Reuse: the EP connects actively now, then is freed.
            r.connect(qual, null);
            Ep accepting = client.ep();
            client.request().accept(accepting.ep, 0, null);
            r.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            accepting.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            r.ep.disconnect(CloseFlags.ABRUPT);
            r.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            r.free();
        }
    }

    @Test
    @DisplayName("CRH-01: dat_cr_handoff passes the request to another PSP of the same IA and destroys the CR")
    void handoff() {
        try (Node client = new Node(); Node server = new Node()) {
            long qa = Pair.freshQual();
            long qb = Pair.freshQual();
            server.listen(qa);
            EventDispatcher evdB = EventDispatcher.create(server.ia, 4, null, EvdFlags.CR);
            PublicServicePoint pspB = PublicServicePoint.create(server.ia, qb, evdB, PspFlags.CONSUMER);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qa, seq(30, 12));
            long port = c.ep.query(EpParam.FIELD_LOCAL_PORT_QUAL).localPortQual();
            ConnectionRequest cr = server.request();
            cr.handoff(qb);
            assertCrGone(cr, s.ep);
            DatEvent e = expect(evdB, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(pspB, e.spHandle());
            assertEquals(qb, e.connQual());
            CrParam p = e.cr().query(CrParam.FIELD_ALL);
            assertSeq(30, 12, p.privateData());
            assertEquals(port, p.remotePortQual());
            assertEquals(mem(), p.remoteIaAddress());
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
            assertNoEvent(c.connEvd);
            e.cr().accept(s.ep, 3, seq(90, 3));
            assertSeq(90, 3, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertNoEvent(server.crEvd);
        }
    }

    @Test
    @DisplayName("CRH-01: handoff to a qualifier no service point of this IA listens on -> INVALID_PARAMETER, CR kept")
    void handoffErrors() {
        try (Node client = new Node(); Node server = new Node(); Node otherServer = new Node()) {
            long qa = Pair.freshQual();
            long otherIaQual = Pair.freshQual();
            server.listen(qa);
            PublicServicePoint.create(otherServer.ia, otherIaQual, otherServer.crEvd, PspFlags.CONSUMER);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qa, seq(1, 2));
            ConnectionRequest cr = server.request();
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> cr.handoff(Pair.freshQual()));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> cr.handoff(otherIaQual));
            assertNoEvent(otherServer.crEvd);
            assertSeq(1, 2, cr.query(CrParam.FIELD_ALL).privateData());
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
            cr.accept(s.ep, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CRH-01 RSP-03: handoff to an RSP of the same IA delivers the request with the RSP's EP")
    void handoffToRsp() {
        try (Node client = new Node(); Node server = new Node()) {
            long qa = Pair.freshQual();
            long qr = Pair.freshQual();
            server.listen(qa);
            Ep c = client.ep();
            Ep r = server.ep();
            EventDispatcher rspEvd = EventDispatcher.create(server.ia, 4, null, EvdFlags.CR);
            ReservedServicePoint.create(server.ia, qr, r.ep, rspEvd);
            c.connect(qa, seq(4, 4));
            server.request().handoff(qr);
            DatEvent e = expect(rspEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertNull(e.spHandle());
            assertEquals(qr, e.connQual());
            CrParam p = e.cr().query(CrParam.FIELD_ALL);
            assertSame(r.ep, p.localEpHandle());
            assertSeq(4, 4, p.privateData());
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, r.state());
            e.cr().accept(null, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            r.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CRH-01 PSP-03: handoff to a PSP whose backlog is full refuses the request: NON_PEER_REJECTED")
    void handoffToFullPsp() {
        try (Node client = new Node(); Node server = new Node()) {
            long qa = Pair.freshQual();
            long qb = Pair.freshQual();
            server.listen(qa);
            EventDispatcher tiny = EventDispatcher.create(server.ia, 1, null, EvdFlags.CR);
            int qlen = tiny.query(EvdParam.FIELD_EVD_QLEN).evdQlen();
            PublicServicePoint.create(server.ia, qb, tiny, PspFlags.CONSUMER);
            Ep[] fill = new Ep[qlen];
            for (int i = 0; i < qlen; i++) {
                fill[i] = client.ep();
                fill[i].connect(qb, null);
            }
            cmBarrier(client); // every one of them is queued now: the backlog is full
            assertEquals(qlen, tiny.query(EvdParam.FIELD_ALL).evdQlen());
            Ep c = client.ep();
            c.connect(qa, null);
            ConnectionRequest cr = server.request();
            cr.handoff(qb);
            assertCrGone(cr, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            for (Ep f : fill) {
                assertEquals(EpState.ACTIVE_CONNECTION_PENDING, f.state());
            }
        }
    }
}
