package io.jdat;

import static io.jdat.testing.ConnFixture.assertDat;
import static io.jdat.testing.ConnFixture.assertNoEvent;
import static io.jdat.testing.ConnFixture.assertSeq;
import static io.jdat.testing.ConnFixture.cmBarrier;
import static io.jdat.testing.ConnFixture.expect;
import static io.jdat.testing.ConnFixture.mem;
import static io.jdat.testing.ConnFixture.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.RegistryEntry;
import io.jdat.mem.MemAddress;
import io.jdat.testing.ConnFixture.CmGate;
import io.jdat.testing.ConnFixture.Ep;
import io.jdat.testing.ConnFixture.Node;
import io.jdat.testing.Pair;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Public and Reserved Service Points: {@code dat_psp_*} and {@code dat_rsp_*}. */
class ServicePointTest {
    private static final DatReturnType HANDLE = DatReturnType.INVALID_HANDLE;
    private static final DatReturnType PARAM = DatReturnType.INVALID_PARAMETER;
    private static final DatReturnType STATE = DatReturnType.INVALID_STATE;

    private static ConnectionRequest request(EventDispatcher evd) {
        return expect(evd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
    }

    private static void establish(Ep c, Ep s) {
        c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        assertEquals(EpState.CONNECTED, c.state());
        assertEquals(EpState.CONNECTED, s.state());
    }

    // ================================================================== PSP

    @Test
    @DisplayName("PSP-01 PSP-02 PSP-05: a PSP listens once created; every request makes its own CR, with no EP")
    void pspIsPersistent() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
            assertEquals(HandleType.PSP, psp.getHandleType());
            assertEquals(qual, psp.connQual());
            Ep c1 = client.ep();
            Ep c2 = client.ep();
            Ep c3 = client.ep();
            Ep s1 = server.ep();
            Ep s2 = server.ep();
            c1.connect(qual, seq(1, 1));
            c2.connect(qual, seq(2, 1));
            DatEvent e1 = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            DatEvent e2 = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertNotSame(e1.cr(), e2.cr());
            for (DatEvent e : new DatEvent[] {e1, e2}) {
                assertSame(psp, e.spHandle());
                assertEquals(qual, e.connQual());
                assertEquals(mem(), e.localIaAddress());
                assertNull(e.cr().query(CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle());
            }
            e1.cr().accept(s1.ep, 0, null);
            e2.cr().accept(s2.ep, 0, null);
            establish(c1, s1);
            establish(c2, s2);
            // Still listening after two connections.
            c3.connect(qual, null);
            request(server.crEvd).reject();
            c3.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    @Test
    @DisplayName("PSP-03 CON-08: the backlog is the CR EVD queue; a request beyond it -> NON_PEER_REJECTED")
    void backlogIsEvdQueue() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            EventDispatcher tiny = EventDispatcher.create(server.ia, 1, null, EvdFlags.CR);
            int qlen = tiny.query(EvdParam.FIELD_EVD_QLEN).evdQlen();
            assertTrue(qlen >= 1);
            PublicServicePoint.create(server.ia, qual, tiny, PspFlags.CONSUMER);
            Ep[] queued = new Ep[qlen];
            for (int i = 0; i < qlen; i++) {
                queued[i] = client.ep();
                queued[i].connect(qual, null);
            }
            cmBarrier(client); // all of them are queued: the backlog is full
            Ep over = client.ep();
            over.postRecv(71, 0, 64);
            over.connect(qual, null);
            over.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, over.state());
            over.expectFlushedRecvs(71);
            for (Ep q : queued) {
                assertEquals(EpState.ACTIVE_CONNECTION_PENDING, q.state());
                assertNoEvent(q.connEvd);
            }
            // Taking one request off the queue makes room for the next.
            Ep s = server.ep();
            request(tiny).accept(s.ep, 0, null);
            establish(queued[0], s);
            Ep next = client.ep();
            next.connect(qual, null);
            ConnectionRequest cr = null;
            for (int i = 1; i < qlen; i++) {
                request(tiny).reject();
            }
            cr = request(tiny);
            assertEquals(next.ep.query(EpParam.FIELD_LOCAL_PORT_QUAL).localPortQual(),
                    cr.query(CrParam.FIELD_REMOTE_PORT_QUAL).remotePortQual());
            cr.reject();
            next.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    @Test
    @DisplayName("PSP-04 PSP-13 CRA-02: PROVIDER flag: the CR carries a TENTATIVE EP without PZ/EVDs; configure, accept")
    void providerFlag() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.PROVIDER);
            assertEquals(PspFlags.PROVIDER, psp.query(PspParam.FIELD_PSP_FLAGS).pspFlags());
            Ep c = client.ep();
            c.connect(qual, seq(3, 3));
            DatEvent e = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(psp, e.spHandle());
            ConnectionRequest cr = e.cr();
            Endpoint pe = cr.query(CrParam.FIELD_ALL).localEpHandle();
            assertNotNull(pe, "the provider created an EP (PSP-04)");
            assertEquals(EpState.UNCONFIGURED_TENTATIVE, pe.getStatus().epState());
            EpParam p = pe.query(EpParam.FIELD_ALL);
            assertNull(p.pzHandle());
            assertNull(p.recvEvdHandle());
            assertNull(p.requestEvdHandle());
            assertNull(p.connectEvdHandle());
            assertEquals(mem(), p.remoteIaAddress());
            assertEquals(c.ep.query(EpParam.FIELD_LOCAL_PORT_QUAL).localPortQual(), p.remotePortQual());
            // Not yet usable: accepting needs a PZ and a connect EVD; the CR is kept.
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY, () -> cr.accept(null, 0, null));
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING, () -> pe.free());
            // PSP-13: dat_ep_modify is allowed in TENTATIVE_CONNECTION_PENDING.
            EventDispatcher recv = EventDispatcher.create(server.ia, 16, null, EvdFlags.DTO);
            EventDispatcher req = EventDispatcher.create(server.ia, 16, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(server.ia, 16, null, EvdFlags.CONNECTION);
            pe.modify(EpParam.FIELD_PZ_HANDLE | EpParam.FIELD_RECV_EVD_HANDLE | EpParam.FIELD_REQUEST_EVD_HANDLE
                    | EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().pzHandle(server.pz).recvEvdHandle(recv)
                            .requestEvdHandle(req).connectEvdHandle(conn));
            assertEquals(EpState.TENTATIVE_CONNECTION_PENDING, pe.getStatus().epState());
            pe.postRecv(1, new LmrTriplet[] {server.at(0, 64)}, 81, 0);
            cr.accept(null, 2, seq(50, 2));
            DatEvent est = expect(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertSame(pe, est.ep());
            assertSeq(50, 2, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            assertEquals(EpState.CONNECTED, pe.getStatus().epState());
            c.postSend(82, 0, 16);
            c.expectDto(c.reqEvd, 82, DtoCompletionStatus.SUCCESS);
            DatEvent r = expect(recv, EventNumber.DTO_COMPLETION_EVENT);
            assertEquals(81, r.userCookie());
            assertEquals(16, r.transferredLength());
        }
    }

    @Test
    @DisplayName("PSP-06: psp_flags other than CONSUMER or PROVIDER -> INVALID_PARAMETER; both are honoured on mem")
    void pspFlags() {
        try (Node server = new Node()) {
            long qual = Pair.freshQual();
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> PublicServicePoint.create(server.ia, qual, server.crEvd, 2));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> PublicServicePoint.create(server.ia, qual, server.crEvd, -1));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> PublicServicePoint.createAny(server.ia, server.crEvd, 3));
            assertEquals(EpCreatorForPsp.IFASKED,
                    server.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr().epCreator());
            // The qualifier was not taken by the failed calls.
            PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER).free();
            PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.PROVIDER).free();
        }
    }

    @Test
    @DisplayName("PSP-07 RSP-06: a second listener on a qualifier -> CONN_QUAL_IN_USE (same IA, other IA, PSP or RSP)")
    void connQualInUse() {
        try (Node server = new Node(); Node other = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
            assertDat(DatReturnType.CONN_QUAL_IN_USE, DatReturnSubtype.NO_SUBTYPE,
                    () -> PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.PROVIDER));
            assertDat(DatReturnType.CONN_QUAL_IN_USE, DatReturnSubtype.NO_SUBTYPE,
                    () -> PublicServicePoint.create(other.ia, qual, other.crEvd, PspFlags.CONSUMER));
            Ep e = server.ep();
            assertDat(DatReturnType.CONN_QUAL_IN_USE, DatReturnSubtype.NO_SUBTYPE,
                    () -> ReservedServicePoint.create(server.ia, qual, e.ep, server.crEvd));
            assertEquals(EpState.UNCONNECTED, e.state(), "a failed rsp_create leaves the EP UNCONNECTED");
            psp.free();
            ReservedServicePoint rsp = ReservedServicePoint.create(server.ia, qual, e.ep, server.crEvd);
            assertDat(DatReturnType.CONN_QUAL_IN_USE, DatReturnSubtype.NO_SUBTYPE,
                    () -> PublicServicePoint.create(other.ia, qual, other.crEvd, PspFlags.CONSUMER));
            rsp.free();
            PublicServicePoint.create(other.ia, qual, other.crEvd, PspFlags.CONSUMER);
        }
    }

    @Test
    @DisplayName("PSP-08: bad IA or EVD (NULL, freed, other IA, no DAT_EVD_CR_FLAG) -> INVALID_HANDLE")
    void pspBadHandles() {
        try (Node server = new Node(); Node other = new Node()) {
            long qual = Pair.freshQual();
            EventDispatcher noCr = EventDispatcher.create(server.ia, 4, null, EvdFlags.CONNECTION | EvdFlags.DTO);
            EventDispatcher freed = EventDispatcher.create(server.ia, 4, null, EvdFlags.CR);
            freed.free();
            DatReturnSubtype evd = DatReturnSubtype.INVALID_HANDLE_EVD_CR;
            assertDat(HANDLE, evd, () -> PublicServicePoint.create(server.ia, qual, null, PspFlags.CONSUMER));
            assertDat(HANDLE, evd, () -> PublicServicePoint.create(server.ia, qual, noCr, PspFlags.CONSUMER));
            assertDat(HANDLE, evd, () -> PublicServicePoint.create(server.ia, qual, freed, PspFlags.CONSUMER));
            assertDat(HANDLE, evd, () -> PublicServicePoint.create(server.ia, qual, other.crEvd, PspFlags.CONSUMER));
            assertDat(HANDLE, evd, () -> PublicServicePoint.createAny(server.ia, noCr, PspFlags.CONSUMER));
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                    () -> PublicServicePoint.create(null, qual, server.crEvd, PspFlags.CONSUMER));
            InterfaceAdapter closed = InterfaceAdapter.open("mem", 4, null);
            EventDispatcher closedEvd = EventDispatcher.create(closed, 4, null, EvdFlags.CR);
            closed.close(CloseFlags.ABRUPT);
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                    () -> PublicServicePoint.create(closed, qual, closedEvd, PspFlags.CONSUMER));
            // None of the failures took the qualifier.
            PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
        }
    }

    @Test
    @DisplayName("PSP-09 AMB-22: dat_psp_create_any picks a free non-privileged qualifier and returns it")
    void createAny() {
        try (Node client = new Node(); Node server = new Node()) {
            PublicServicePoint a = PublicServicePoint.createAny(server.ia, server.crEvd, PspFlags.CONSUMER);
            PublicServicePoint b = PublicServicePoint.createAny(server.ia, server.crEvd, PspFlags.CONSUMER);
            assertNotEquals(a.connQual(), b.connQual());
            assertTrue(a.connQual() >= 1024 && b.connQual() >= 1024, "non-privileged qualifiers");
            assertEquals(a.connQual(), a.query(PspParam.FIELD_CONN_QUAL).connQual());
            assertDat(DatReturnType.CONN_QUAL_IN_USE, DatReturnSubtype.NO_SUBTYPE,
                    () -> PublicServicePoint.create(server.ia, b.connQual(), server.crEvd, PspFlags.CONSUMER));
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(b.connQual(), null);
            DatEvent e = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(b, e.spHandle());
            assertEquals(b.connQual(), e.connQual());
            e.cr().accept(s.ep, 0, null);
            establish(c, s);
        }
    }

    @Test
    @DisplayName("PSP-09: with every non-privileged qualifier taken, dat_psp_create_any -> CONN_QUAL_UNAVAILABLE")
    void createAnyUnavailable() {
        String name = "jdat-test-psp09";
        Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, true, "mem", "jdat", 1, 0, name + "-addr", ""));
        try (Node server = new Node(name)) {
            assertEquals(MemAddress.of(name + "-addr"), server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress());
            PublicServicePoint first = PublicServicePoint.createAny(server.ia, server.crEvd, PspFlags.CONSUMER);
            long lowest = first.connQual();
            // mem picks from a 16-bit, port-like range: take every qualifier above the one it picked.
            for (long q = lowest + 1; q <= lowest + 65_536; q++) {
                PublicServicePoint.create(server.ia, q, server.crEvd, PspFlags.CONSUMER);
            }
            assertDat(DatReturnType.CONN_QUAL_UNAVAILABLE, DatReturnSubtype.NO_SUBTYPE,
                    () -> PublicServicePoint.createAny(server.ia, server.crEvd, PspFlags.CONSUMER));
            first.free();
            assertEquals(lowest, PublicServicePoint.createAny(server.ia, server.crEvd, PspFlags.CONSUMER).connQual(),
                    "the freed qualifier is free again");
        } finally {
            Registry.removeProvider(name);
        }
    }

    @Test
    @DisplayName("PSP-10 CON-08: after dat_psp_free, requests to the qualifier are refused: NON_PEER_REJECTED")
    void pspFreed() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
            psp.free();
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_PSP, psp::free);
            Ep c = client.ep();
            c.postRecv(91, 0, 64);
            c.connect(qual, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, c.state());
            c.expectFlushedRecvs(91);
            assertNoEvent(server.crEvd);
            server.crEvd.free(); // the PSP no longer feeds it
        }
    }

    @Test
    @DisplayName("PSP-11: dat_psp_free leaves CRs and provider EPs already generated usable")
    void pspFreeKeepsRequests() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            long pqual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
            EventDispatcher pEvd = EventDispatcher.create(server.ia, 4, null, EvdFlags.CR);
            PublicServicePoint ppsp = PublicServicePoint.create(server.ia, pqual, pEvd, PspFlags.PROVIDER);
            Ep c = client.ep();
            Ep c2 = client.ep();
            Ep s = server.ep();
            c.connect(qual, seq(1, 5));
            c2.connect(pqual, null);
            ConnectionRequest cr = request(server.crEvd);
            ConnectionRequest pcr = request(pEvd);
            psp.free();
            ppsp.free();
            assertSeq(1, 5, cr.query(CrParam.FIELD_ALL).privateData());
            cr.accept(s.ep, 0, null);
            establish(c, s);
            Endpoint pe = pcr.query(CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle();
            assertEquals(EpState.UNCONFIGURED_TENTATIVE, pe.getStatus().epState());
            EventDispatcher conn = EventDispatcher.create(server.ia, 4, null, EvdFlags.CONNECTION);
            pe.modify(EpParam.FIELD_PZ_HANDLE | EpParam.FIELD_CONNECT_EVD_HANDLE,
                    new EpParam().pzHandle(server.pz).connectEvdHandle(conn));
            pcr.accept(null, 0, null);
            expect(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c2.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("PSP-12: a request racing with dat_psp_free gets either a CR or NON_PEER_REJECTED, never both")
    void pspFreeRace() {
        try (Node client = new Node(); Node server = new Node()) {
            // Deterministic: the request is processed after the free.
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
            Ep late = client.ep();
            try (CmGate gate = new CmGate()) {
                late.connect(qual, null);
                psp.free();
            }
            late.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertNoEvent(server.crEvd);

            // Racing: whichever way each race goes, the outcome is consistent.
            for (int i = 0; i < 20; i++) {
                long q = Pair.freshQual();
                PublicServicePoint p = PublicServicePoint.create(server.ia, q, server.crEvd, PspFlags.CONSUMER);
                Ep c = client.ep();
                c.connect(q, null);
                p.free();
                cmBarrier(client);
                DatEvent e = new DatEvent();
                if (server.crEvd.dequeue(e)) {
                    assertSame(p, e.spHandle());
                    assertNoEvent(c.connEvd);
                    assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
                    Ep s = server.ep();
                    e.cr().accept(s.ep, 0, null);
                    establish(c, s);
                } else {
                    c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
                    assertNoEvent(server.crEvd);
                    assertEquals(EpState.DISCONNECTED, c.state());
                }
            }
        }
    }

    @Test
    @DisplayName("PSP-14: dat_psp_query reports the creation parameters; bad mask -> INVALID_PARAMETER; freed -> INVALID_HANDLE")
    void pspQuery() {
        try (Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.PROVIDER);
            PspParam p = psp.query(PspParam.FIELD_ALL);
            assertSame(server.ia, p.iaHandle());
            assertEquals(qual, p.connQual());
            assertSame(server.crEvd, p.evdHandle());
            assertEquals(PspFlags.PROVIDER, p.pspFlags());
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> psp.query(0x10));
            psp.free();
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_PSP, () -> psp.query(PspParam.FIELD_ALL));
        }
    }

    // ================================================================== RSP

    @Test
    @DisplayName("RSP-01 RSP-02 RSP-03 RSP-04 RSP-10: RSP reserves its EP, delivers one CR carrying it, then is gone")
    void rspLifecycle() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            Ep r = server.ep();
            Ep c = client.ep();
            Ep c2 = client.ep();
            ReservedServicePoint rsp = ReservedServicePoint.create(server.ia, qual, r.ep, server.crEvd);
            assertEquals(HandleType.RSP, rsp.getHandleType());
            assertEquals(EpState.RESERVED, r.state());
            RspParam p = rsp.query(RspParam.FIELD_ALL);
            assertSame(server.ia, p.iaHandle());
            assertEquals(qual, p.connQual());
            assertSame(server.crEvd, p.evdHandle());
            assertSame(r.ep, p.epHandle());
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> rsp.query(0x10));

            r.postRecv(101, 0, 64);
            c.connect(qual, seq(8, 8));
            DatEvent e = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertNull(e.spHandle(), "sp_handle is NULL for an RSP");
            assertEquals(qual, e.connQual());
            assertEquals(mem(), e.localIaAddress());
            CrParam cp = e.cr().query(CrParam.FIELD_ALL);
            assertSame(r.ep, cp.localEpHandle());
            assertSeq(8, 8, cp.privateData());
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, r.state());
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_RSP, () -> rsp.query(RspParam.FIELD_ALL));

            // RSP-02: at most one request.
            c2.connect(qual, null);
            c2.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertNoEvent(server.crEvd);

            e.cr().accept(null, 1, new byte[] {5});
            DatEvent est = r.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(0, est.privateDataSize());
            assertSeq(5, 1, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            assertEquals(EpState.CONNECTED, r.state());
            c.postSend(102, 0, 8);
            c.expectDto(c.reqEvd, 102, DtoCompletionStatus.SUCCESS);
            r.expectDto(r.recvEvd, 101, DtoCompletionStatus.SUCCESS);
        }
    }

    @Test
    @DisplayName("RSP-01: dat_rsp_create needs an UNCONNECTED EP -> INVALID_STATE with the EP's state")
    void rspNeedsUnconnectedEp() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            long pspQual = Pair.freshQual();
            PublicServicePoint.create(client.ia, pspQual, client.crEvd, PspFlags.CONSUMER);
            Ep r = server.ep();
            ReservedServicePoint.create(server.ia, qual, r.ep, server.crEvd);
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_RESERVED,
                    () -> ReservedServicePoint.create(server.ia, Pair.freshQual(), r.ep, server.crEvd));
            Ep active = server.ep();
            active.connect(pspQual, null);
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                    () -> ReservedServicePoint.create(server.ia, Pair.freshQual(), active.ep, server.crEvd));
            Ep acc = client.ep();
            request(client.crEvd).accept(acc.ep, 0, null);
            establish(active, acc);
            long unused = Pair.freshQual();
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                    () -> ReservedServicePoint.create(server.ia, unused, active.ep, server.crEvd));
            assertEquals(EpState.CONNECTED, active.state());
            // The failed create did not listen.
            Ep probe = client.ep();
            probe.connect(unused, null);
            probe.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    @Test
    @DisplayName("RSP-06: bad IA, EP or EVD -> INVALID_HANDLE; qualifier in use -> CONN_QUAL_IN_USE, nothing left behind")
    void rspBadArguments() {
        try (Node server = new Node(); Node other = new Node()) {
            long qual = Pair.freshQual();
            Ep r = server.ep();
            Ep foreign = other.ep();
            Ep freed = server.ep();
            freed.ep.free();
            EventDispatcher noCr = EventDispatcher.create(server.ia, 4, null, EvdFlags.CONNECTION);
            DatReturnSubtype ep = DatReturnSubtype.INVALID_HANDLE_EP;
            assertDat(HANDLE, ep, () -> ReservedServicePoint.create(server.ia, qual, foreign.ep, server.crEvd));
            assertDat(HANDLE, ep, () -> ReservedServicePoint.create(server.ia, qual, freed.ep, server.crEvd));
            DatReturnSubtype evd = DatReturnSubtype.INVALID_HANDLE_EVD_CR;
            assertDat(HANDLE, evd, () -> ReservedServicePoint.create(server.ia, qual, r.ep, null));
            assertDat(HANDLE, evd, () -> ReservedServicePoint.create(server.ia, qual, r.ep, noCr));
            assertDat(HANDLE, evd, () -> ReservedServicePoint.create(server.ia, qual, r.ep, other.crEvd));
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                    () -> ReservedServicePoint.create(null, qual, r.ep, server.crEvd));
            assertEquals(EpState.UNCONNECTED, r.state());

            // In use: with a consumer EP and with a provider EP, the failure leaves nothing behind.
            InterfaceAdapter ia = InterfaceAdapter.open("mem", 4, null);
            boolean closed = false;
            try {
                EventDispatcher crEvd = EventDispatcher.create(ia, 4, null, EvdFlags.CR);
                PublicServicePoint psp = PublicServicePoint.create(ia, qual, crEvd, PspFlags.CONSUMER);
                assertDat(DatReturnType.CONN_QUAL_IN_USE, DatReturnSubtype.NO_SUBTYPE,
                        () -> ReservedServicePoint.create(ia, qual, null, crEvd));
                psp.free();
                crEvd.free();
                ia.close(CloseFlags.GRACEFUL); // no provider EP was left over
                closed = true;
            } finally {
                if (!closed) {
                    ia.close(CloseFlags.ABRUPT);
                }
            }
        }
    }

    @Test
    @DisplayName("RSP-07: dat_rsp_free returns the EP to UNCONNECTED; later requests are refused as with no listener")
    void rspFree() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            Ep r = server.ep();
            ReservedServicePoint rsp = ReservedServicePoint.create(server.ia, qual, r.ep, server.crEvd);
            rsp.free();
            assertEquals(EpState.UNCONNECTED, r.state());
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_RSP, rsp::free);
            Ep c = client.ep();
            c.connect(qual, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertNoEvent(server.crEvd);
            // The EP is the consumer's again: reserve it anew, or free it.
            ReservedServicePoint again = ReservedServicePoint.create(server.ia, qual, r.ep, server.crEvd);
            again.free();
            r.free();
        }
    }

    @Test
    @DisplayName("RSP-08: dat_rsp_free racing with a request: a CR already delivered stays valid; else the request is refused")
    void rspFreeRace() {
        try (Node client = new Node(); Node server = new Node()) {
            // The request arrived first: the RSP is gone, its CR is valid.
            long qual = Pair.freshQual();
            Ep r = server.ep();
            ReservedServicePoint rsp = ReservedServicePoint.create(server.ia, qual, r.ep, server.crEvd);
            Ep c = client.ep();
            c.connect(qual, null);
            ConnectionRequest cr = request(server.crEvd);
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_RSP, rsp::free);
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, r.state());
            cr.accept(null, 0, null);
            establish(c, r);

            // The free came first: the request finds no listener.
            long qual2 = Pair.freshQual();
            Ep r2 = server.ep();
            ReservedServicePoint rsp2 = ReservedServicePoint.create(server.ia, qual2, r2.ep, server.crEvd);
            Ep c2 = client.ep();
            try (CmGate gate = new CmGate()) {
                c2.connect(qual2, null);
                rsp2.free();
            }
            c2.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.UNCONNECTED, r2.state());
            assertNoEvent(server.crEvd);
        }
    }

    @Test
    @DisplayName("RSP-09: an RSP created without an EP gets a provider EP, carried by its CR; configured, it accepts")
    void rspProviderEp() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            ReservedServicePoint rsp = ReservedServicePoint.create(server.ia, qual, null, server.crEvd);
            Endpoint pe = rsp.query(RspParam.FIELD_EP_HANDLE).epHandle();
            assertNotNull(pe, "the provider associated its own EP");
            assertEquals(EpState.UNCONFIGURED_RESERVED, pe.getStatus().epState());
            EventDispatcher conn = EventDispatcher.create(server.ia, 4, null, EvdFlags.CONNECTION);
            // §7.1: ep_modify supplies what the UNCONFIGURED EP lacks.
            pe.modify(EpParam.FIELD_PZ_HANDLE | EpParam.FIELD_CONNECT_EVD_HANDLE,
                    new EpParam().pzHandle(server.pz).connectEvdHandle(conn));
            assertEquals(EpState.RESERVED, pe.getStatus().epState());
            Ep c = client.ep();
            c.connect(qual, null);
            DatEvent e = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertNull(e.spHandle());
            assertSame(pe, e.cr().query(CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle());
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, pe.getStatus().epState());
            e.cr().accept(null, 0, null);
            assertSame(pe, expect(conn, EventNumber.CONNECTION_EVENT_ESTABLISHED).ep());
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, pe.getStatus().epState());

            // Unconfigured, the provider EP cannot accept; rejecting returns it to the provider.
            long qual2 = Pair.freshQual();
            ReservedServicePoint rsp2 = ReservedServicePoint.create(server.ia, qual2, null, server.crEvd);
            Endpoint pe2 = rsp2.query(RspParam.FIELD_ALL).epHandle();
            Ep c2 = client.ep();
            c2.connect(qual2, null);
            ConnectionRequest cr2 = request(server.crEvd);
            assertEquals(EpState.UNCONFIGURED_PASSIVE, pe2.getStatus().epState());
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY, () -> cr2.accept(null, 0, null));
            cr2.reject();
            c2.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertDat(HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, pe2::getStatus);
        }
    }
}
