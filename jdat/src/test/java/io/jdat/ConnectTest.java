package io.jdat;

import static io.jdat.testing.ConnFixture.WAIT;
import static io.jdat.testing.ConnFixture.assertDat;
import static io.jdat.testing.ConnFixture.assertNoEvent;
import static io.jdat.testing.ConnFixture.assertSeq;
import static io.jdat.testing.ConnFixture.expect;
import static io.jdat.testing.ConnFixture.mem;
import static io.jdat.testing.ConnFixture.seq;
import static io.jdat.testing.ConnFixture.timedOutRequest;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.mem.MemAddress;
import io.jdat.testing.ConnFixture.CmGate;
import io.jdat.testing.ConnFixture.Ep;
import io.jdat.testing.ConnFixture.Node;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_ep_connect} and {@code dat_ep_dup_connect}: every outcome on mem, synchronous errors, reuse. */
class ConnectTest {
    private static final DatReturnType PARAM = DatReturnType.INVALID_PARAMETER;
    private static final DatReturnType STATE = DatReturnType.INVALID_STATE;



    @Test
    @DisplayName("CON-02 CON-04 CON-09 CON-24 EVW-20 CRA-04: ESTABLISHED on both sides, private data both ways")
    void establishedWithPrivateData() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            long otherQual = Pair.freshQual();
            PublicServicePoint psp = server.listen(qual);
            EventDispatcher otherEvd = EventDispatcher.create(server.ia, 4, null, EvdFlags.CR);
            PublicServicePoint other = PublicServicePoint.create(server.ia, otherQual, otherEvd, PspFlags.CONSUMER);
            Ep c = client.ep();
            Ep s = server.ep();
            // dtest DT-2: the client sends {1..48}, the server answers with each byte incremented.
            c.connect(qual, seq(1, 48));
            DatEvent cr = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(psp, cr.spHandle(), "the request reached the PSP on the qualifier it was sent to");
            assertEquals(qual, cr.connQual());
            assertNoEvent(otherEvd);
            byte[] got = cr.cr().query(CrParam.FIELD_ALL).privateData();
            assertSeq(1, 48, got);
            byte[] reply = got.clone();
            for (int i = 0; i < reply.length; i++) {
                reply[i]++;
            }
            cr.cr().accept(s.ep, reply.length, reply);
            DatEvent sEst = s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(0, sEst.privateDataSize(), "the passive side's ESTABLISHED carries no private data");
            DatEvent cEst = c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(48, cEst.privateDataSize());
            assertSeq(2, 48, cEst.privateData());
            assertEquals(EpState.CONNECTED, c.state());
            assertEquals(EpState.CONNECTED, s.state());

            // The connection carries data.
            s.postRecv(1, 0, 64);
            client.buf.set(ValueLayout.JAVA_LONG, 0, 0x0102030405060708L);
            c.postSend(2, 0, 8);
            c.expectDto(c.reqEvd, 2, DtoCompletionStatus.SUCCESS);
            assertEquals(8, s.expectDto(s.recvEvd, 1, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(0x0102030405060708L, server.buf.get(ValueLayout.JAVA_LONG, 0));
            other.free();
        }
    }

    @Test
    @DisplayName("CON-05 CON-13: ACTIVE_CONNECTION_PENDING after the call, CONNECTED only after accept and handshake")
    void pendingUntilAcceptedAndHandshaken() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, null);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
            ConnectionRequest cr = server.request();
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state(), "a request that arrived is not a connection");
            assertNoEvent(c.connEvd);
            try (CmGate gate = new CmGate()) {
                cr.accept(s.ep, 0, null);
                // Accepted, but the transport handshake has not run yet.
                assertEquals(EpState.COMPLETION_PENDING, s.state());
                assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
                assertNoEvent(c.connEvd);
                assertNoEvent(s.connEvd);
            }
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, c.state());
            assertEquals(EpState.CONNECTED, s.state());
        }
    }

    @Test
    @DisplayName("CON-03: the EP is bound to a local port qualifier, seen by the passive side as remote_port_qual")
    void localPortQualifier() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep c2 = client.ep();
            Ep s = server.ep();
            c.connect(qual, null);
            EpParam pending = c.ep.query(EpParam.FIELD_ALL);
            long port = pending.localPortQual();
            assertEquals(mem(), pending.remoteIaAddress());
            assertEquals(qual, pending.remotePortQual());
            ConnectionRequest cr = server.request();
            CrParam p = cr.query(CrParam.FIELD_ALL);
            assertEquals(port, p.remotePortQual(), "CR remote_port_qual = the active EP's local port qualifier");
            assertEquals(mem(), p.remoteIaAddress());
            c2.connect(qual, null);
            ConnectionRequest cr2 = server.request();
            assertNotEquals(port, cr2.query(CrParam.FIELD_REMOTE_PORT_QUAL).remotePortQual(),
                    "two active EPs are bound to different port qualifiers");
            cr2.reject();
            cr.accept(s.ep, 0, null);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(port, c.ep.query(EpParam.FIELD_LOCAL_PORT_QUAL).localPortQual());
            EpParam sp = s.ep.query(EpParam.FIELD_ALL);
            assertEquals(port, sp.remotePortQual());
            assertEquals(mem(), sp.remoteIaAddress());
            assertEquals(qual, sp.localPortQual());
        }
    }

    @Test
    @DisplayName("CON-01 CON-15 CON-17 CON-18 CON-20: each bad argument fails synchronously, named by its position")
    void argumentsByPosition() {
        try (Node client = new Node()) {
            Ep c = client.ep();
            long q = Pair.freshQual();
            MemAddress a = mem();
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG2,
                    () -> c.ep.connect(null, q, WAIT, 0, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> c.ep.connect(a, q, 0, 0, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG5,
                    () -> c.ep.connect(a, q, WAIT, -1, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG6,
                    () -> c.ep.connect(a, q, WAIT, 4, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG6,
                    () -> c.ep.connect(a, q, WAIT, 4, new byte[3], Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG7,
                    () -> c.ep.connect(a, q, WAIT, 0, null, 0x10, ConnectFlags.DEFAULT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG8,
                    () -> c.ep.connect(a, q, WAIT, 0, null, Qos.BEST_EFFORT, 0x2));
            assertEquals(EpState.UNCONNECTED, c.state(), "a failed connect leaves the EP in UNCONNECTED");
            assertNoEvent(c.connEvd);
            // The same EP connects once the arguments are right (size 0 with null data is fine).
            c.ep.connect(a, q, WAIT, 0, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
            c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            c.ep.free();
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> c.ep.connect(a, q, WAIT, 0, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT));
        }
    }

    @Test
    @DisplayName("CON-06 CON-07: QoS mem cannot do (ECONOMY, PREMIUM) is MODEL_NOT_SUPPORTED; QoS both ends do connects")
    void qos() {
        try (Node client = new Node(); Node server = new Node()) {
            int supported = client.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr().datQosSupported();
            assertEquals(0, supported & (Qos.ECONOMY | Qos.PREMIUM), "mem offers neither ECONOMY nor PREMIUM");
            Ep c = client.ep();
            long qual = Pair.freshQual();
            assertDat(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE,
                    () -> c.ep.connect(mem(), qual, WAIT, 0, null, Qos.ECONOMY, 0));
            assertDat(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE,
                    () -> c.ep.connect(mem(), qual, WAIT, 0, null, Qos.PREMIUM, 0));
            assertEquals(EpState.UNCONNECTED, c.state());
            server.listen(qual);
            Ep s = server.ep();
            c.ep.connect(mem(), qual, WAIT, 0, null, Qos.HIGH_THROUGHPUT | Qos.LOW_LATENCY, 0);
            server.request().accept(s.ep, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CON-08: nobody listening on the qualifier -> NON_PEER_REJECTED, DISCONNECTED, receives flushed")
    void nonPeerRejectedWhenNobodyListens() {
        try (Node client = new Node(); Node server = new Node()) {
            Ep c = client.ep();
            c.postRecv(11, 0, 64);
            c.postRecv(12, 64, 64);
            c.connect(Pair.freshQual(), seq(1, 8));
            DatEvent e = c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(0, e.privateDataSize());
            assertEquals(EpState.DISCONNECTED, c.state());
            c.expectFlushedRecvs(11, 12);
            assertNoEvent(c.connEvd);
        }
    }

    @Test
    @DisplayName("CON-08: the acceptor's IA closes between accept and handshake -> NON_PEER_REJECTED, receives flushed")
    void acceptorGoneBeforeHandshake() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.postRecv(13, 0, 64);
            c.ep.connect(mem(), qual, Dat.TIMEOUT_INFINITE, 0, null, Qos.BEST_EFFORT, 0);
            ConnectionRequest cr = server.request();
            try (CmGate gate = new CmGate()) {
                cr.accept(s.ep, 0, null);
                server.closeAbrupt();
            }
            c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, c.state());
            c.expectFlushedRecvs(13);
        }
    }

    @Test
    @DisplayName("CON-10 CRJ-05: peer rejection -> PEER_REJECTED, DISCONNECTED, receives flushed")
    void peerRejected() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            c.postRecv(21, 0, 64);
            c.connect(qual, seq(7, 16));
            server.request().reject();
            DatEvent e = c.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(0, e.privateDataSize(), "1.2 rejects carry no private data");
            assertEquals(EpState.DISCONNECTED, c.state());
            c.expectFlushedRecvs(21);
        }
    }

    @Test
    @DisplayName("CON-11 AMB-04: an address with no IA -> UNREACHABLE, DISCONNECTED, receives flushed")
    void unreachable() {
        try (Node client = new Node()) {
            Ep c = client.ep();
            c.postRecv(31, 0, 64);
            c.ep.connect(MemAddress.of("nowhere"), 1, WAIT, 3, new byte[] {1, 2, 3}, Qos.BEST_EFFORT, 0);
            c.expectConn(EventNumber.CONNECTION_EVENT_UNREACHABLE);
            assertEquals(EpState.DISCONNECTED, c.state());
            c.expectFlushedRecvs(31);
            // An address whose only IA closed is unreachable too.
            Registry.addProvider(new io.jdat.RegistryEntry("jdat-test-gone", 'u', 1, 2, true, true, "mem", "jdat",
                    1, 0, "jdat-test-gone-addr", ""));
            try {
                InterfaceAdapter gone = InterfaceAdapter.open("jdat-test-gone", 4, null);
                gone.close(CloseFlags.ABRUPT);
            } finally {
                Registry.removeProvider("jdat-test-gone");
            }
            Ep c2 = client.ep();
            c2.ep.connect(MemAddress.of("jdat-test-gone-addr"), 1, WAIT, 0, null, Qos.BEST_EFFORT, 0);
            c2.expectConn(EventNumber.CONNECTION_EVENT_UNREACHABLE);
        }
    }

    @Test
    @DisplayName("CON-12: an address mem cannot convert (an InetSocketAddress) -> INVALID_ADDRESS synchronously")
    void invalidAddress() {
        try (Node client = new Node()) {
            Ep c = client.ep();
            InetSocketAddress inet = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4791);
            assertDat(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                    () -> c.ep.connect(inet, 1, WAIT, 0, null, Qos.BEST_EFFORT, 0));
            assertEquals(EpState.UNCONNECTED, c.state());
            assertNoEvent(c.connEvd);
        }
    }

    @Test
    @DisplayName("CON-14 AMB-04: no answer within the timeout -> TIMED_OUT, DISCONNECTED, receives flushed")
    void timedOut() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            // The server consumer holds the request and never answers in time.
            ConnectionRequest cr = timedOutRequest(c, server, server.crEvd, qual, seq(20, 6), () -> {
                c.postRecv(41, 0, 64);
                c.postRecv(42, 64, 64);
            }, () -> c.expectFlushedRecvs(41, 42));
            assertEquals(EpState.DISCONNECTED, c.state());
            assertSeq(20, 6, cr.query(CrParam.FIELD_PRIVATE_DATA).privateData());
            cr.reject(); // too late: no second outcome
            Ep probe = client.ep();
            probe.connect(Pair.freshQual(), null);
            probe.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED); // the CM thread is past the reject
            assertNoEvent(c.connEvd);
        }
    }

    @Test
    @DisplayName("CON-16: dat_ep_connect on an EP that is not UNCONNECTED -> INVALID_STATE with the EP's state")
    void connectOnlyFromUnconnected() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, null);
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING, () -> c.connect(qual, null));
            server.request().accept(s.ep, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_CONNECTED, () -> c.connect(qual, null));
            assertEquals(EpState.CONNECTED, c.state());
            c.ep.disconnect(CloseFlags.ABRUPT);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED, () -> c.connect(qual, null));
            assertEquals(EpState.DISCONNECTED, c.state());
            assertNoEvent(server.crEvd);
        }
    }

    @Test
    @DisplayName("CON-17: DAT_TIMEOUT_INFINITE and large unsigned timeouts never expire; timeout 0 is refused")
    void timeouts() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep forever = client.ep();
            Ep unsigned = client.ep();
            Ep quick = client.ep();
            Ep s1 = server.ep();
            Ep s2 = server.ep();
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> forever.ep.connect(mem(), qual, 0, 0, null, Qos.BEST_EFFORT, 0));
            forever.ep.connect(mem(), qual, Dat.TIMEOUT_INFINITE, 0, null, Qos.BEST_EFFORT, 0);
            unsigned.ep.connect(mem(), qual, 0x80000000, 0, null, Qos.BEST_EFFORT, 0); // ~36 minutes, not negative
            List<ConnectionRequest> crs = new ArrayList<>(List.of(server.request(), server.request()));
            crs.add(timedOutRequest(quick, server, server.crEvd, qual, null, () -> { }, () -> { }));
            // The short attempt expired; the others are still pending.
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, forever.state());
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, unsigned.state());
            assertNoEvent(forever.connEvd);
            assertNoEvent(unsigned.connEvd);
            Map<Long, ConnectionRequest> byPort = new HashMap<>();
            for (ConnectionRequest cr : crs) {
                byPort.put(cr.query(CrParam.FIELD_REMOTE_PORT_QUAL).remotePortQual(), cr);
            }
            byPort.get(forever.ep.query(EpParam.FIELD_LOCAL_PORT_QUAL).localPortQual()).accept(s1.ep, 0, null);
            byPort.get(unsigned.ep.query(EpParam.FIELD_LOCAL_PORT_QUAL).localPortQual()).accept(s2.ep, 0, null);
            forever.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            unsigned.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s1.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s2.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CON-18 CON-19 EVW-22: private data up to max_private_data_size arrives whole; larger is refused")
    void privateDataLimits() {
        try (Node client = new Node(); Node server = new Node()) {
            int max = client.ia.query(0, ProviderAttr.FIELD_MAX_PRIVATE_DATA_SIZE).providerAttr().maxPrivateDataSize();
            assertTrue(max >= 64, "max_private_data_size >= 64");
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG5,
                    () -> c.ep.connect(mem(), qual, WAIT, max + 1, new byte[max + 1], Qos.BEST_EFFORT, 0));
            assertEquals(EpState.UNCONNECTED, c.state());
            assertNoEvent(server.crEvd);
            // A longer array: only private_data_size bytes are sent.
            byte[] request = seq(3, max + 10);
            c.ep.connect(mem(), qual, WAIT, max, request, Qos.BEST_EFFORT, 0);
            request[0] = 0; // the consumer's buffer is its own again after the call
            ConnectionRequest cr = server.request();
            assertSeq(3, max, cr.query(CrParam.FIELD_ALL).privateData());
            assertEquals(max, cr.query(CrParam.FIELD_PRIVATE_DATA_SIZE).privateDataSize());
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> cr.accept(s.ep, max + 1, new byte[max + 1]));
            byte[] reply = seq(200, max);
            cr.accept(s.ep, max, reply);
            reply[5] = 0;
            assertSeq(200, max, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CON-20: DAT_CONNECT_MULTIPATH_FLAG -> MODEL_NOT_SUPPORTED on mem; DEFAULT connects")
    void connectFlags() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            assertDat(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE,
                    () -> c.ep.connect(mem(), qual, WAIT, 0, null, Qos.BEST_EFFORT, ConnectFlags.MULTIPATH));
            assertEquals(EpState.UNCONNECTED, c.state());
            assertNoEvent(server.crEvd);
            c.ep.connect(mem(), qual, WAIT, 0, null, Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
            server.request().accept(s.ep, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CON-21 CON-22 CON-23 CRA-10: provider-chosen RDMA Read depths, depths 0, matched depths")
    void rdmaReadDepths() {
        try (Node client = new Node(); Node server = new Node()) {
            IaAttr ia = client.ia.query(IaAttr.FIELD_ALL, 0).iaAttr();
            EpAttr defaults = client.ep().ep.query(EpParam.FIELD_ALL).epAttr();
            assertTrue(defaults.maxRdmaReadIn() > 0 && defaults.maxRdmaReadIn() <= ia.maxRdmaReadIn(),
                    "provider default max_rdma_read_in");
            assertTrue(defaults.maxRdmaReadOut() > 0 && defaults.maxRdmaReadOut() <= ia.maxRdmaReadOut(),
                    "provider default max_rdma_read_out");
            long qual = Pair.freshQual();
            server.listen(qual);

            // Both depths 0: valid for a consumer that never reads.
            EpAttr none = client.ia.defaultEpAttr().maxRdmaReadIn(0).maxRdmaReadOut(0);
            Ep c0 = client.ep(none);
            Ep s0 = server.ep(none);
            c0.connect(qual, null);
            server.request().accept(s0.ep, 0, null);
            c0.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s0.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s0.postRecv(1, 0, 16);
            c0.postSend(2, 0, 16);
            c0.expectDto(c0.reqEvd, 2, DtoCompletionStatus.SUCCESS);

            // Acceptor IRD >= requester ORD and acceptor ORD <= requester IRD: reads work.
            Ep c = client.ep(client.ia.defaultEpAttr().maxRdmaReadIn(1).maxRdmaReadOut(2));
            Ep s = server.ep(server.ia.defaultEpAttr().maxRdmaReadIn(2).maxRdmaReadOut(1));
            c.connect(qual, null);
            server.request().accept(s.ep, 0, null);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            server.buf.set(ValueLayout.JAVA_LONG, 4096, 77L);
            c.ep.postRdmaRead(1, new LmrTriplet[] {client.at(4096, 8)}, 3, server.lmr.remoteTriplet(4096, 8), 0);
            assertEquals(8, c.expectDto(c.reqEvd, 3, DtoCompletionStatus.SUCCESS).transferredLength());
            assertEquals(77L, client.buf.get(ValueLayout.JAVA_LONG, 4096));
        }
    }

    @Test
    @DisplayName("CON-25: NULL address -> INVALID_PARAMETER; EP without PZ or connect EVD -> INVALID_STATE EP_NOTREADY")
    void notReady() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            EventDispatcher conn = EventDispatcher.create(client.ia, 8, null, EvdFlags.CONNECTION);
            Endpoint noPz = Endpoint.create(client.ia, null, null, null, conn, null);
            Endpoint noConnEvd = Endpoint.create(client.ia, client.pz, null, null, null, null);
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG2,
                    () -> noPz.connect(null, qual, WAIT, 0, null, Qos.BEST_EFFORT, 0));
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                    () -> noPz.connect(mem(), qual, WAIT, 0, null, Qos.BEST_EFFORT, 0));
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                    () -> noConnEvd.connect(mem(), qual, WAIT, 0, null, Qos.BEST_EFFORT, 0));
            assertEquals(EpState.UNCONFIGURED_UNCONNECTED, noPz.getStatus().epState());
            assertEquals(EpState.UNCONFIGURED_UNCONNECTED, noConnEvd.getStatus().epState());
            assertNoEvent(server.crEvd);
            // Once the PZ is supplied the EP connects.
            noPz.modify(EpParam.FIELD_PZ_HANDLE, new EpParam().pzHandle(client.pz));
            noPz.connect(mem(), qual, WAIT, 0, null, Qos.BEST_EFFORT, 0);
            server.request().reject();
            DatEvent e = expect(conn, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertSame(noPz, e.ep());
        }
    }

    @Test
    @DisplayName("EPQ-05: dat_ep_dup_connect reaches the same remote address and qualifier as the connected EP")
    void dupConnect() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = server.listen(qual);
            Ep first = client.ep();
            Ep dup = client.ep();
            Ep rejected = client.ep();
            Ep s1 = server.ep();
            Ep s2 = server.ep();
            first.connect(qual, null);
            server.request().accept(s1.ep, 0, null);
            first.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s1.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);

            dup.ep.dupConnect(first.ep, WAIT, 5, seq(40, 5), Qos.BEST_EFFORT);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, dup.state());
            EpParam p = dup.ep.query(EpParam.FIELD_ALL);
            assertEquals(mem(), p.remoteIaAddress());
            assertEquals(qual, p.remotePortQual());
            DatEvent cr = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
            assertSame(psp, cr.spHandle());
            assertEquals(qual, cr.connQual());
            assertSeq(40, 5, cr.cr().query(CrParam.FIELD_PRIVATE_DATA).privateData());
            cr.cr().accept(s2.ep, 2, seq(9, 2));
            assertSeq(9, 2, dup.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            s2.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);

            // The outcomes are those of dat_ep_connect.
            rejected.ep.dupConnect(first.ep, WAIT, 0, null, Qos.BEST_EFFORT);
            server.request().reject();
            rejected.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, rejected.state());
        }
    }

    @Test
    @DisplayName("EPQ-06 CON-06: dat_ep_dup_connect needs a connected dup EP and an UNCONNECTED EP; arguments by position")
    void dupConnectErrors() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep connected = client.ep();
            Ep fresh = client.ep();
            Ep s = server.ep();
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> fresh.ep.dupConnect(connected.ep, WAIT, 0, null, Qos.BEST_EFFORT));
            connected.connect(qual, null);
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                    () -> fresh.ep.dupConnect(connected.ep, WAIT, 0, null, Qos.BEST_EFFORT));
            server.request().accept(s.ep, 0, null);
            connected.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            // The EP itself must be UNCONNECTED.
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_CONNECTED,
                    () -> connected.ep.dupConnect(connected.ep, WAIT, 0, null, Qos.BEST_EFFORT));
            // dat_ep_dup_connect(ep, dup_ep, timeout, private_data_size, private_data, qos)
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> fresh.ep.dupConnect(connected.ep, 0, 0, null, Qos.BEST_EFFORT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> fresh.ep.dupConnect(connected.ep, WAIT, -1, null, Qos.BEST_EFFORT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG5,
                    () -> fresh.ep.dupConnect(connected.ep, WAIT, 2, null, Qos.BEST_EFFORT));
            assertDat(PARAM, DatReturnSubtype.INVALID_ARG6,
                    () -> fresh.ep.dupConnect(connected.ep, WAIT, 0, null, 0x40));
            assertDat(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE,
                    () -> fresh.ep.dupConnect(connected.ep, WAIT, 0, null, Qos.ECONOMY));
            assertDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> fresh.ep.dupConnect(null, WAIT, 0, null, Qos.BEST_EFFORT));
            assertEquals(EpState.UNCONNECTED, fresh.state());
            connected.ep.disconnect(CloseFlags.ABRUPT);
            connected.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertDat(STATE, DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED,
                    () -> fresh.ep.dupConnect(connected.ep, WAIT, 0, null, Qos.BEST_EFFORT));
            assertEquals(EpState.UNCONNECTED, fresh.state());
            assertNoEvent(server.crEvd);
        }
    }

    @Test
    @DisplayName("EVW-21: the active side's private data stays valid in CONNECTED, DISCONNECT_PENDING and DISCONNECTED")
    void activePrivateDataStaysValid() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, null);
            byte[] reply = seq(60, 32);
            server.request().accept(s.ep, 32, reply);
            byte[] pd = c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData();
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            java.util.Arrays.fill(reply, (byte) 0); // the acceptor's buffer is its own again
            assertSeq(60, 32, pd);
            c.postSend(1, 0, 8); // no receive at the peer: stays outstanding
            c.ep.disconnect(CloseFlags.GRACEFUL);
            assertEquals(EpState.DISCONNECT_PENDING, c.state());
            assertSeq(60, 32, pd);
            c.ep.disconnect(CloseFlags.ABRUPT);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, c.state());
            assertSeq(60, 32, pd);
        }
    }

    @Test
    @DisplayName("RST-07 CON-05: reset EPs connect and accept again (active after PEER_REJECTED, passive after DISCONNECTED)")
    void resetAndReconnect() {
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            server.listen(qual);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(qual, seq(1, 4));
            server.request().reject();
            c.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            c.ep.reset();
            assertEquals(EpState.UNCONNECTED, c.state());
            // dapltest client retry: reset, connect again.
            c.connect(qual, seq(5, 4));
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.state());
            ConnectionRequest cr = server.request();
            assertSeq(5, 4, cr.query(CrParam.FIELD_PRIVATE_DATA).privateData());
            cr.accept(s.ep, 1, new byte[] {42});
            assertArrayEquals(new byte[] {42}, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.ep.disconnect(CloseFlags.GRACEFUL);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);

            // Both sides reset and connect once more; data flows.
            c.ep.reset();
            s.ep.reset();
            assertEquals(EpState.UNCONNECTED, s.state());
            c.connect(qual, null);
            server.request().accept(s.ep, 0, null);
            assertEquals(0, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateDataSize());
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.postRecv(7, 0, 32);
            c.postSend(8, 0, 32);
            c.expectDto(c.reqEvd, 8, DtoCompletionStatus.SUCCESS);
            assertEquals(32, s.expectDto(s.recvEvd, 7, DtoCompletionStatus.SUCCESS).transferredLength());
        }
    }

    @Test
    @DisplayName("CON-09 PSP-02: 32 EPs connect concurrently from 4 threads to one PSP; all ESTABLISHED, correctly paired")
    void manyConcurrentConnects() throws Exception {
        final int n = 32;
        final int threads = 4;
        try (Node client = new Node(); Node server = new Node()) {
            long qual = Pair.freshQual();
            PublicServicePoint psp = server.listen(qual);
            List<Ep> clients = new ArrayList<>();
            List<Ep> servers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                clients.add(client.ep());
                servers.add(server.ep());
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                Thread th = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = first; i < n; i += threads) {
                            clients.get(i).connect(qual, new byte[] {(byte) i});
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "connector-" + t);
                th.start();
                ts.add(th);
            }
            start.countDown();
            Set<Integer> seen = new HashSet<>();
            for (int k = 0; k < n; k++) {
                DatEvent e = expect(server.crEvd, EventNumber.CONNECTION_REQUEST_EVENT);
                assertSame(psp, e.spHandle());
                byte[] pd = e.cr().query(CrParam.FIELD_PRIVATE_DATA).privateData();
                assertEquals(1, pd.length);
                assertTrue(seen.add((int) pd[0]), "one request per EP");
                e.cr().accept(servers.get(k).ep, 1, new byte[] {(byte) (pd[0] + 100)});
            }
            for (Thread th : ts) {
                th.join(TimeUnit.SECONDS.toMillis(5));
            }
            assertTrue(errors.isEmpty(), () -> "connect failed: " + errors);
            for (int i = 0; i < n; i++) {
                DatEvent e = clients.get(i).expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertArrayEquals(new byte[] {(byte) (i + 100)}, e.privateData(), "EP " + i + " got its own answer");
                assertEquals(EpState.CONNECTED, clients.get(i).state());
                servers.get(i).expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                assertEquals(EpState.CONNECTED, servers.get(i).state());
            }
        }
    }
}
