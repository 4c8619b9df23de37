package io.jdat;

import static io.jdat.testing.ConnFixture.assertDat;
import static io.jdat.testing.ConnFixture.assertNoEvent;
import static io.jdat.testing.ConnFixture.cmBarrier;
import static io.jdat.testing.ConnFixture.expect;
import static io.jdat.testing.ConnFixture.mem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.ConnFixture.CmGate;
import io.jdat.testing.ConnFixture.Ep;
import io.jdat.testing.ConnFixture.Node;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_ep_disconnect}, the peer's view of it, broken connections and the flush rules of API.md §7.5. */
class DisconnectTest {
    private static final DatReturnType STATE = DatReturnType.INVALID_STATE;

    /** Connects {@code c} (on its node) to {@code s} through a fresh PSP on {@code s}'s node. */
    private static void connect(Ep c, Ep s) {
        long qual = Pair.freshQual();
        PublicServicePoint psp = PublicServicePoint.create(s.node.ia, qual, s.node.crEvd, PspFlags.CONSUMER);
        c.connect(qual, null);
        expect(s.node.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr().accept(s.ep, 0, null);
        c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        psp.free();
    }

    @Test
    @DisplayName("DSC-01 DSC-16: ABRUPT (0) and GRACEFUL (1) only; other flags -> INVALID_PARAMETER; freed EP -> INVALID_HANDLE")
    void flags() {
        try (Node client = new Node(); Node server = new Node()) {
            assertEquals(0, CloseFlags.ABRUPT);
            assertEquals(1, CloseFlags.GRACEFUL);
            Ep c = client.ep();
            Ep s = server.ep();
            connect(c, s);
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> c.ep.disconnect(2));
            assertDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> c.ep.disconnect(-1));
            assertEquals(EpState.CONNECTED, c.state());
            assertNoEvent(c.connEvd);
            c.ep.disconnect(CloseFlags.ABRUPT);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            c.ep.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> c.ep.disconnect(CloseFlags.ABRUPT));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> c.ep.disconnect(CloseFlags.GRACEFUL));
        }
    }

    @Test
    @DisplayName("DSC-02 DSC-11 DSC-17: either side disconnects (abrupt or graceful); both get DISCONNECTED, receives flushed")
    void eitherSideDisconnects() {
        for (int flags : new int[] {CloseFlags.ABRUPT, CloseFlags.GRACEFUL}) {
            for (boolean passive : new boolean[] {false, true}) {
                try (Node client = new Node(); Node server = new Node()) {
                    Ep c = client.ep();
                    Ep s = server.ep();
                    connect(c, s);
                    Ep closer = passive ? s : c;
                    Ep peer = passive ? c : s;
                    closer.postRecv(1, 0, 64);
                    peer.postRecv(2, 0, 64);
                    peer.postRecv(3, 64, 64);
                    closer.ep.disconnect(flags);
                    closer.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                    assertEquals(EpState.DISCONNECTED, closer.state());
                    closer.expectFlushedRecvs(1);
                    peer.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                    assertEquals(EpState.DISCONNECTED, peer.state());
                    peer.expectFlushedRecvs(2, 3);
                    assertNoEvent(closer.connEvd);
                    assertNoEvent(peer.connEvd);
                }
            }
        }
    }

    @Test
    @DisplayName("DSC-03 DSC-04 DSC-05: abrupt disconnect completes every outstanding DTO FLUSHED, in order, even SUPPRESSed")
    void abruptFlushesEverything() {
        try (Node client = new Node(); Node server = new Node()) {
            Ep c = client.ep();
            Ep s = server.ep();
            connect(c, s);
            // The server posts no receive: the sends stay outstanding (receiver not ready).
            c.postSend(1, 0, 8);
            c.ep.postSend(1, new LmrTriplet[] {client.at(8, 8)}, 2, CompletionFlags.SUPPRESS);
            c.postSend(3, 16, 8);
            c.postRecv(4, 1024, 64);
            c.postRecv(5, 2048, 64);
            assertFalse(c.ep.getStatus().requestIdle());
            c.ep.disconnect(CloseFlags.ABRUPT);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (long cookie = 1; cookie <= 3; cookie++) {
                c.expectDto(c.reqEvd, cookie, DtoCompletionStatus.ERR_FLUSHED);
            }
            assertNoEvent(c.reqEvd);
            c.expectFlushedRecvs(4, 5);
            Endpoint.Status st = c.ep.getStatus();
            assertTrue(st.requestIdle() && st.recvIdle());
            s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertNoEvent(s.recvEvd);
        }
    }

    @Test
    @DisplayName("DSC-06 DSC-08 DSC-10 DSC-11 AMB-15: graceful waits in DISCONNECT_PENDING for outstanding requests to succeed")
    void gracefulDrainsOutstandingRequests() {
        try (Node client = new Node(); Node server = new Node()) {
            Ep c = client.ep();
            Ep s = server.ep();
            connect(c, s);
            client.buf.set(ValueLayout.JAVA_LONG, 0, 0x5555AAAA5555AAAAL);
            c.postSend(1, 0, 8); // waits for a receive at the server
            c.ep.disconnect(CloseFlags.GRACEFUL);
            assertEquals(EpState.DISCONNECT_PENDING, c.state());
            assertFalse(c.ep.getStatus().requestIdle());
            assertNoEvent(c.connEvd);
            c.ep.disconnect(CloseFlags.GRACEFUL); // DSC-08: no effect
            assertEquals(EpState.DISCONNECT_PENDING, c.state());
            // DSC-10: no new send, RDMA or bind in DP.
            DatReturnSubtype dp = DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            assertDat(STATE, dp, () -> c.postSend(2, 8, 8));
            assertDat(STATE, dp, () -> c.ep.postRdmaWrite(1, new LmrTriplet[] {client.at(0, 8)}, 3,
                    server.lmr.remoteTriplet(0, 8), 0));
            assertDat(STATE, dp, () -> c.ep.postRdmaRead(1, new LmrTriplet[] {client.at(0, 8)}, 4,
                    server.lmr.remoteTriplet(0, 8), 0));
            Rmr rmr = Rmr.create(client.pz);
            assertDat(STATE, dp, () -> rmr.bind(client.at(0, 64), MemPriv.REMOTE_READ, c.ep, 5, 0));
            assertNoEvent(c.reqEvd);
            assertEquals(EpState.CONNECTED, s.state(), "the peer stays connected while the client drains");

            s.postRecv(10, 0, 64);
            c.expectDto(c.reqEvd, 1, DtoCompletionStatus.SUCCESS);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, c.state());
            assertEquals(8, s.expectDto(s.recvEvd, 10, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(0x5555AAAA5555AAAAL, server.buf.get(ValueLayout.JAVA_LONG, 0));
            s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertNoEvent(c.reqEvd);
        }
    }

    @Test
    @DisplayName("DSC-07: ABRUPT in DISCONNECT_PENDING moves to DISCONNECTED at once, flushing what was outstanding")
    void abruptInDisconnectPending() {
        try (Node client = new Node(); Node server = new Node()) {
            Ep c = client.ep();
            Ep s = server.ep();
            connect(c, s);
            s.postRecv(20, 0, 64);
            s.postRecv(21, 64, 64);
            c.postSend(1, 0, 8);
            c.postSend(2, 8, 8);
            c.postSend(3, 16, 8); // the server has two receives: this one waits
            c.expectDto(c.reqEvd, 1, DtoCompletionStatus.SUCCESS);
            c.expectDto(c.reqEvd, 2, DtoCompletionStatus.SUCCESS);
            c.ep.disconnect(CloseFlags.GRACEFUL);
            assertEquals(EpState.DISCONNECT_PENDING, c.state());
            c.ep.disconnect(CloseFlags.ABRUPT);
            assertEquals(EpState.DISCONNECTED, c.state());
            c.expectDto(c.reqEvd, 3, DtoCompletionStatus.ERR_FLUSHED);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            s.expectDto(s.recvEvd, 20, DtoCompletionStatus.SUCCESS);
            s.expectDto(s.recvEvd, 21, DtoCompletionStatus.SUCCESS);
            s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            s.postRecv(22, 0, 64); // RCV-08: flushed at once in D
            s.expectFlushedRecvs(22);
        }
    }

    @Test
    @DisplayName("DSC-09 DSC-15: in ACTIVE_CONNECTION_PENDING graceful and abrupt both abort: DISCONNECTED, receives flushed")
    void disconnectWhileConnecting() {
        for (int flags : new int[] {CloseFlags.ABRUPT, CloseFlags.GRACEFUL}) {
            try (Node client = new Node(); Node server = new Node()) {
                long qual = Pair.freshQual();
                PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
                Ep c = client.ep();
                Ep s = server.ep();
                c.postRecv(31, 0, 64);
                c.postRecv(32, 64, 64);
                c.connect(qual, null);
                ConnectionRequest cr = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
                c.ep.disconnect(flags);
                assertEquals(EpState.DISCONNECTED, c.state());
                c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                c.expectFlushedRecvs(31, 32);
                // The aborted attempt cannot be accepted any more.
                cr.accept(s.ep, 0, null);
                s.expectConn(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
                cmBarrier(client);
                assertNoEvent(c.connEvd);
            }
        }
    }

    @Test
    @DisplayName("DSC-09 DSC-15: in COMPLETION_PENDING graceful and abrupt both abort: DISCONNECTED, receives flushed")
    void disconnectWhileCompletionPending() {
        for (int flags : new int[] {CloseFlags.ABRUPT, CloseFlags.GRACEFUL}) {
            try (Node client = new Node(); Node server = new Node()) {
                long qual = Pair.freshQual();
                PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
                Ep c = client.ep();
                Ep s = server.ep();
                c.connect(qual, null);
                ConnectionRequest cr = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
                s.postRecv(41, 0, 64);
                try (CmGate gate = new CmGate()) {
                    cr.accept(s.ep, 0, null);
                    assertEquals(EpState.COMPLETION_PENDING, s.state());
                    s.ep.disconnect(flags);
                    assertEquals(EpState.DISCONNECTED, s.state());
                    s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                    s.expectFlushedRecvs(41);
                }
                // The requester's connection does not survive the aborted accept.
                c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                c.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
                assertEquals(EpState.DISCONNECTED, c.state());
                assertNoEvent(s.connEvd);
                assertEquals(EpState.DISCONNECTED, s.state());
            }
        }
    }

    @Test
    @DisplayName("DSC-12: with connect EVD = DTO EVD, completions of a graceful or abrupt disconnect precede DISCONNECTED")
    void completionsPrecedeDisconnectedOnSharedEvd() {
        for (int flags : new int[] {CloseFlags.GRACEFUL, CloseFlags.ABRUPT}) {
            try (Node client = new Node(); Node server = new Node()) {
                EventDispatcher shared = EventDispatcher.create(client.ia, 32, null, EvdFlags.DTO | EvdFlags.CONNECTION);
                EpAttr attr = client.ia.defaultEpAttr().recvCompletionFlags(CompletionFlags.EVD_THRESHOLD)
                        .requestCompletionFlags(CompletionFlags.EVD_THRESHOLD);
                Endpoint ep = Endpoint.create(client.ia, client.pz, shared, shared, shared, attr);
                Ep s = server.ep();
                long qual = Pair.freshQual();
                PublicServicePoint.create(server.ia, qual, server.crEvd, PspFlags.CONSUMER);
                ep.connect(mem(), qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
                expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr().accept(s.ep, 0, null);
                assertSame(ep, expect(shared, EventNumber.CONNECTION_EVENT_ESTABLISHED).ep());
                s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);

                ep.postRecv(1, new LmrTriplet[] {client.at(1024, 64)}, 100, 0);
                ep.postSend(1, new LmrTriplet[] {client.at(0, 8)}, 101, 0); // outstanding: no receive at the server
                ep.disconnect(flags);
                if (flags == CloseFlags.GRACEFUL) {
                    assertEquals(EpState.DISCONNECT_PENDING, ep.getStatus().epState());
                    s.postRecv(7, 0, 64);
                }
                DatEvent send = expect(shared, EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(101, send.userCookie());
                assertEquals(flags == CloseFlags.GRACEFUL ? DtoCompletionStatus.SUCCESS
                        : DtoCompletionStatus.ERR_FLUSHED, send.status());
                DatEvent recv = expect(shared, EventNumber.DTO_COMPLETION_EVENT);
                assertEquals(100, recv.userCookie());
                assertEquals(DtoCompletionStatus.ERR_FLUSHED, recv.status());
                assertSame(ep, expect(shared, EventNumber.CONNECTION_EVENT_DISCONNECTED).ep());
                assertNoEvent(shared);
                assertEquals(EpState.DISCONNECTED, ep.getStatus().epState());
            }
        }
    }

    @Test
    @DisplayName("DSC-13: dat_ep_disconnect in DISCONNECTED is a no-op returning success")
    void disconnectInDisconnected() {
        try (Node client = new Node(); Node server = new Node()) {
            Ep c = client.ep();
            Ep s = server.ep();
            connect(c, s);
            s.ep.disconnect(CloseFlags.ABRUPT);
            s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (Ep e : new Ep[] {c, s}) {
                e.ep.disconnect(CloseFlags.ABRUPT);
                e.ep.disconnect(CloseFlags.GRACEFUL);
                assertEquals(EpState.DISCONNECTED, e.state());
                assertNoEvent(e.connEvd);
                assertNoEvent(e.recvEvd);
                assertNoEvent(e.reqEvd);
            }
            // Also after a connection attempt that failed.
            Ep f = client.ep();
            f.connect(Pair.freshQual(), null);
            f.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            f.ep.disconnect(CloseFlags.GRACEFUL);
            assertNoEvent(f.connEvd);
        }
    }

    @Test
    @DisplayName("DSC-14: disconnect in UNCONNECTED, RESERVED, PASSIVE_CONNECTION_PENDING, TENTATIVE -> INVALID_STATE")
    void disconnectNotAllowed() {
        try (Node client = new Node(); Node server = new Node()) {
            for (int flags : new int[] {CloseFlags.ABRUPT, CloseFlags.GRACEFUL}) {
                Ep u = server.ep();
                assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, () -> u.ep.disconnect(flags));
                assertEquals(EpState.UNCONNECTED, u.state());

                long rq = Pair.freshQual();
                Ep r = server.ep();
                ReservedServicePoint.create(server.ia, rq, r.ep, server.crEvd);
                assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_RESERVED, () -> r.ep.disconnect(flags));
                assertEquals(EpState.RESERVED, r.state());
                Ep c1 = client.ep();
                c1.connect(rq, null);
                ConnectionRequest rcr = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
                assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING, () -> r.ep.disconnect(flags));
                assertEquals(EpState.PASSIVE_CONNECTION_PENDING, r.state());

                long pq = Pair.freshQual();
                PublicServicePoint psp = PublicServicePoint.create(server.ia, pq, server.crEvd, PspFlags.PROVIDER);
                Ep c2 = client.ep();
                c2.connect(pq, null);
                ConnectionRequest pcr = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT).cr();
                Endpoint pe = pcr.query(CrParam.FIELD_LOCAL_EP_HANDLE).localEpHandle();
                assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING, () -> pe.disconnect(flags));
                assertEquals(EpState.UNCONFIGURED_TENTATIVE, pe.getStatus().epState());
                assertNoEvent(u.connEvd);
                assertNoEvent(r.connEvd);
                assertNoEvent(c1.connEvd);
                assertNoEvent(c2.connEvd);
                rcr.reject();
                pcr.reject();
                psp.free();
                c1.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
                c2.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            }
        }
    }

    @Test
    @DisplayName("DSC-03: the peer IA closed abruptly -> BROKEN, DISCONNECTED, outstanding requests and receives flushed")
    void peerIaClosedAbruptly() {
        for (boolean serverCloses : new boolean[] {true, false}) {
            try (Node client = new Node(); Node server = new Node()) {
                Ep c = client.ep();
                Ep s = server.ep();
                connect(c, s);
                Ep survivor = serverCloses ? c : s;
                Node closing = serverCloses ? server : client;
                survivor.postRecv(51, 0, 64);
                survivor.postRecv(52, 64, 64);
                survivor.postSend(53, 128, 8); // the closing side posted no receive: outstanding
                closing.closeAbrupt();
                survivor.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
                assertEquals(EpState.DISCONNECTED, survivor.state());
                survivor.expectDto(survivor.reqEvd, 53, DtoCompletionStatus.ERR_FLUSHED);
                survivor.expectFlushedRecvs(51, 52);
                assertNoEvent(survivor.connEvd);
                // Reset and reuse: the broken EP reaches nobody at the closed IA's qualifiers.
                survivor.ep.reset();
                survivor.connect(Pair.freshQual(), null);
                survivor.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            }
        }
    }
}
