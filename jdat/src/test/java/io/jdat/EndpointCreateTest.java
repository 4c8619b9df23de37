package io.jdat;

import static io.jdat.testing.EpAssert.empty;
import static io.jdat.testing.EpAssert.fails;
import static io.jdat.testing.EpAssert.invalidHandle;
import static io.jdat.testing.EpAssert.invalidParam;
import static io.jdat.testing.EpAssert.invalidState;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_ep_create} (CONFORMANCE §1.1, EPC-01..27). */
class EndpointCreateTest {
    private static final int TIMEOUT = 60_000_000;

    private static LmrTriplet[] iov(Lmr lmr, long offset, long length) {
        return new LmrTriplet[] {lmr.triplet(offset, length)};
    }

    private static EpAttr flags(InterfaceAdapter ia, int recv, int request) {
        return ia.defaultEpAttr().recvCompletionFlags(recv).requestCompletionFlags(request);
    }

    private static void establish(Pair p, Endpoint client, EventDispatcher clientConn, Endpoint server,
            EventDispatcher serverConn) {
        if (p.psp == null) {
            p.psp = PublicServicePoint.create(p.server.ia, p.qual, p.crEvd, PspFlags.CONSUMER);
        }
        client.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent cr = p.server.next(p.crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        cr.cr().accept(server, 0, null);
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.server.next(serverConn).eventNumber());
        assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.client.next(clientConn).eventNumber());
    }

    // ====================================================================== arguments, result, defaults

    @Test
    @DisplayName("EPC-01 EPC-02 EPC-03: create(ia, pz, recv, request, connect, attr) returns a usable EP in UNCONNECTED holding exactly those handles")
    void argumentOrderAndInitialState() {
        try (Pair p = new Pair()) {
            Endpoint ep = Endpoint.create(p.client.ia, p.client.pz, p.client.recvEvd, p.client.reqEvd, p.client.connEvd,
                    null);
            assertNotNull(ep);
            assertEquals(HandleType.EP, ep.getHandleType());
            EpParam q = ep.query(EpParam.FIELD_ALL);
            assertSame(p.client.ia, q.iaHandle());
            assertSame(p.client.pz, q.pzHandle());
            assertSame(p.client.recvEvd, q.recvEvdHandle());
            assertSame(p.client.reqEvd, q.requestEvdHandle());
            assertSame(p.client.connEvd, q.connectEvdHandle());
            assertNull(q.srqHandle());
            assertEquals(EpState.UNCONNECTED, q.epState());
            assertEquals(new Endpoint.Status(EpState.UNCONNECTED, true, true), ep.getStatus());
            ep.free();
        }
    }

    @Test
    @DisplayName("EPC-13 EPC-27: NULL attributes give the provider defaults, which dat_ep_query reports and which are usable")
    void nullAttributesGiveDefaults() {
        try (Pair p = new Pair()) {
            EpAttr defaults = p.client.ia.defaultEpAttr();
            EpAttr reported = p.client.ep.query(EpParam.FIELD_EP_ATTR_ALL).epAttr();
            assertEquals(defaults.toString(), reported.toString());
            assertEquals(ServiceType.RC, reported.serviceType());
            assertTrue(reported.maxMessageSize() > 0);
            assertTrue(reported.maxRdmaSize() > 0);
            assertTrue(reported.maxRecvDtos() > 0);
            assertTrue(reported.maxRequestDtos() > 0);
            assertTrue(reported.maxRecvIov() > 0);
            assertTrue(reported.maxRequestIov() > 0);
            // EPC-27: the reported DTO limits fit the queue the consumer sized from them.
            EventDispatcher evd = EventDispatcher.create(p.client.ia, reported.maxRecvDtos(), null, EvdFlags.DTO);
            assertTrue(evd.query(EvdParam.FIELD_ALL).evdQlen() >= reported.maxRecvDtos());
        }
    }

    @Test
    @DisplayName("EPC-02 EPC-18: a failed create yields no EP and attaches nothing: its EVDs and PZ stay freeable")
    void failedCreateLeavesNothing() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher recv = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            EventDispatcher req = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            invalidParam(DatReturnSubtype.INVALID_ARG6,
                    () -> Endpoint.create(ia, pz, recv, req, conn, ia.defaultEpAttr().maxRecvDtos(-1)));
            // Request stream refused after the recv stream was accepted: the recv stream is rolled back.
            EventDispatcher mixed = EventDispatcher.create(ia, 8, null, EvdFlags.DTO | EvdFlags.CR);
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, pz, recv, mixed, conn,
                    flags(ia, CompletionFlags.DEFAULT, CompletionFlags.DEFAULT)));
            recv.free();
            req.free();
            conn.free();
            mixed.free();
            pz.free();
        }
    }

    // ====================================================================== PZ and EVD roles

    @Test
    @DisplayName("EPC-04: local buffers are usable only through LMRs of the EP's PZ (other PZ → PROTECTION_VIOLATION)")
    void localBuffersNeedEpPz() {
        try (Pair p = new Pair()) {
            ProtectionZone other = ProtectionZone.create(p.client.ia);
            Lmr foreign = Lmr.create(p.client.ia, MemType.VIRTUAL,
                    RegionDescription.forVa(p.client.arena.allocate(4096, 256)), 4096, other, MemPriv.ALL);
            fails(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> p.client.ep.postRecv(1, iov(foreign, 0, 64), 1, 0));
            assertTrue(p.client.ep.getStatus().recvIdle());
            p.client.ep.postRecv(1, iov(p.client.lmr, 0, 64), 2, 0);
            assertFalse(p.client.ep.getStatus().recvIdle());
            // An EP without PZ matches no LMR.
            Endpoint noPz = Endpoint.create(p.client.ia, null, null, null, null, null);
            fails(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> noPz.postRecv(1, iov(p.client.lmr, 0, 64), 3, 0));
            p.connect();
            fails(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ,
                    () -> p.client.ep.postSend(1, iov(foreign, 0, 8), 4, 0));
        }
    }

    @Test
    @DisplayName("EPC-05 RWR-09: remote RDMA over the connection reaches only memory in the target EP's PZ")
    void remoteRdmaNeedsEpPz() {
        try (Pair p = new Pair()) {
            ProtectionZone other = ProtectionZone.create(p.server.ia);
            var seg = p.server.arena.allocate(4096, 256);
            Lmr foreign = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, other,
                    MemPriv.ALL);
            p.connect();
            // Same PZ: works.
            p.client.buf.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 1, p.server.lmr.remoteTriplet(0, 8), 0);
            p.client.expectDto(p.client.reqEvd, 1);
            assertEquals(0x0102030405060708L, p.server.buf.get(ValueLayout.JAVA_LONG, 0));
            // Another PZ: refused at the target before any byte moved; the connection breaks.
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 2, foreign.remoteTriplet(0, 8), 0);
            DatEvent e = p.client.next(p.client.reqEvd);
            assertEquals(2, e.userCookie());
            assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, e.status());
            assertEquals(0L, seg.get(ValueLayout.JAVA_LONG, 0));
            p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @Test
    @DisplayName("EPC-06 EPC-07 EPC-08 EPC-09: receive completions on recv_evd; send, RDMA and bind completions on request_evd; connection events on connect_evd")
    void eventRouting() {
        try (Pair p = new Pair()) {
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 10, 0);
            p.connect(); // EPC-09: ESTABLISHED arrived on both connect EVDs
            empty(p.client.recvEvd);
            empty(p.client.reqEvd);
            empty(p.server.recvEvd);
            empty(p.server.reqEvd);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 16), 11, 0);
            p.client.expectDto(p.client.reqEvd, 11);
            assertSame(p.server.ep, p.server.expectDto(p.server.recvEvd, 10).ep());
            empty(p.server.reqEvd);
            empty(p.client.recvEvd);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 12, p.server.lmr.remoteTriplet(64, 8), 0);
            p.client.expectDto(p.client.reqEvd, 12);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 64, 8), 13, p.server.lmr.remoteTriplet(64, 8), 0);
            p.client.expectDto(p.client.reqEvd, 13);
            Rmr rmr = Rmr.create(p.client.pz);
            rmr.bind(p.client.lmr.triplet(0, 128), MemPriv.REMOTE_READ, p.client.ep, 14, 0);
            DatEvent b = p.client.next(p.client.reqEvd);
            assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, b.eventNumber());
            assertEquals(14, b.userCookie());
            empty(p.client.recvEvd);
            empty(p.server.recvEvd);
            empty(p.server.reqEvd);
            empty(p.client.connEvd);
            p.client.ep.disconnect(CloseFlags.ABRUPT);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            empty(p.client.reqEvd);
            empty(p.server.recvEvd);
        }
    }

    @Test
    @DisplayName("EPC-10: with a NULL recv_evd receives still land but no completion is reported anywhere")
    void nullRecvEvd() {
        try (Pair p = new Pair()) {
            Endpoint srv = Endpoint.create(p.server.ia, p.server.pz, null, p.server.reqEvd, p.server.connEvd, null);
            srv.postRecv(1, iov(p.server.lmr, 0, 64), 1, 0);
            establish(p, p.client.ep, p.client.connEvd, srv, p.server.connEvd);
            p.client.buf.set(ValueLayout.JAVA_INT, 0, 0xCAFE);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 4), 2, 0);
            p.client.expectDto(p.client.reqEvd, 2);
            assertEquals(0xCAFE, p.server.buf.get(ValueLayout.JAVA_INT, 0));
            assertTrue(srv.getStatus().recvIdle(), "the receive was consumed");
            empty(p.server.recvEvd);
            empty(p.server.reqEvd);
            assertNull(srv.query(EpParam.FIELD_RECV_EVD_HANDLE).recvEvdHandle());
        }
    }

    @Test
    @DisplayName("EPC-11: with a NULL request_evd sends complete without any event")
    void nullRequestEvd() {
        try (Pair p = new Pair()) {
            Endpoint cli = Endpoint.create(p.client.ia, p.client.pz, p.client.recvEvd, null, p.client.connEvd, null);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, 0);
            establish(p, cli, p.client.connEvd, p.server.ep, p.server.connEvd);
            cli.postSend(1, iov(p.client.lmr, 0, 4), 2, 0);
            assertEquals(4, p.server.expectDto(p.server.recvEvd, 1).transferredLength());
            assertTrue(cli.getStatus().requestIdle());
            empty(p.client.reqEvd);
            empty(p.client.recvEvd);
        }
    }

    @Test
    @DisplayName("EPC-12 EPM-13: a NULL connect_evd at creation can be supplied later by modify; the EP then connects")
    void connectEvdLater() {
        try (Pair p = new Pair()) {
            Endpoint ep = Endpoint.create(p.client.ia, p.client.pz, p.client.recvEvd, p.client.reqEvd, null, null);
            assertEquals(EpState.UNCONFIGURED_UNCONNECTED, ep.getStatus().epState());
            invalidState(DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                    () -> ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0));
            EventDispatcher conn = EventDispatcher.create(p.client.ia, 8, null, EvdFlags.CONNECTION);
            ep.modify(EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().connectEvdHandle(conn));
            assertEquals(EpState.UNCONNECTED, ep.getStatus().epState());
            establish(p, ep, conn, p.server.ep, p.server.connEvd);
            assertEquals(EpState.CONNECTED, ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("EPC-14 EPC-15: an EP with unusable (zero) limits still supports query, get_status, modify and free, and becomes usable after modify")
    void unusableUntilModified() {
        try (Pair p = new Pair()) {
            Endpoint ep = Endpoint.create(p.client.ia, p.client.pz, p.client.recvEvd, p.client.reqEvd, p.client.connEvd,
                    new EpAttr());
            EpAttr a = ep.query(EpParam.FIELD_ALL).epAttr();
            assertEquals(0, a.maxRecvDtos());
            assertEquals(0, a.maxRecvIov());
            assertEquals(new Endpoint.Status(EpState.UNCONNECTED, true, true), ep.getStatus());
            invalidParam(DatReturnSubtype.INVALID_ARG2, () -> ep.postRecv(1, iov(p.client.lmr, 0, 64), 1, 0));
            fails(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP, () -> ep.postRecv(0, null, 1, 0));
            ep.modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | EpParam.FIELD_EP_ATTR_MAX_RECV_IOV
                    | EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS | EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV
                    | EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE, new EpParam().epAttr(new EpAttr().maxRecvDtos(4)
                            .maxRecvIov(1).maxRequestDtos(4).maxRequestIov(1).maxMessageSize(64)));
            ep.postRecv(1, iov(p.client.lmr, 0, 64), 2, 0);
            assertEquals(1, ep.recvQuery().nbufsAllocated());
            establish(p, ep, p.client.connEvd, p.server.ep, p.server.connEvd);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 3, 0);
            ep.postSend(1, iov(p.client.lmr, 128, 64), 4, 0);
            p.client.expectDto(p.client.reqEvd, 4);
            assertEquals(64, p.server.expectDto(p.server.recvEvd, 3).transferredLength());
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.postSend(1, iov(p.client.lmr, 0, 65), 5, 0));
            ep.disconnect(CloseFlags.ABRUPT);
            ep.free();
        }
    }

    // ====================================================================== errors

    @Test
    @DisplayName("EPC-16: resource exhaustion (the IA's object limit) → INSUFFICIENT_RESOURCES, nothing attached")
    void insufficientResources() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            EventDispatcher conn = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            ProtectionZone pz = ProtectionZone.create(ia);
            ProtectionZone spare = ProtectionZone.create(ia);
            int created = 0;
            try {
                while (true) {
                    ProtectionZone.create(ia);
                    created++;
                }
            } catch (DatException e) {
                assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type(), e.getMessage());
            }
            assertTrue(created > 1000);
            fails(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY,
                    () -> Endpoint.create(ia, pz, null, null, conn, null));
            spare.free();
            // The failed create released its PZ and EVD references; room for one object again.
            Endpoint ep = Endpoint.create(ia, pz, null, null, conn, null);
            ep.free();
            conn.free();
            pz.free();
        }
    }

    @Test
    @DisplayName("EPC-17 AMB-21: a NULL, freed or foreign IA, PZ or EVD handle → INVALID_HANDLE with the handle's subtype")
    void invalidHandles() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            ProtectionZone pz = p.client.pz;
            EventDispatcher r = p.client.recvEvd;
            EventDispatcher q = p.client.reqEvd;
            EventDispatcher c = p.client.connEvd;
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_IA, () -> Endpoint.create(null, pz, r, q, c, null));
            // Freed objects.
            ProtectionZone deadPz = ProtectionZone.create(ia);
            deadPz.free();
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_PZ, () -> Endpoint.create(ia, deadPz, r, q, c, null));
            EventDispatcher dead = EventDispatcher.create(ia, 8, null, EvdFlags.DTO | EvdFlags.CONNECTION);
            dead.free();
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_RECV, () -> Endpoint.create(ia, pz, dead, q, c, null));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, () -> Endpoint.create(ia, pz, r, dead, c, null));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_CONN, () -> Endpoint.create(ia, pz, r, q, dead, null));
            // Objects of another IA.
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_PZ, () -> Endpoint.create(ia, p.server.pz, r, q, c, null));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> Endpoint.create(ia, pz, p.server.recvEvd, q, c, null));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    () -> Endpoint.create(ia, pz, r, p.server.reqEvd, c, null));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    () -> Endpoint.create(ia, pz, r, q, p.server.connEvd, null));
            // EVDs that cannot carry the stream.
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_RECV, () -> Endpoint.create(ia, pz, c, q, c, null));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_CONN, () -> Endpoint.create(ia, pz, r, q, q, null));
            // A closed IA.
            InterfaceAdapter closed = InterfaceAdapter.open("mem", 8, null);
            closed.close(CloseFlags.ABRUPT);
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_IA, () -> Endpoint.create(closed, null, null, null, null, null));
        }
    }

    @Test
    @DisplayName("EPC-18 EPM-19 EPM-20: invalid attribute values → INVALID_PARAMETER (INVALID_ARG6)")
    void invalidAttributes() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            List<UnaryOperator<EpAttr>> bad = List.of(
                    a -> a.serviceType(null),
                    a -> a.qos(0x10),
                    a -> a.maxMessageSize(-1),
                    a -> a.maxMessageSize(Long.MAX_VALUE),
                    a -> a.maxRdmaSize(-1),
                    a -> a.maxRdmaSize(Long.MAX_VALUE),
                    a -> a.recvCompletionFlags(CompletionFlags.SUPPRESS),
                    a -> a.recvCompletionFlags(CompletionFlags.BARRIER_FENCE),
                    a -> a.recvCompletionFlags(CompletionFlags.SOLICITED_WAIT | CompletionFlags.UNSIGNALLED),
                    a -> a.recvCompletionFlags(0x40),
                    a -> a.requestCompletionFlags(CompletionFlags.SOLICITED_WAIT),
                    a -> a.requestCompletionFlags(CompletionFlags.SUPPRESS),
                    a -> a.requestCompletionFlags(CompletionFlags.BARRIER_FENCE),
                    a -> a.maxRecvDtos(-1),
                    a -> a.maxRecvDtos(Integer.MAX_VALUE),
                    a -> a.maxRequestDtos(-1),
                    a -> a.maxRequestDtos(Integer.MAX_VALUE),
                    a -> a.maxRecvIov(-1),
                    a -> a.maxRecvIov(Integer.MAX_VALUE),
                    a -> a.maxRequestIov(Integer.MAX_VALUE),
                    a -> a.maxRdmaReadIn(-1),
                    a -> a.maxRdmaReadIn(Integer.MAX_VALUE),
                    a -> a.maxRdmaReadOut(Integer.MAX_VALUE),
                    a -> a.maxRdmaReadIov(Integer.MAX_VALUE),
                    a -> a.maxRdmaWriteIov(-1),
                    a -> a.srqSoftHw(-5),
                    a -> a.epTransportSpecific(List.of(new NamedAttr("x", "y"))),
                    a -> a.epProviderSpecific(List.of(new NamedAttr("x", "y"))));
            for (UnaryOperator<EpAttr> f : bad) {
                EpAttr a = f.apply(ia.defaultEpAttr());
                invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, p.client.recvEvd,
                        p.client.reqEvd, p.client.connEvd, a));
            }
            // Boundary values are accepted.
            Endpoint.create(ia, p.client.pz, null, null, null, ia.defaultEpAttr().maxRdmaReadIn(0).maxRdmaReadOut(0)
                    .srqSoftHw(Dat.HW_DEFAULT)).free();
        }
    }

    @Test
    @DisplayName("EPC-19: a QoS the provider cannot do → MODEL_NOT_SUPPORTED")
    void unsupportedModel() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            for (int qos : new int[] {Qos.ECONOMY, Qos.PREMIUM}) {
                fails(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE,
                        () -> Endpoint.create(ia, p.client.pz, null, null, null, ia.defaultEpAttr().qos(qos)));
            }
            for (int qos : new int[] {Qos.BEST_EFFORT, Qos.HIGH_THROUGHPUT, Qos.LOW_LATENCY}) {
                Endpoint ep = Endpoint.create(ia, p.client.pz, null, null, null, ia.defaultEpAttr().qos(qos));
                assertEquals(qos, ep.query(EpParam.FIELD_EP_ATTR_QOS).epAttr().qos());
                ep.free();
            }
        }
    }

    // ====================================================================== what a new EP can do

    @Test
    @DisplayName("EPC-20 EPC-21 CON-05 CON-09: a new EP connects actively (ACP → C); another new EP accepts a CR without EP")
    void newEpConnectsAndAccepts() {
        try (Pair p = new Pair()) {
            EventDispatcher cc = EventDispatcher.create(p.client.ia, 8, null, EvdFlags.CONNECTION);
            EventDispatcher sc = EventDispatcher.create(p.server.ia, 8, null, EvdFlags.CONNECTION);
            Endpoint cli = Endpoint.create(p.client.ia, p.client.pz, null, null, cc, null);
            Endpoint srv = Endpoint.create(p.server.ia, p.server.pz, null, null, sc, null);
            p.psp = PublicServicePoint.create(p.server.ia, p.qual, p.crEvd, PspFlags.CONSUMER);
            cli.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, cli.getStatus().epState());
            DatEvent cr = p.server.next(p.crEvd);
            assertNull(cr.cr().query(CrParam.FIELD_ALL).localEpHandle(), "consumer CR has no EP");
            cr.cr().accept(srv, 0, null);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.server.next(sc).eventNumber());
            DatEvent est = p.client.next(cc);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, est.eventNumber());
            assertSame(cli, est.ep());
            assertEquals(EpState.CONNECTED, cli.getStatus().epState());
            assertEquals(EpState.CONNECTED, srv.getStatus().epState());
        }
    }

    @Test
    @DisplayName("EPC-22 RSP-03 RSP-04: a new EP bound to an RSP is RESERVED, then PCP on the request, then C on accept")
    void newEpOnRsp() {
        try (Pair p = new Pair()) {
            EventDispatcher sc = EventDispatcher.create(p.server.ia, 8, null, EvdFlags.CONNECTION);
            Endpoint srv = Endpoint.create(p.server.ia, p.server.pz, null, null, sc, null);
            ReservedServicePoint.create(p.server.ia, p.qual, srv, p.crEvd);
            assertEquals(EpState.RESERVED, srv.getStatus().epState());
            p.client.ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
            DatEvent cr = p.server.next(p.crEvd);
            assertNull(cr.spHandle());
            assertSame(srv, cr.cr().query(CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle());
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, srv.getStatus().epState());
            cr.cr().accept(null, 0, null);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.server.next(sc).eventNumber());
            p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    // ====================================================================== EVD sharing rules

    @Test
    @DisplayName("EPC-23 AMB-10: EP streams sharing an EVD must use identical completion flags; a mismatch → INVALID_PARAMETER and nothing attached")
    void sharedEvdNeedsSameFlags() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            ProtectionZone pz = p.client.pz;
            EventDispatcher x = EventDispatcher.create(ia, 32, null, EvdFlags.DTO);
            int def = CompletionFlags.DEFAULT;
            int thr = CompletionFlags.EVD_THRESHOLD;
            Endpoint ep1 = Endpoint.create(ia, pz, x, null, null, flags(ia, def, thr));
            // Another recv stream, another request stream, with other flags: refused.
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, pz, x, null, null, flags(ia, thr, thr)));
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, pz, null, x, null, flags(ia, def, thr)));
            // One EP whose two streams share an EVD with different flags: refused.
            EventDispatcher y = EventDispatcher.create(ia, 32, null, EvdFlags.DTO);
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, pz, y, y, null, flags(ia, def, thr)));
            // Same flags: accepted.
            Endpoint ep2 = Endpoint.create(ia, pz, x, null, null, flags(ia, def, thr));
            Endpoint ep3 = Endpoint.create(ia, pz, null, x, null, flags(ia, thr, def));
            Endpoint ep4 = Endpoint.create(ia, pz, y, y, null, flags(ia, thr, thr));
            // The refusals attached nothing: once the accepted EPs are gone, both EVDs are free.
            for (Endpoint ep : List.of(ep1, ep2, ep3, ep4)) {
                ep.free();
            }
            x.free();
            y.free();
        }
    }

    @Test
    @DisplayName("EPC-24 AMB-10: an EVD that also takes CR, CONNECTION, ASYNC or SOFTWARE events accepts only EVD_THRESHOLD EP streams")
    void mixedEvdNeedsThreshold() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            for (int other : new int[] {EvdFlags.CR, EvdFlags.CONNECTION, EvdFlags.ASYNC, EvdFlags.SOFTWARE}) {
                EventDispatcher m = EventDispatcher.create(ia, 32, null, EvdFlags.DTO | EvdFlags.RMR_BIND | other);
                for (int f : new int[] {CompletionFlags.DEFAULT, CompletionFlags.UNSIGNALLED}) {
                    invalidParam(DatReturnSubtype.INVALID_ARG6,
                            () -> Endpoint.create(ia, p.client.pz, m, null, null, flags(ia, f, CompletionFlags.EVD_THRESHOLD)));
                    invalidParam(DatReturnSubtype.INVALID_ARG6,
                            () -> Endpoint.create(ia, p.client.pz, null, m, null, flags(ia, CompletionFlags.EVD_THRESHOLD, f)));
                }
                invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, m, null, null,
                        flags(ia, CompletionFlags.SOLICITED_WAIT, CompletionFlags.EVD_THRESHOLD)));
                Endpoint ok = Endpoint.create(ia, p.client.pz, m, m, other == EvdFlags.CONNECTION ? m : null,
                        flags(ia, CompletionFlags.EVD_THRESHOLD, CompletionFlags.EVD_THRESHOLD));
                ok.free();
                m.free();
            }
            // The all-streams default EVD as well.
            EventDispatcher all = EventDispatcher.create(ia, 32, null, EvdFlags.DEFAULT);
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, all, all, all,
                    flags(ia, CompletionFlags.DEFAULT, CompletionFlags.DEFAULT)));
            Endpoint.create(ia, p.client.pz, all, all, all, null).free();
            all.free();
        }
    }

    @Test
    @DisplayName("EPC-25: once an UNSIGNALLED stream feeds an EVD, every EP stream on it must be UNSIGNALLED")
    void unsignalledEvd() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            int uns = CompletionFlags.UNSIGNALLED;
            int def = CompletionFlags.DEFAULT;
            EventDispatcher x = EventDispatcher.create(ia, 32, null, EvdFlags.DTO);
            Endpoint ep1 = Endpoint.create(ia, p.client.pz, x, null, null, flags(ia, uns, def));
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, null, x, null, flags(ia, uns, def)));
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, x, null, null, flags(ia, def, def)));
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, null, x, null,
                    flags(ia, uns, CompletionFlags.EVD_THRESHOLD)));
            Endpoint ep2 = Endpoint.create(ia, p.client.pz, x, null, null, flags(ia, uns, def));
            Endpoint ep3 = Endpoint.create(ia, p.client.pz, null, x, null, flags(ia, def, uns));
            ep1.free();
            ep2.free();
            ep3.free();
            x.free();
        }
    }

    @Test
    @DisplayName("EPC-26 AMB-10: a SOLICITED_WAIT recv EVD serves only SOLICITED_WAIT recv streams and no other stream type")
    void solicitedWaitEvd() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            int sw = CompletionFlags.SOLICITED_WAIT;
            int thr = CompletionFlags.EVD_THRESHOLD;
            EventDispatcher x = EventDispatcher.create(ia, 32, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            Endpoint ep1 = Endpoint.create(ia, p.client.pz, x, null, null, flags(ia, sw, thr));
            Endpoint ep2 = Endpoint.create(ia, p.client.pz, x, null, null, flags(ia, sw, thr));
            for (int f : new int[] {CompletionFlags.DEFAULT, CompletionFlags.UNSIGNALLED, thr}) {
                invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, null, x, null, flags(ia, sw, f)));
                invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, x, null, null, flags(ia, f, thr)));
            }
            // The same EP's request stream on its SOLICITED_WAIT recv EVD.
            EventDispatcher y = EventDispatcher.create(ia, 32, null, EvdFlags.DTO);
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, y, y, null, flags(ia, sw, thr)));
            // An EVD that can carry another stream type (connection requests).
            EventDispatcher z = EventDispatcher.create(ia, 32, null, EvdFlags.DTO | EvdFlags.CR);
            invalidParam(DatReturnSubtype.INVALID_ARG6, () -> Endpoint.create(ia, p.client.pz, z, null, null, flags(ia, sw, thr)));
            ep1.free();
            ep2.free();
            x.free();
            y.free();
            z.free();
        }
    }
}
