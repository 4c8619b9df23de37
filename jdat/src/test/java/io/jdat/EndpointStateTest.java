package io.jdat;

import static io.jdat.testing.EpAssert.empty;
import static io.jdat.testing.EpAssert.invalidHandle;
import static io.jdat.testing.EpAssert.invalidState;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.EpStateFixture;
import io.jdat.testing.EpStateFixture.St;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The EP state machine (API.md §7): the legality of every call in every main state (§7.3), the
 * UNCONFIGURED variants (§7.1), {@code dat_ep_free} (EPF), {@code dat_ep_reset} (RST) and
 * {@code dat_ep_query / get_status / dup_connect} (EPQ).
 */
class EndpointStateTest {
    private static final int TIMEOUT = EpStateFixture.TIMEOUT;

    private static LmrTriplet[] iov(Lmr lmr, long offset, long length) {
        return new LmrTriplet[] {lmr.triplet(offset, length)};
    }

    /** Waits for the next event on {@code evd} and checks its number. */
    private static DatEvent expect(EpStateFixture fx, EventDispatcher evd, EventNumber n) {
        DatEvent e = fx.next(evd);
        assertEquals(n, e.eventNumber(), () -> "event " + e);
        return e;
    }

    private static void expectDto(EpStateFixture fx, EventDispatcher evd, long cookie, DtoCompletionStatus status) {
        DatEvent e = expect(fx, evd, EventNumber.DTO_COMPLETION_EVENT);
        assertEquals(cookie, e.userCookie());
        assertEquals(status, e.status(), () -> "status of " + e);
    }

    // ====================================================================== §7.3, one call per test

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPC-03 EPQ-01 EPQ-04 AMB-28: ep_query, ep_get_status and the consumer context work in every state")
    void queryStatusContextEverywhere(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            EpParam p = fx.ep.query(EpParam.FIELD_ALL);
            assertEquals(st.epState, p.epState());
            assertSame(fx.ia, p.iaHandle());
            assertSame(fx.pz, p.pzHandle());
            assertSame(fx.recvEvd, p.recvEvdHandle());
            assertSame(fx.reqEvd, p.requestEvdHandle());
            assertSame(fx.connEvd, p.connectEvdHandle());
            assertEquals(st.epState, fx.ep.getStatus().epState());
            Object ctx = new Object();
            fx.ep.setConsumerContext(ctx);
            assertSame(ctx, fx.ep.getConsumerContext());
            assertEquals(HandleType.EP, fx.ep.getHandleType());
            assertEquals(st.epState, fx.state(), "query and status change nothing");
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("CON-05 CON-16: ep_connect is legal only in U (→ ACP); elsewhere INVALID_STATE with the EP-state subtype")
    void connectLegality(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            if (st == St.U) {
                PublicServicePoint.create(fx.pair.server.ia, fx.pair.qual, fx.pair.crEvd, PspFlags.CONSUMER);
                fx.ep.connect(Pair.address(), fx.pair.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
                assertEquals(EpState.ACTIVE_CONNECTION_PENDING, fx.state());
                expect(fx, fx.pair.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
                return;
            }
            invalidState(st.subtype, () -> fx.ep.connect(Pair.address(), Pair.freshQual(), TIMEOUT, 0, null,
                    Qos.BEST_EFFORT, 0));
            assertEquals(st.epState, fx.state());
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPQ-05 EPQ-06: ep_dup_connect is legal only on an EP in U (→ ACP, same remote end); elsewhere INVALID_STATE")
    void dupConnectLegality(St st) {
        try (EpStateFixture fx = EpStateFixture.withExtras(st)) {
            if (st == St.U) {
                fx.ep.dupConnect(fx.dupEp, TIMEOUT, 0, null, Qos.BEST_EFFORT);
                assertEquals(EpState.ACTIVE_CONNECTION_PENDING, fx.state());
                DatEvent cr = expect(fx, fx.dupPair.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
                assertEquals(fx.dupPair.qual, cr.connQual(), "the dup EP's remote qualifier");
                EpParam p = fx.ep.query(EpParam.FIELD_ALL);
                assertEquals(fx.dupPair.qual, p.remotePortQual());
                assertEquals(Pair.address(), p.remoteIaAddress());
                return;
            }
            invalidState(st.subtype, () -> fx.ep.dupConnect(fx.dupEp, TIMEOUT, 0, null, Qos.BEST_EFFORT));
            assertEquals(st.epState, fx.state());
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPC-22 RSP-01: rsp_create(ep) is legal only in U (→ R); elsewhere INVALID_STATE and nothing listens")
    void rspCreateLegality(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            EventDispatcher crEvd = EventDispatcher.create(fx.ia, 8, null, EvdFlags.CR);
            long q = Pair.freshQual();
            if (st == St.U) {
                ReservedServicePoint rsp = ReservedServicePoint.create(fx.ia, q, fx.ep, crEvd);
                assertEquals(EpState.RESERVED, fx.state());
                assertSame(fx.ep, rsp.query(RspParam.FIELD_ALL).epHandle());
                return;
            }
            invalidState(st.subtype, () -> ReservedServicePoint.create(fx.ia, q, fx.ep, crEvd));
            assertEquals(st.epState, fx.state());
            // The refused RSP left the qualifier free.
            PublicServicePoint.create(fx.ia, q, crEvd, PspFlags.CONSUMER).free();
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPC-21 AMB-16 CRA-05: cr_accept of a consumer CR is legal only with an EP in U; elsewhere INVALID_STATE and the CR stays usable")
    void acceptConsumerCrLegality(St st) {
        try (EpStateFixture fx = EpStateFixture.withExtras(st)) {
            if (st == St.U) {
                fx.spareCr.accept(fx.ep, 0, null);
                expect(fx, fx.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertEquals(EpState.CONNECTED, fx.state());
                return;
            }
            invalidState(st.subtype, () -> fx.spareCr.accept(fx.ep, 0, null));
            assertEquals(st.epState, fx.state());
            fx.spareCr.reject(); // still a live CR (CRA-05)
        }
    }

    @ParameterizedTest
    @EnumSource(value = St.class, names = {"PCP", "TCP"})
    @DisplayName("EPC-22 RSP-04 PSP-04: cr_accept of the CR that carries the EP is legal in PCP and TCP (→ CP → C)")
    void acceptOwnCr(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            fx.cr.accept(null, 0, null);
            expect(fx, fx.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, fx.state());
            fx.pair.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("DSC-09 DSC-11 DSC-13 DSC-14 DSC-15: ep_disconnect (abrupt and graceful) per state: INVALID_STATE in U/R/PCP/TCP, → D in ACP/CP/C, no-op in D")
    void disconnectLegality(St st) {
        for (int flags : new int[] {CloseFlags.ABRUPT, CloseFlags.GRACEFUL}) {
            if (st == St.DP) {
                continue; // disconnectInDisconnectPending
            }
            try (EpStateFixture fx = EpStateFixture.of(st)) {
                switch (st) {
                    case U, R, PCP, TCP -> {
                        invalidState(st.subtype, () -> fx.ep.disconnect(flags));
                        assertEquals(st.epState, fx.state());
                    }
                    case ACP, CP, C -> {
                        fx.ep.disconnect(flags);
                        assertEquals(EpState.DISCONNECTED, fx.state());
                        expect(fx, fx.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                    }
                    case D -> {
                        fx.ep.disconnect(flags);
                        assertEquals(EpState.DISCONNECTED, fx.state());
                        empty(fx.connEvd);
                    }
                    default -> throw new AssertionError(st);
                }
            }
        }
    }

    @Test
    @DisplayName("DSC-06 DSC-07 DSC-08 AMB-15: in DP a graceful disconnect is a no-op, an abrupt one moves to D and flushes the waiting send")
    void disconnectInDisconnectPending() {
        try (EpStateFixture fx = EpStateFixture.of(St.DP)) {
            assertFalse(fx.ep.getStatus().requestIdle());
            fx.ep.disconnect(CloseFlags.GRACEFUL);
            assertEquals(EpState.DISCONNECT_PENDING, fx.state());
            fx.ep.disconnect(CloseFlags.ABRUPT);
            assertEquals(EpState.DISCONNECTED, fx.state());
            expectDto(fx, fx.reqEvd, 0xD0, DtoCompletionStatus.ERR_FLUSHED);
            expect(fx, fx.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertTrue(fx.ep.getStatus().requestIdle());
        }
    }

    @Test
    @DisplayName("DSC-06 DSC-11: DP ends in D with the send completed successfully once the peer posts a receive")
    void disconnectPendingDrains() {
        try (EpStateFixture fx = EpStateFixture.of(St.DP)) {
            fx.pair.server.ep.postRecv(1, iov(fx.pair.server.lmr, 0, 64), 5, 0);
            expectDto(fx, fx.reqEvd, 0xD0, DtoCompletionStatus.SUCCESS);
            expect(fx, fx.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, fx.state());
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("RST-01 RST-03 RST-04 RST-05: ep_reset is a no-op in U, D → U, INVALID_STATE elsewhere")
    void resetLegality(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            switch (st) {
                case U -> {
                    fx.ep.reset();
                    assertEquals(EpState.UNCONNECTED, fx.state());
                }
                case D -> {
                    fx.ep.reset();
                    assertEquals(EpState.UNCONNECTED, fx.state());
                }
                default -> {
                    invalidState(st.subtype, fx.ep::reset);
                    assertEquals(st.epState, fx.state());
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPF-01 EPF-08 EPF-09: ep_free is legal except in R, PCP and TCP (INVALID_STATE); a freed handle is INVALID_HANDLE")
    void freeLegality(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            if (st == St.R || st == St.PCP || st == St.TCP) {
                invalidState(st.subtype, fx.ep::free);
                assertEquals(st.epState, fx.state());
                return;
            }
            fx.ep.free();
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, fx.ep::getStatus);
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("SND-06 RDR-09 RWR-05 RMB-11 DSC-10: send, RDMA read/write and rmr_bind work in C, flush at once in D, INVALID_STATE elsewhere")
    void requestPostLegality(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            Rmr rmr = Rmr.create(fx.pz);
            RmrTriplet remote = fx.other.lmr.remoteTriplet(0, 8);
            if (st == St.C) {
                fx.other.ep.postRecv(1, iov(fx.other.lmr, 0, 64), 50, 0);
                fx.ep.postSend(1, iov(fx.lmr, 0, 8), 1, 0);
                expectDto(fx, fx.reqEvd, 1, DtoCompletionStatus.SUCCESS);
                fx.ep.postRdmaWrite(1, iov(fx.lmr, 0, 8), 2, remote, 0);
                expectDto(fx, fx.reqEvd, 2, DtoCompletionStatus.SUCCESS);
                fx.ep.postRdmaRead(1, iov(fx.lmr, 64, 8), 3, remote, 0);
                expectDto(fx, fx.reqEvd, 3, DtoCompletionStatus.SUCCESS);
                rmr.bind(fx.lmr.triplet(0, 64), MemPriv.REMOTE_READ, fx.ep, 4, 0);
                DatEvent b = expect(fx, fx.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
                assertEquals(4, b.userCookie());
                assertEquals(DtoCompletionStatus.SUCCESS, b.status());
            } else if (st == St.D) {
                fx.ep.postSend(1, iov(fx.lmr, 0, 8), 1, CompletionFlags.SUPPRESS);
                expectDto(fx, fx.reqEvd, 1, DtoCompletionStatus.ERR_FLUSHED);
                fx.ep.postRdmaWrite(1, iov(fx.lmr, 0, 8), 2, remote, 0);
                expectDto(fx, fx.reqEvd, 2, DtoCompletionStatus.ERR_FLUSHED);
                fx.ep.postRdmaRead(1, iov(fx.lmr, 64, 8), 3, remote, 0);
                expectDto(fx, fx.reqEvd, 3, DtoCompletionStatus.ERR_FLUSHED);
                rmr.bind(fx.lmr.triplet(0, 64), MemPriv.REMOTE_READ, fx.ep, 4, 0);
                DatEvent b = expect(fx, fx.reqEvd, EventNumber.RMR_BIND_COMPLETION_EVENT);
                assertEquals(4, b.userCookie());
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, b.status());
            } else {
                invalidState(st.subtype, () -> fx.ep.postSend(1, iov(fx.lmr, 0, 8), 1, 0));
                invalidState(st.subtype, () -> fx.ep.postRdmaWrite(1, iov(fx.lmr, 0, 8), 2, remote, 0));
                invalidState(st.subtype, () -> fx.ep.postRdmaRead(1, iov(fx.lmr, 64, 8), 3, remote, 0));
                invalidState(st.subtype, () -> rmr.bind(fx.lmr.triplet(0, 64), MemPriv.REMOTE_READ, fx.ep, 4, 0));
                assertEquals(st.epState, fx.state());
                if (fx.reqEvd != null && st != St.DP) {
                    empty(fx.reqEvd);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("RCV-07 RCV-08 AMB-12 ERQ-02 EPQ-04: post_recv is legal in every state (queued; flushed at once in D)")
    void postRecvEverywhere(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            fx.ep.postRecv(1, iov(fx.lmr, 0, 64), 77, 0);
            assertEquals(st.epState, fx.state());
            if (st == St.D) {
                expectDto(fx, fx.recvEvd, 77, DtoCompletionStatus.ERR_FLUSHED);
                assertTrue(fx.ep.getStatus().recvIdle());
                assertEquals(0, fx.ep.recvQuery().nbufsAllocated());
            } else {
                assertFalse(fx.ep.getStatus().recvIdle());
                assertEquals(1, fx.ep.recvQuery().nbufsAllocated());
                empty(fx.recvEvd);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPW-04 ERQ-01: ep_set_watermark and ep_recv_query work in every state")
    void watermarkAndRecvQueryEverywhere(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            fx.ep.setWatermark(Dat.WATERMARK_INFINITE, Dat.WATERMARK_INFINITE);
            Endpoint.RecvQueryResult r = fx.ep.recvQuery();
            assertEquals(0, r.nbufsAllocated());
            assertTrue(r.bufsAllocSpan() >= r.nbufsAllocated());
            assertEquals(st.epState, fx.state());
        }
    }

    // ====================================================================== CP and ACP specifics

    @Test
    @DisplayName("CRA-06: an accepted EP passes through CP and reaches C when the transport completes")
    void completionPendingCompletes() {
        try (EpStateFixture fx = EpStateFixture.of(St.CP)) {
            assertEquals(EpState.COMPLETION_PENDING, fx.state());
            fx.releaseCp();
            expect(fx, fx.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, fx.state());
        }
    }

    @Test
    @DisplayName("DSC-15: a disconnect in ACP aborts the establishment and flushes receives posted before it")
    void disconnectInActivePendingFlushesReceives() {
        try (EpStateFixture fx = EpStateFixture.of(St.ACP)) {
            fx.ep.postRecv(1, iov(fx.lmr, 0, 64), 31, 0);
            fx.ep.disconnect(CloseFlags.ABRUPT);
            expectDto(fx, fx.recvEvd, 31, DtoCompletionStatus.ERR_FLUSHED);
            expect(fx, fx.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            // The pending request can no longer complete: accepting it fails on the server side.
            fx.cr.accept(fx.pair.server.ep, 0, null);
            fx.pair.server.expectConn(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, fx.pair.server.ep.getStatus().epState());
        }
    }

    // ====================================================================== UNCONFIGURED variants (§7.1)

    @Test
    @DisplayName("EPC-12 CON-25 AMB-28: an EP without PZ or without connect EVD is UNCONFIGURED_UNCONNECTED; connect → INVALID_STATE EP_NOTREADY")
    void unconfiguredUnconnected() {
        try (Pair p = new Pair()) {
            Endpoint noPz = Endpoint.create(p.client.ia, null, null, null, p.client.connEvd, null);
            Endpoint noConn = Endpoint.create(p.client.ia, p.client.pz, null, null, null, null);
            for (Endpoint ep : List.of(noPz, noConn)) {
                assertEquals(EpState.UNCONFIGURED_UNCONNECTED, ep.getStatus().epState());
                assertEquals(EpState.UNCONFIGURED_UNCONNECTED, ep.query(EpParam.FIELD_EP_STATE).epState());
                invalidState(DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                        () -> ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0));
                assertEquals(EpState.UNCONFIGURED_UNCONNECTED, ep.getStatus().epState());
            }
            noPz.modify(EpParam.FIELD_PZ_HANDLE, new EpParam().pzHandle(p.client.pz));
            noConn.modify(EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().connectEvdHandle(p.client.connEvd));
            assertEquals(EpState.UNCONNECTED, noPz.getStatus().epState());
            assertEquals(EpState.UNCONNECTED, noConn.getStatus().epState());
            // Removing the connect EVD again makes it unconfigured again.
            noConn.modify(EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().connectEvdHandle(null));
            assertEquals(EpState.UNCONFIGURED_UNCONNECTED, noConn.getStatus().epState());
        }
    }

    @Test
    @DisplayName("AMB-28 RSP-03 CON-25: UNCONFIGURED_RESERVED → UNCONFIGURED_PASSIVE; accept → EP_NOTREADY until modify adds the connect EVD")
    void unconfiguredReservedAndPassive() {
        try (Pair p = new Pair()) {
            Endpoint ep = Endpoint.create(p.server.ia, p.server.pz, null, null, null, null);
            ReservedServicePoint.create(p.server.ia, p.qual, ep, p.crEvd);
            assertEquals(EpState.UNCONFIGURED_RESERVED, ep.getStatus().epState());
            p.client.ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
            ConnectionRequest cr = p.server.next(p.crEvd).cr();
            assertEquals(EpState.UNCONFIGURED_PASSIVE, ep.getStatus().epState());
            invalidState(DatReturnSubtype.INVALID_STATE_EP_NOTREADY, () -> cr.accept(null, 0, null));
            assertEquals(EpState.UNCONFIGURED_PASSIVE, ep.getStatus().epState());
            EventDispatcher conn = EventDispatcher.create(p.server.ia, 8, null, EvdFlags.CONNECTION);
            ep.modify(EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().connectEvdHandle(conn));
            assertEquals(EpState.PASSIVE_CONNECTION_PENDING, ep.getStatus().epState());
            cr.accept(null, 0, null);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.server.next(conn).eventNumber());
            p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("PSP-04 AMB-28 EPM-09 EPM-13: a provider EP is UNCONFIGURED_TENTATIVE; accept → EP_NOTREADY until modify sets PZ and connect EVD")
    void unconfiguredTentative() {
        try (EpStateFixture fx = EpStateFixture.unconfiguredTcp()) {
            Endpoint ep = fx.ep;
            EpParam p = ep.query(EpParam.FIELD_ALL);
            assertEquals(EpState.UNCONFIGURED_TENTATIVE, p.epState());
            assertNull(p.pzHandle());
            assertNull(p.connectEvdHandle());
            assertNull(p.recvEvdHandle());
            assertNull(p.requestEvdHandle());
            invalidState(DatReturnSubtype.INVALID_STATE_EP_NOTREADY, () -> fx.cr.accept(null, 0, null));
            ep.modify(EpParam.FIELD_PZ_HANDLE, new EpParam().pzHandle(fx.pair.server.pz));
            assertEquals(EpState.UNCONFIGURED_TENTATIVE, ep.getStatus().epState(), "still no connect EVD");
            EventDispatcher conn = EventDispatcher.create(fx.ia, 8, null, EvdFlags.CONNECTION);
            ep.modify(EpParam.FIELD_CONNECT_EVD_HANDLE, new EpParam().connectEvdHandle(conn));
            assertEquals(EpState.TENTATIVE_CONNECTION_PENDING, ep.getStatus().epState());
            fx.cr.accept(null, 0, null);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, fx.next(conn).eventNumber());
            fx.pair.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, ep.getStatus().epState());
        }
    }

    // ====================================================================== dat_ep_free (EPF)

    @Test
    @DisplayName("EPF-02 EPF-07 EPF-11: freeing a connected EP with receives posted: its completions are FLUSHED or gone, its EVDs and PZ become freeable, the peer sees DISCONNECTED")
    void freeConnectedWithWork() {
        try (Pair p = new Pair()) {
            ProtectionZone pz = ProtectionZone.create(p.client.ia);
            EventDispatcher recv = EventDispatcher.create(p.client.ia, 16, null, EvdFlags.DTO);
            EventDispatcher req = EventDispatcher.create(p.client.ia, 16, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(p.client.ia, 16, null, EvdFlags.CONNECTION);
            Endpoint ep = Endpoint.create(p.client.ia, pz, recv, req, conn, null);
            Lmr lmr = Lmr.create(p.client.ia, MemType.VIRTUAL,
                    RegionDescription.forVa(p.client.arena.allocate(4096, 256)), 4096, pz, MemPriv.ALL);
            PublicServicePoint.create(p.server.ia, p.qual, p.crEvd, PspFlags.CONSUMER);
            ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
            p.server.next(p.crEvd).cr().accept(p.server.ep, 0, null);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.client.next(conn).eventNumber());
            ep.postRecv(1, iov(lmr, 0, 64), 1, 0);
            ep.postRecv(1, iov(lmr, 64, 64), 2, 0);
            // Before the free the EVDs and the PZ are in use.
            invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, recv::free);
            invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, req::free);
            invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, conn::free);
            ep.free();
            p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            DatEvent e = new DatEvent();
            List<Long> seen = new ArrayList<>();
            while (recv.dequeue(e)) {
                assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber());
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status());
                seen.add(e.userCookie());
            }
            assertTrue(seen.isEmpty() || seen.equals(List.of(1L)) || seen.equals(List.of(1L, 2L)), seen::toString);
            recv.free();
            req.free();
            conn.free();
            lmr.free();
            pz.free();
        }
    }

    @Test
    @DisplayName("EPF-03: freeing an EP in ACP aborts the setup: the passive side's accept ends in ACCEPT_COMPLETION_ERROR")
    void freeInActivePendingAborts() {
        try (EpStateFixture fx = EpStateFixture.of(St.ACP)) {
            fx.ep.free();
            fx.cr.accept(fx.pair.server.ep, 0, null);
            fx.pair.server.expectConn(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, fx.pair.server.ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("EPF-03: freeing an EP in CP aborts the setup: the active side does not stay connected")
    void freeInCompletionPendingAborts() {
        try (EpStateFixture fx = EpStateFixture.of(St.CP)) {
            fx.ep.free();
            fx.releaseCp();
            EventDispatcher clientConn = fx.pair.client.ep.query(EpParam.FIELD_CONNECT_EVD_HANDLE).connectEvdHandle();
            DatEvent e = fx.next(clientConn);
            if (e.eventNumber() == EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                e = fx.next(clientConn); // the active side may complete first, then lose the connection
            }
            assertTrue(e.eventNumber() == EventNumber.CONNECTION_EVENT_BROKEN
                    || e.eventNumber() == EventNumber.CONNECTION_EVENT_DISCONNECTED, e::toString);
            assertEquals(EpState.DISCONNECTED, fx.pair.client.ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("EPF-04 RSP-07: an EP in R becomes freeable after rsp_free (back to U)")
    void freeAfterRspFree() {
        try (EpStateFixture fx = EpStateFixture.of(St.R)) {
            invalidState(DatReturnSubtype.INVALID_STATE_EP_RESERVED, fx.ep::free);
            fx.rsp.free();
            assertEquals(EpState.UNCONNECTED, fx.state());
            fx.ep.free();
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, fx.ep::getStatus);
        }
    }

    @Test
    @DisplayName("EPF-05 CRJ-04 CRJ-05: an EP in PCP becomes freeable after cr_reject (back to U); the requester gets PEER_REJECTED")
    void freeAfterRejectPassive() {
        try (EpStateFixture fx = EpStateFixture.of(St.PCP)) {
            invalidState(DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING, fx.ep::free);
            fx.cr.reject();
            assertEquals(EpState.UNCONNECTED, fx.state());
            fx.pair.client.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            fx.ep.free();
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, fx.ep::getStatus);
        }
    }

    @Test
    @DisplayName("EPF-06 CRJ-03 EPF-07: rejecting the CR of a TCP EP returns it to the provider: its handle is invalid, its EVDs are released")
    void rejectTentative() {
        try (EpStateFixture fx = EpStateFixture.of(St.TCP)) {
            invalidState(DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING, fx.ep::free);
            fx.cr.reject();
            fx.pair.client.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, fx.ep::getStatus);
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, fx.ep::free);
            fx.recvEvd.free();
            fx.reqEvd.free();
            fx.connEvd.free();
        }
    }

    @Test
    @DisplayName("EPF-08 EPF-09 EPM-33 RST-05: every call on a freed EP, and the freed EP as an argument, gives INVALID_HANDLE / INVALID_HANDLE_EP")
    void freedHandle() {
        try (Pair p = new Pair().connect()) {
            Endpoint ep = Endpoint.create(p.client.ia, p.client.pz, null, null, p.client.connEvd, null);
            ep.free();
            DatReturnSubtype sub = DatReturnSubtype.INVALID_HANDLE_EP;
            LmrTriplet[] iov = iov(p.client.lmr, 0, 8);
            RmrTriplet remote = p.server.lmr.remoteTriplet(0, 8);
            invalidHandle(sub, () -> ep.query(EpParam.FIELD_ALL));
            invalidHandle(sub, () -> ep.modify(EpParam.FIELD_EP_ATTR_QOS, new EpParam()));
            invalidHandle(sub, () -> ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0));
            invalidHandle(sub, () -> ep.dupConnect(p.client.ep, TIMEOUT, 0, null, Qos.BEST_EFFORT));
            invalidHandle(sub, () -> ep.disconnect(CloseFlags.ABRUPT));
            invalidHandle(sub, () -> ep.postSend(1, iov, 1, 0));
            invalidHandle(sub, () -> ep.postRecv(1, iov, 1, 0));
            invalidHandle(sub, () -> ep.postRdmaRead(1, iov, 1, remote, 0));
            invalidHandle(sub, () -> ep.postRdmaWrite(1, iov, 1, remote, 0));
            invalidHandle(sub, ep::getStatus);
            invalidHandle(sub, ep::reset);
            invalidHandle(sub, ep::recvQuery);
            invalidHandle(sub, () -> ep.setWatermark(1, 2));
            invalidHandle(sub, () -> ep.setConsumerContext("x"));
            invalidHandle(sub, ep::getConsumerContext);
            invalidHandle(sub, ep::getHandleType);
            invalidHandle(sub, ep::free);
            // As an argument of other calls.
            invalidHandle(sub, () -> p.client.ep.dupConnect(ep, TIMEOUT, 0, null, Qos.BEST_EFFORT));
            Endpoint fresh = Endpoint.create(p.client.ia, p.client.pz, null, null, p.client.connEvd, null);
            invalidHandle(sub, () -> fresh.dupConnect(ep, TIMEOUT, 0, null, Qos.BEST_EFFORT));
            EventDispatcher crEvd = EventDispatcher.create(p.client.ia, 8, null, EvdFlags.CR);
            invalidHandle(sub, () -> ReservedServicePoint.create(p.client.ia, Pair.freshQual(), ep, crEvd));
            Rmr rmr = Rmr.create(p.client.pz);
            invalidHandle(sub, () -> rmr.bind(p.client.lmr.triplet(0, 8), MemPriv.REMOTE_READ, ep, 1, 0));
        }
    }

    @Test
    @DisplayName("EPF-10 EPF-11: an unconnected EP with a receive posted can be freed; then its PZ and EVDs can be freed")
    void freeUnconnectedWithReceive() {
        try (Pair p = new Pair()) {
            ProtectionZone pz = ProtectionZone.create(p.client.ia);
            EventDispatcher recv = EventDispatcher.create(p.client.ia, 16, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(p.client.ia, 16, null, EvdFlags.CONNECTION);
            Endpoint ep = Endpoint.create(p.client.ia, pz, recv, null, conn, null);
            Lmr lmr = Lmr.create(p.client.ia, MemType.VIRTUAL,
                    RegionDescription.forVa(p.client.arena.allocate(4096, 256)), 4096, pz, MemPriv.ALL);
            ep.postRecv(1, iov(lmr, 0, 64), 9, 0);
            lmr.free();
            invalidState(DatReturnSubtype.INVALID_STATE_PZ_IN_USE, pz::free);
            ep.free();
            DatEvent e = new DatEvent();
            while (recv.dequeue(e)) {
                assertEquals(9, e.userCookie());
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status());
            }
            pz.free();
            recv.free();
            conn.free();
        }
    }

    // ====================================================================== dat_ep_reset (RST)

    @Test
    @DisplayName("RST-03 ERQ-02: reset in U is a no-op and a posted receive stays posted (it later takes the first message)")
    void resetInUnconnectedKeepsReceives() {
        try (Pair p = new Pair()) {
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 21, 0);
            p.server.ep.reset();
            assertEquals(EpState.UNCONNECTED, p.server.ep.getStatus().epState());
            assertEquals(1, p.server.ep.recvQuery().nbufsAllocated());
            assertFalse(p.server.ep.getStatus().recvIdle());
            p.connect();
            p.client.buf.set(ValueLayout.JAVA_INT, 0, 0x5EED);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 4), 1, 0);
            p.client.expectDto(p.client.reqEvd, 1);
            assertEquals(4, p.server.expectDto(p.server.recvEvd, 21).transferredLength());
            assertEquals(0x5EED, p.server.buf.get(ValueLayout.JAVA_INT, 0));
        }
    }

    @Test
    @DisplayName("RST-06 RCV-08 DSC-17: marker technique: a receive posted in D is flushed after the earlier flushed completions of that EVD")
    void markerTechnique() {
        try (Pair p = new Pair()) {
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, 0);
            p.server.ep.postRecv(1, iov(p.server.lmr, 64, 64), 2, 0);
            p.connect();
            p.client.ep.disconnect(CloseFlags.ABRUPT);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, p.server.ep.getStatus().epState());
            p.server.ep.postRecv(1, iov(p.server.lmr, 128, 64), 99, 0);
            List<Long> cookies = new ArrayList<>();
            DatEvent e;
            do {
                e = p.server.next(p.server.recvEvd);
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status());
                cookies.add(e.userCookie());
            } while (e.userCookie() != 99);
            assertEquals(List.of(1L, 2L, 99L), cookies);
            empty(p.server.recvEvd);
            p.server.ep.reset();
            assertEquals(EpState.UNCONNECTED, p.server.ep.getStatus().epState());
            assertTrue(p.server.ep.getStatus().recvIdle());
        }
    }

    @Test
    @DisplayName("RST-02 RST-01: reset in D with completions not yet dequeued: the EP is U; what remains on the EVD is only those FLUSHED completions")
    void resetWithUndequeuedCompletions() {
        try (EpStateFixture fx = EpStateFixture.of(St.D)) {
            fx.ep.postRecv(1, iov(fx.lmr, 0, 64), 41, 0);
            fx.ep.postSend(1, iov(fx.lmr, 0, 8), 42, 0);
            fx.ep.reset();
            EpParam p = fx.ep.query(EpParam.FIELD_ALL);
            assertEquals(EpState.UNCONNECTED, p.epState());
            assertTrue(fx.ep.getStatus().recvIdle());
            assertTrue(fx.ep.getStatus().requestIdle());
            DatEvent e = new DatEvent();
            while (fx.recvEvd.dequeue(e)) {
                assertEquals(41, e.userCookie());
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status());
            }
            while (fx.reqEvd.dequeue(e)) {
                assertEquals(42, e.userCookie());
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status());
            }
        }
    }

    @Test
    @DisplayName("RST-07: a reset EP can connect again (active side) and accept again (passive side)")
    void resetThenReuse() {
        try (Pair p = new Pair()) {
            p.connect();
            p.client.ep.disconnect(CloseFlags.ABRUPT);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            p.client.ep.reset();
            p.server.ep.reset();
            p.client.ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
            p.server.next(p.crEvd).cr().accept(p.server.ep, 0, null);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 3, 0);
            p.client.buf.set(ValueLayout.JAVA_LONG, 0, 77L);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 4, 0);
            p.client.expectDto(p.client.reqEvd, 4);
            p.server.expectDto(p.server.recvEvd, 3);
            assertEquals(77L, p.server.buf.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    @Test
    @DisplayName("RST-07 CRJ-05: an EP reset after PEER_REJECTED can retry its connection")
    void resetAfterRejectRetries() {
        try (Pair p = new Pair()) {
            p.psp = PublicServicePoint.create(p.server.ia, p.qual, p.crEvd, PspFlags.CONSUMER);
            p.client.ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
            p.server.next(p.crEvd).cr().reject();
            p.client.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, p.client.ep.getStatus().epState());
            p.client.ep.reset();
            p.client.ep.connect(Pair.address(), p.qual, TIMEOUT, 0, null, Qos.BEST_EFFORT, 0);
            p.server.next(p.crEvd).cr().accept(p.server.ep, 0, null);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("RST-08: reset keeps the (non-SRQ) EP's srq_handle and its configuration")
    void resetKeepsAssociation() {
        try (EpStateFixture fx = EpStateFixture.of(St.D)) {
            EpParam before = fx.ep.query(EpParam.FIELD_ALL);
            assertNull(before.srqHandle());
            fx.ep.reset();
            EpParam after = fx.ep.query(EpParam.FIELD_ALL);
            assertNull(after.srqHandle());
            assertSame(before.pzHandle(), after.pzHandle());
            assertSame(before.recvEvdHandle(), after.recvEvdHandle());
            assertSame(before.requestEvdHandle(), after.requestEvdHandle());
            assertSame(before.connectEvdHandle(), after.connectEvdHandle());
            assertEquals(before.epAttr().toString(), after.epAttr().toString());
        }
    }

    // ====================================================================== query, status, dup_connect (EPQ)

    @Test
    @DisplayName("EPQ-01: ep_query with undefined mask bits → INVALID_PARAMETER (INVALID_ARG2); each defined bit alone works")
    void queryMask() {
        try (Pair p = new Pair()) {
            Endpoint ep = p.client.ep;
            for (long bad : new long[] {0x800L, 1L << 31, 1L << 40, -1L}) {
                io.jdat.testing.EpAssert.invalidParam(DatReturnSubtype.INVALID_ARG2, () -> ep.query(bad));
            }
            for (int bit = 0; bit < 31; bit++) {
                long m = 1L << bit;
                if ((m & EpParam.FIELD_ALL) == 0) {
                    continue;
                }
                EpParam q = ep.query(m);
                if (m == EpParam.FIELD_EP_STATE) {
                    assertEquals(EpState.UNCONNECTED, q.epState());
                } else if (m == EpParam.FIELD_IA_HANDLE) {
                    assertSame(p.client.ia, q.iaHandle());
                } else if (m == EpParam.FIELD_PZ_HANDLE) {
                    assertSame(p.client.pz, q.pzHandle());
                } else if (m == EpParam.FIELD_LOCAL_IA_ADDRESS_PTR) {
                    assertEquals(Pair.address(), q.localIaAddress());
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = St.class, names = {"PCP", "ACP", "TCP", "CP", "C", "DP"})
    @DisplayName("EPQ-02 EPQ-03 CON-03: remote address/port and local port qualifier are meaningful in PCP, ACP, TCP, CP, C, DP")
    void addressesInConnectionStates(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            EpParam p = fx.ep.query(EpParam.FIELD_ALL);
            assertEquals(Pair.address(), p.remoteIaAddress());
            assertEquals(Pair.address(), p.localIaAddress());
            if (st.onServer()) {
                // Passive side: the local port is the listened qualifier, the remote one the requester's port.
                assertEquals(fx.pair.qual, p.localPortQual(), "local_port_qual");
                assertEquals(fx.requesterPort, p.remotePortQual(), "remote_port_qual");
            } else {
                long port = st == St.ACP ? fx.requesterPort
                        : fx.pair.server.ep.query(EpParam.FIELD_REMOTE_PORT_QUAL).remotePortQual();
                assertEquals(fx.pair.qual, p.remotePortQual(), "remote_port_qual");
                assertEquals(port, p.localPortQual(), "local_port_qual = the CR's remote_port_qual (CON-03)");
                assertTrue(port != 0);
            }
        }
    }

    @Test
    @DisplayName("EPQ-04: get_status reports recv_idle and request_idle as snapshots of outstanding work")
    void statusIdleFlags() {
        try (Pair p = new Pair()) {
            Endpoint.Status s = p.client.ep.getStatus();
            assertEquals(new Endpoint.Status(EpState.UNCONNECTED, true, true), s);
            p.connect();
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 1, 0); // no receive at the peer yet: outstanding
            assertEquals(new Endpoint.Status(EpState.CONNECTED, true, false), p.client.ep.getStatus());
            p.client.ep.postRecv(1, iov(p.client.lmr, 64, 64), 2, 0);
            assertEquals(new Endpoint.Status(EpState.CONNECTED, false, false), p.client.ep.getStatus());
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 3, 0);
            p.client.expectDto(p.client.reqEvd, 1);
            p.server.expectDto(p.server.recvEvd, 3);
            assertEquals(new Endpoint.Status(EpState.CONNECTED, false, true), p.client.ep.getStatus());
            assertEquals(new Endpoint.Status(EpState.CONNECTED, true, true), p.server.ep.getStatus());
        }
    }

    @Test
    @DisplayName("EPQ-05 CON-09 EPC-20: dup_connect reaches the dup EP's remote qualifier and the new EP connects")
    void dupConnectConnects() {
        try (Pair p = new Pair()) {
            p.connect();
            EventDispatcher conn = EventDispatcher.create(p.client.ia, 8, null, EvdFlags.CONNECTION);
            Endpoint ep = Endpoint.create(p.client.ia, p.client.pz, null, null, conn, null);
            ep.dupConnect(p.client.ep, TIMEOUT, 2, new byte[] {4, 2}, Qos.BEST_EFFORT);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, ep.getStatus().epState());
            DatEvent cr = p.server.next(p.crEvd);
            assertEquals(p.qual, cr.connQual());
            assertSame(p.psp, cr.spHandle());
            CrParam crp = cr.cr().query(CrParam.FIELD_ALL);
            assertEquals(2, crp.privateDataSize());
            Endpoint srv = Endpoint.create(p.server.ia, p.server.pz, null, null, p.server.connEvd, null);
            cr.cr().accept(srv, 0, null);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, p.client.next(conn).eventNumber());
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            EpParam q = ep.query(EpParam.FIELD_ALL);
            assertEquals(EpState.CONNECTED, q.epState());
            assertEquals(p.qual, q.remotePortQual());
            assertEquals(Pair.address(), q.remoteIaAddress());
            assertEquals(crp.remotePortQual(), q.localPortQual());
        }
    }

    @Test
    @DisplayName("EPQ-06: dup_connect with a dup EP that is not connected → INVALID_STATE (the dup EP's state subtype)")
    void dupConnectUnconnectedDup() {
        try (Pair p = new Pair()) {
            Endpoint ep = Endpoint.create(p.client.ia, p.client.pz, null, null, p.client.connEvd, null);
            invalidState(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> ep.dupConnect(p.client.ep, TIMEOUT, 0, null, Qos.BEST_EFFORT));
            assertEquals(EpState.UNCONNECTED, ep.getStatus().epState());
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, () -> ep.dupConnect(null, TIMEOUT, 0, null, Qos.BEST_EFFORT));
        }
    }

    @Test
    @DisplayName("EPQ-06: dup_connect with a disconnected dup EP → INVALID_STATE EP_DISCONNECTED")
    void dupConnectDisconnectedDup() {
        try (EpStateFixture fx = EpStateFixture.of(St.D)) {
            Endpoint ep = Endpoint.create(fx.ia, fx.pz, null, null, EventDispatcher.create(fx.ia, 4, null,
                    EvdFlags.CONNECTION), null);
            invalidState(DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED,
                    () -> ep.dupConnect(fx.ep, TIMEOUT, 0, null, Qos.BEST_EFFORT));
            assertNotNull(ep.getStatus());
        }
    }
}
