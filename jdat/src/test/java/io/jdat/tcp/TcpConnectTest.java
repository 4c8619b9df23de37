package io.jdat.tcp;

import static io.jdat.tcp.TcpFixture.C;
import static io.jdat.tcp.TcpFixture.ENHANCED;
import static io.jdat.tcp.TcpFixture.M;
import static io.jdat.tcp.TcpFixture.R;
import static io.jdat.tcp.TcpFixture.WAIT_US;
import static io.jdat.tcp.TcpFixture.frame;
import static io.jdat.tcp.TcpFixture.inet;
import static io.jdat.tcp.TcpFixture.pattern;
import static io.jdat.tcp.TcpFixture.rawClient;
import static io.jdat.tcp.TcpFixture.readFpdu;
import static io.jdat.tcp.TcpFixture.readFrame;
import static io.jdat.tcp.TcpFixture.untaggedFpdu;
import static io.jdat.tcp.TcpFixture.v2Block;
import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectDat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.ProviderAttr;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.tcp.TcpFixture.Ep;
import io.jdat.tcp.TcpFixture.Fpdu;
import io.jdat.tcp.TcpFixture.Frame;
import io.jdat.tcp.TcpFixture.Node;
import io.jdat.tcp.TcpFixture.RawServer;
import io.jdat.tcp.TcpFixture.Region;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Connection management on {@code tcp}: private data, qualifiers, every outcome of {@code dat_ep_connect}
 * and {@code dat_cr_accept}, MPA revision 1 and CRC negotiation, checked end to end and, with raw sockets,
 * on the wire (IWARP.md §1, §2, §9).
 */
class TcpConnectTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int SHORT_TIMEOUT_US = 300_000;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    /** Where a raw peer listens, as a tcp IA address. */
    private static InetSocketAddress loopback() {
        return new InetSocketAddress(LOOPBACK, 0);
    }

    // ------------------------------------------------------------------ private data and qualifiers

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 252})
    @DisplayName("CON-04 CRA-04 CRQ-01 CON-18 CON-19 CRA-03: private data of 0, 1 and 252 bytes (the tcp IA's"
            + " max_private_data_size) reaches the acceptor's CR and the requester's ESTABLISHED unchanged; 253"
            + " bytes is DAT_INVALID_PARAMETER for connect and accept")
    void privateDataBothWays(int size) {
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            ProviderAttr pa = client.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr();
            assertEquals(252, pa.maxPrivateDataSize(), "tcp's default max_private_data_size (IWARP.md §1: 256 - 4)");
            PublicServicePoint psp = server.listen();
            Ep c = client.ep();
            Ep s = server.ep();
            byte[] big = new byte[253];
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG5, () -> c.ep.connect(
                    server.address(), psp.connQual(), WAIT_US, 253, big, Qos.BEST_EFFORT, 0));
            assertEquals(EpState.UNCONNECTED, c.ep.getStatus().epState());
            byte[] req = pattern(size, size);
            byte[] rep = pattern(1000 + size, size);
            c.ep.connect(server.address(), psp.connQual(), WAIT_US, size, req, Qos.BEST_EFFORT, 0);
            ConnectionRequest cr = server.request();
            assertArrayEquals(req, cr.query(CrParam.FIELD_ALL).privateData(), "request private data");
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                    () -> cr.accept(s.ep, 253, big));
            cr.accept(s.ep, size, rep);
            DatEvent sEst = s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(0, sEst.privateDataSize(), "the passive side's ESTABLISHED carries no private data");
            DatEvent cEst = c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(size, cEst.privateDataSize());
            assertArrayEquals(rep, cEst.privateData(), "accept private data");
        }
    }

    @Test
    @DisplayName("CON-02 CON-03 CON-05 CON-09 CON-13 EPQ-02 EPQ-03 CRQ-01: ACP after the call; ESTABLISHED and C on"
            + " both sides; dat_ep_query reports the peer's address and port qualifiers: the PSP's port on the"
            + " active side, the active EP's local TCP port on the passive side and in the CR")
    void establishedQualifiers() {
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            long port = psp.connQual();
            assertTrue(port > 0 && port <= 65535, "a PSP's qualifier is a TCP port: " + port);
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(server, port, null, WAIT_US);
            assertEquals(EpState.ACTIVE_CONNECTION_PENDING, c.ep.getStatus().epState());
            ConnectionRequest cr = server.request();
            CrParam crp = cr.query(CrParam.FIELD_ALL);
            long clientPort = crp.remotePortQual();
            assertTrue(clientPort > 0 && clientPort <= 65535, "remote_port_qual is a TCP port: " + clientPort);
            assertNotEquals(port, clientPort);
            assertEquals(LOOPBACK, inet(crp.remoteIaAddress()).getAddress());
            cr.accept(s.ep, 0, null);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEquals(EpState.CONNECTED, c.ep.getStatus().epState());
            assertEquals(EpState.CONNECTED, s.ep.getStatus().epState());

            EpParam cp = c.ep.query(EpParam.FIELD_ALL);
            assertEquals(LOOPBACK, inet(cp.remoteIaAddress()).getAddress(), "client's remote IA address");
            assertEquals(port, cp.remotePortQual(), "client's remote port qualifier = the PSP's port");
            assertEquals(clientPort, cp.localPortQual(), "CON-03: the client's local port qualifier");
            assertEquals(LOOPBACK, inet(cp.localIaAddress()).getAddress());
            EpParam sp = s.ep.query(EpParam.FIELD_ALL);
            assertEquals(LOOPBACK, inet(sp.remoteIaAddress()).getAddress(), "server's remote IA address");
            assertEquals(clientPort, sp.remotePortQual(), "server's remote port qualifier = the client's port");
            assertEquals(port, sp.localPortQual(), "server's local port qualifier = the PSP's port");
        }
    }

    @Test
    @DisplayName("CON-02 CON-09 EPQ-05: an EP connects to a PSP of its own IA (both ends on one progress thread),"
            + " and dat_ep_dup_connect reaches the same PSP again; both connections carry data")
    void sameIaAndDupConnect() {
        try (Node node = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = node.listen();
            Ep a = node.ep();
            Ep b = node.ep();
            Ep dup = node.ep();
            Ep b2 = node.ep();
            TcpFixture.connect(a, b, psp);
            dup.ep.dupConnect(a.ep, WAIT_US, 1, new byte[] {42}, Qos.BEST_EFFORT);
            ConnectionRequest cr = node.request();
            assertArrayEquals(new byte[] {42}, cr.query(CrParam.FIELD_ALL).privateData());
            assertEquals(psp.connQual(), dup.ep.query(EpParam.FIELD_ALL).remotePortQual());
            cr.accept(b2.ep, 0, null);
            b2.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            dup.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            Region r = node.region(16384);
            byte[] m1 = pattern(11, 500);
            byte[] m2 = pattern(12, 600);
            r.put(0, m1, 0, m1.length);
            r.put(1024, m2, 0, m2.length);
            b.ep.postRecv(1, r.iov(4096, 1024), 1, CompletionFlags.DEFAULT);
            b2.ep.postRecv(1, r.iov(8192, 1024), 2, CompletionFlags.DEFAULT);
            a.ep.postSend(1, r.iov(0, 500), 3, CompletionFlags.DEFAULT);
            dup.ep.postSend(1, r.iov(1024, 600), 4, CompletionFlags.DEFAULT);
            dtoOk(a.reqEvd, 3, 500);
            dtoOk(dup.reqEvd, 4, 600);
            dtoOk(b.recvEvd, 1, 500);
            dtoOk(b2.recvEvd, 2, 600);
            TcpFixture.assertImageEquals(r.seg.asSlice(4096, 500), m1, "first connection");
            TcpFixture.assertImageEquals(r.seg.asSlice(8192, 600), m2, "duplicate connection");
        }
    }

    @Test
    @DisplayName("PSP-01 PSP-07 PSP-10 PSP-11: a PSP on a chosen TCP port; a second one on that port is"
            + " DAT_CONN_QUAL_IN_USE; after dat_psp_free a CR already delivered can still be accepted, and new"
            + " requests are NON_PEER_REJECTED")
    void pspOnChosenPort() throws IOException {
        int port = TcpFixture.freePort();
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = PublicServicePoint.create(server.ia, port, server.crEvd,
                    io.jdat.PspFlags.CONSUMER);
            assertEquals(port, psp.connQual());
            expectDat(DatReturnType.CONN_QUAL_IN_USE, null, () -> PublicServicePoint.create(server.ia, port,
                    server.crEvd, io.jdat.PspFlags.CONSUMER));
            Ep c = client.ep();
            Ep s = server.ep();
            c.connect(server, port, null, WAIT_US);
            ConnectionRequest cr = server.request();
            psp.free();
            cr.accept(s.ep, 0, null);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            Ep c2 = client.ep();
            c2.connect(server, port, null, WAIT_US);
            c2.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    @Test
    @DisplayName("RSP-02 RSP-03 RSP-04 RSP-07: an RSP on a TCP port delivers one CR carrying its EP; accepting it"
            + " (ep NULL) connects that EP; the port is not listened on afterwards")
    void rspOnTcpPort() throws IOException {
        int port = TcpFixture.freePort();
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            Ep s = server.ep();
            io.jdat.ReservedServicePoint.create(server.ia, port, s.ep, server.crEvd);
            assertEquals(EpState.RESERVED, s.ep.getStatus().epState());
            Ep c = client.ep();
            c.connect(server, port, new byte[] {3}, WAIT_US);
            DatEvent e = TcpFixture.next(server.crEvd);
            assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, e.eventNumber());
            CrParam cp = e.cr().query(CrParam.FIELD_ALL);
            assertEquals(s.ep, cp.localEpHandle());
            e.cr().accept(null, 0, null);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            Ep c2 = client.ep();
            c2.connect(server, port, null, WAIT_US);
            c2.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    // ------------------------------------------------------------------ failed connects

    @Test
    @DisplayName("CON-10 CRJ-02 CRJ-05: the consumer rejects the CR -> PEER_REJECTED with no private data, D,"
            + " receives flushed; the acceptor's EP is untouched")
    void peerRejected() {
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            Ep c = client.ep();
            Ep s = server.ep();
            Region r = client.region(4096);
            c.ep.postRecv(1, r.iov(0, 64), 21, CompletionFlags.DEFAULT);
            c.connect(server, psp.connQual(), pattern(7, 16), WAIT_US);
            server.request().reject();
            DatEvent e = c.expectConn(EventNumber.CONNECTION_EVENT_PEER_REJECTED);
            assertEquals(0, e.privateDataSize(), "1.2 rejects carry no private data");
            assertEquals(EpState.DISCONNECTED, c.ep.getStatus().epState());
            dto(c.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 21);
            assertEquals(EpState.UNCONNECTED, s.ep.getStatus().epState());
            assertEmpty(s.connEvd, "acceptor");
        }
    }

    @Test
    @DisplayName("CON-08: nothing listens on the TCP port -> NON_PEER_REJECTED, D, receives flushed")
    void nonPeerRejectedNobodyListens() throws IOException {
        int port = TcpFixture.freePort();
        try (Node client = new Node(TcpTesting.LO)) {
            Ep c = client.ep();
            Region r = client.region(4096);
            c.ep.postRecv(1, r.iov(0, 64), 11, CompletionFlags.DEFAULT);
            c.ep.connect(loopback(), port, WAIT_US, 3, new byte[] {1, 2, 3}, Qos.BEST_EFFORT, 0);
            DatEvent e = c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(0, e.privateDataSize());
            assertEquals(EpState.DISCONNECTED, c.ep.getStatus().epState());
            dto(c.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 11);
        }
    }

    @Test
    @DisplayName("CON-08: a TCP server that answers the MPA Request with bytes that are not an MPA Reply ->"
            + " NON_PEER_REJECTED, D")
    void nonPeerRejectedGarbageReply() throws Exception {
        try (RawServer raw = new RawServer(s -> {
            readFrame(new DataInputStream(s.getInputStream()));
            s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            Thread.sleep(Long.MAX_VALUE); // keep the stream open: the requester must judge the bytes
        }); Node client = new Node(TcpTesting.LO)) {
            Ep c = client.ep();
            c.ep.connect(loopback(), raw.port(), WAIT_US, 0, null, Qos.BEST_EFFORT, 0);
            c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, c.ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("CON-08: a TCP server that closes the stream right after reading the MPA Request ->"
            + " NON_PEER_REJECTED, D")
    void nonPeerRejectedClosedAfterRequest() throws Exception {
        try (RawServer raw = new RawServer(s -> {
            Frame req = readFrame(new DataInputStream(s.getInputStream()));
            assertTrue(req.isRequest());
            s.close();
        }); Node client = new Node(TcpTesting.LO)) {
            Ep c = client.ep();
            c.ep.connect(loopback(), raw.port(), WAIT_US, 0, null, Qos.BEST_EFFORT, 0);
            c.expectConn(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            assertEquals(EpState.DISCONNECTED, c.ep.getStatus().epState());
            raw.join();
        }
    }

    @Test
    @DisplayName("CON-14 CON-17: a TCP server that accepts and never answers -> TIMED_OUT after the 300 ms connect"
            + " timeout, D, receives flushed; the requester closes its stream")
    void timedOut() throws Exception {
        try (RawServer raw = new RawServer(s -> {
            DataInputStream in = new DataInputStream(s.getInputStream());
            readFrame(in);
            assertEquals(-1, in.read(), "the requester closes the stream when it gives up");
        }); Node client = new Node(TcpTesting.LO)) {
            Ep c = client.ep();
            Region r = client.region(4096);
            c.ep.postRecv(1, r.iov(0, 64), 31, CompletionFlags.DEFAULT);
            c.ep.connect(loopback(), raw.port(), SHORT_TIMEOUT_US, 0, null, Qos.BEST_EFFORT, 0);
            c.expectConn(EventNumber.CONNECTION_EVENT_TIMED_OUT);
            assertEquals(EpState.DISCONNECTED, c.ep.getStatus().epState());
            dto(c.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 31);
            raw.join();
            assertEmpty(c.connEvd, "one event per connect");
        }
    }

    @Test
    @DisplayName("CRA-06 CRA-07 CON-14: the requester times out before the consumer accepts; the accept then"
            + " fails with ACCEPT_COMPLETION_ERROR (p2p: no RTR comes), the acceptor's EP is D, receives flushed")
    void acceptCompletionError() {
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            Ep c = client.ep();
            Ep s = server.ep();
            Region r = server.region(4096);
            s.ep.postRecv(1, r.iov(0, 64), 41, CompletionFlags.DEFAULT);
            c.connect(server, psp.connQual(), null, SHORT_TIMEOUT_US);
            ConnectionRequest cr = server.request();
            c.expectConn(EventNumber.CONNECTION_EVENT_TIMED_OUT);
            cr.accept(s.ep, 0, null);
            s.expectConn(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, s.ep.getStatus().epState());
            dto(s.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 41);
            assertEmpty(c.connEvd, "the requester heard nothing more");
        }
    }

    @Test
    @DisplayName("CON-11: an address TCP cannot connect to (a multicast group: the kernel answers ENETUNREACH at"
            + " once) -> UNREACHABLE, D, receives flushed")
    void unreachable() throws IOException {
        InetSocketAddress group = new InetSocketAddress(InetAddress.getByName("224.0.0.1"), 0);
        String why;
        try (SocketChannel probe = SocketChannel.open()) {
            probe.bind(new InetSocketAddress(LOOPBACK, 0));
            probe.connect(new InetSocketAddress(group.getAddress(), 9));
            why = "connected";
        } catch (SocketException e) {
            why = String.valueOf(e.getMessage());
        }
        assumeTrue(why.contains("unreachable"), "this kernel does not refuse a TCP connect to a multicast group"
                + " with ENETUNREACH (" + why + "); without root no other address is unreachable at once here");
        try (Node client = new Node(TcpTesting.LO)) {
            Ep c = client.ep();
            Region r = client.region(4096);
            c.ep.postRecv(1, r.iov(0, 64), 51, CompletionFlags.DEFAULT);
            c.ep.connect(group, 4791, WAIT_US, 0, null, Qos.BEST_EFFORT, 0);
            c.expectConn(EventNumber.CONNECTION_EVENT_UNREACHABLE);
            assertEquals(EpState.DISCONNECTED, c.ep.getStatus().epState());
            dto(c.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 51);
        }
    }

    // ------------------------------------------------------------------ revision 1 and CRC

    static Stream<Arguments> rev1Pairs() {
        return Stream.of(Arguments.of(TcpTesting.LO_REV1, TcpTesting.LO), Arguments.of(TcpTesting.LO, TcpTesting.LO_REV1),
                Arguments.of(TcpTesting.LO_REV1, TcpTesting.LO_REV1));
    }

    static Stream<Arguments> crcPairs() {
        return Stream.of(Arguments.of(TcpTesting.LO, TcpTesting.LO_CRC), Arguments.of(TcpTesting.LO_CRC, TcpTesting.LO),
                Arguments.of(TcpTesting.LO_SMALL, TcpTesting.LO), Arguments.of(TcpTesting.LO, TcpTesting.LO_SMALL));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("rev1Pairs")
    @DisplayName("CON-04 CON-09 CRA-04 SND-09 RWR-02 RDR-02: an MPA revision-1 peer (either side) connects with"
            + " private data and carries verified sends both ways, an RDMA Write and an RDMA Read")
    void revisionOnePeer(String clientIa, String serverIa) {
        roundTrip(clientIa, serverIa);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("crcPairs")
    @DisplayName("CON-09 SND-09 RWR-02 RDR-02: CRC is used both ways when either side asks (IWARP.md §1): a peer"
            + " without crc=on and one with it (or with 100-byte segments) move verified data both ways")
    void crcEitherSide(String clientIa, String serverIa) {
        roundTrip(clientIa, serverIa);
    }

    /** Connects a {@code clientIa} EP to a {@code serverIa} EP and moves checked data every way. */
    private static void roundTrip(String clientIa, String serverIa) {
        try (Node client = new Node(clientIa); Node server = new Node(serverIa)) {
            PublicServicePoint psp = server.listen();
            Ep c = client.ep();
            Ep s = server.ep();
            byte[] req = pattern(1, 40);
            byte[] rep = pattern(2, 30);
            c.connect(server, psp.connQual(), req, WAIT_US);
            ConnectionRequest cr = server.request();
            assertArrayEquals(req, cr.query(CrParam.FIELD_ALL).privateData());
            cr.accept(s.ep, rep.length, rep);
            s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(rep, c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData());
            int n = 70_000;
            Region cr1 = client.region(4L * n);
            Region sr1 = server.region(4L * n);
            byte[] up = pattern(3, n);
            byte[] down = pattern(4, n);
            byte[] written = pattern(5, n);
            byte[] read = pattern(6, n);
            cr1.put(0, up, 0, n);
            cr1.put(n, written, 0, n);
            sr1.put(0, down, 0, n);
            sr1.put(3L * n, read, 0, n);
            s.ep.postRecv(1, sr1.iov(n, n), 1, CompletionFlags.DEFAULT);
            c.ep.postRecv(1, cr1.iov(2L * n, n), 2, CompletionFlags.DEFAULT);
            c.ep.postSend(1, cr1.iov(0, n), 3, CompletionFlags.DEFAULT);
            s.ep.postSend(1, sr1.iov(0, n), 4, CompletionFlags.DEFAULT);
            c.ep.postRdmaWrite(1, cr1.iov(n, n), 5, sr1.remote(2L * n, n), CompletionFlags.DEFAULT);
            c.ep.postRdmaRead(1, cr1.iov(3L * n, n), 6, sr1.remote(3L * n, n), CompletionFlags.DEFAULT);
            dtoOk(c.reqEvd, 3, n);
            dtoOk(c.reqEvd, 5, n);
            dtoOk(c.reqEvd, 6, n); // after the write: the target has placed it
            dtoOk(s.reqEvd, 4, n);
            dtoOk(s.recvEvd, 1, n);
            dtoOk(c.recvEvd, 2, n);
            TcpFixture.assertImageEquals(sr1.seg.asSlice(n, n), up, "send client -> server");
            TcpFixture.assertImageEquals(cr1.seg.asSlice(2L * n, n), down, "send server -> client");
            TcpFixture.assertImageEquals(sr1.seg.asSlice(2L * n, n), written, "RDMA Write");
            TcpFixture.assertImageEquals(cr1.seg.asSlice(3L * n, n), read, "RDMA Read");
        }
    }

    // ------------------------------------------------------------------ the wire

    @Test
    @DisplayName("CON-04 CRA-04: a raw revision-1 Request to a tcp PSP gets a revision-1 Reply (no enhanced flag, no"
            + " IRD/ORD block) carrying exactly the accept's private data; the acceptor is ESTABLISHED without an RTR")
    void rawRevisionOneRequest() throws Exception {
        try (Node server = new Node(TcpTesting.LO); Socket s = rawClient(server.listen().connQual())) {
            Ep ep = server.ep();
            OutputStream out = s.getOutputStream();
            out.write(frame(false, 0, 1, "abc".getBytes(StandardCharsets.US_ASCII)));
            ConnectionRequest cr = server.request();
            assertArrayEquals("abc".getBytes(StandardCharsets.US_ASCII), cr.query(CrParam.FIELD_ALL).privateData());
            cr.accept(ep.ep, 3, "xyz".getBytes(StandardCharsets.US_ASCII));
            Frame rep = readFrame(new DataInputStream(s.getInputStream()));
            assertTrue(rep.isReply(), "key");
            assertEquals(1, rep.revision());
            assertEquals(0, rep.flags(), "no markers, CRC, reject or enhanced flag");
            assertArrayEquals("xyz".getBytes(StandardCharsets.US_ASCII), rep.pd());
            ep.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            s.shutdownOutput(); // FIN at an FPDU boundary
            ep.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }

    @Test
    @DisplayName("CON-21 CON-23 CRA-10: a raw revision-2 Request without peer-to-peer (siw's default initiator):"
            + " the Reply is revision 2 with the IRD/ORD block, IRD = min(EP's max_rdma_read_in, requester's ORD),"
            + " ORD = min(max_rdma_read_out, requester's IRD), no P bit, and the acceptor needs no RTR")
    void rawRevisionTwoRequestWithoutP2p() throws Exception {
        try (Node server = new Node(TcpTesting.LO); Socket s = rawClient(server.listen().connQual())) {
            Ep ep = server.ep(new io.jdat.EpAttr().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(8)
                    .maxRequestDtos(8).maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4)
                    .maxRdmaReadIn(8).maxRdmaReadOut(8), 16);
            s.getOutputStream().write(frame(false, ENHANCED, 2, v2Block(2, 3, new byte[] {9})));
            ConnectionRequest cr = server.request();
            assertArrayEquals(new byte[] {9}, cr.query(CrParam.FIELD_ALL).privateData(), "the block is not the consumer's");
            cr.accept(ep.ep, 0, null);
            Frame rep = readFrame(new DataInputStream(s.getInputStream()));
            assertTrue(rep.isReply());
            assertEquals(2, rep.revision());
            assertEquals(ENHANCED, rep.flags(), "enhanced only: no M, C, R");
            assertEquals(4, rep.pd().length, "the block and no consumer data");
            assertEquals(3, rep.irdWord(), "IRD: min(8, requester's ORD 3), no P/S bits");
            assertEquals(2, rep.ordWord(), "ORD: min(8, requester's IRD 2), no W/R bits");
            ep.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        }
    }

    @Test
    @DisplayName("CON-02: the Request of a tcp EP is revision 2, enhanced, P2P with a Write RTR, no M or C, with"
            + " the EP's IRD/ORD and the consumer's data after the block; a revision-1 Reply is taken (RFC 6581"
            + " fallback): ESTABLISHED without an RTR, and a Send from the raw peer arrives")
    void rawRevisionOneResponder() throws Exception {
        byte[] msg = pattern(77, 100);
        try (RawServer raw = new RawServer(s -> {
            DataInputStream in = new DataInputStream(s.getInputStream());
            Frame req = readFrame(in);
            assertTrue(req.isRequest());
            assertEquals(2, req.revision());
            assertEquals(ENHANCED, req.flags(), "enhanced, no M, no C");
            assertEquals(0x8000 | 4, req.irdWord(), "P + the EP's max_rdma_read_in (4)");
            assertEquals(0x8000 | 4, req.ordWord(), "W (zero-length Write RTR) + max_rdma_read_out (4)");
            assertArrayEquals(new byte[] {5, 6}, req.ulpData());
            s.getOutputStream().write(frame(true, 0, 1, new byte[] {7}));
            s.getOutputStream().write(untaggedFpdu(0x3, true, 0, 1, 0, msg, false));
            assertEquals(-1, in.read(), "nothing but the FIN follows: no RTR towards a revision-1 responder");
            s.close(); // our FIN back: the graceful disconnect completes when both sides closed (issue 14 item 11)
        }); Node client = new Node(TcpTesting.LO)) {
            Ep c = client.ep();
            Region r = client.region(4096);
            c.ep.postRecv(1, r.iov(0, 200), 1, CompletionFlags.DEFAULT);
            c.ep.connect(loopback(), raw.port(), WAIT_US, 2, new byte[] {5, 6}, Qos.BEST_EFFORT, 0);
            DatEvent est = c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(new byte[] {7}, est.privateData());
            dtoOk(c.recvEvd, 1, 100);
            TcpFixture.assertImageEquals(r.seg.asSlice(0, 100), msg, "message from the raw peer");
            c.ep.disconnect(io.jdat.CloseFlags.GRACEFUL);
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            raw.join();
        }
    }

    @Test
    @DisplayName("CON-09 DSC-03 (IWARP.md §1, §3): a raw client asking for CRC gets C in the Reply of a crc=off IA, whose FPDUs then"
            + " carry a valid CRC32c; it checks the CRC of incoming FPDUs: a good one arrives, a corrupted one is"
            + " answered with an LLP CRC Terminate and BROKEN")
    void rawCrcRequested() throws Exception {
        try (Node server = new Node(TcpTesting.LO); Socket s = rawClient(server.listen().connQual())) {
            Ep ep = server.ep();
            Region r = server.region(8192);
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            out.write(frame(false, C | ENHANCED, 2, v2Block(4, 4, new byte[0])));
            ep.ep.postRecv(1, r.iov(0, 1000), 1, CompletionFlags.DEFAULT);
            ep.ep.postRecv(1, r.iov(1000, 1000), 2, CompletionFlags.DEFAULT);
            server.request().accept(ep.ep, 0, null);
            Frame rep = readFrame(in);
            assertEquals(C | ENHANCED, rep.flags(), "C echoed: CRC both ways");
            ep.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);

            // No RTR: the raw initiator speaks first (RFC 5044 §7.1.2, TcpResponderFirstFpduTest).
            byte[] up = pattern(9, 77);
            out.write(untaggedFpdu(0x3, true, 0, 1, 0, up, true));
            dtoOk(ep.recvEvd, 1, 77);
            TcpFixture.assertImageEquals(r.seg.asSlice(0, 77), up, "message with a good CRC");

            byte[] down = pattern(8, 50);
            r.put(4096, down, 0, 50);
            ep.ep.postSend(1, r.iov(4096, 50), 9, CompletionFlags.DEFAULT);
            dtoOk(ep.reqEvd, 9, 50);
            Fpdu f = readFpdu(in);
            assertEquals(f.crcComputed(), f.crcWire(), "CRC32c of the acceptor's FPDU");
            assertEquals(0x3, f.opcode(), "Send");
            assertTrue(f.last() && !f.tagged());
            assertEquals(0, f.qn());
            assertEquals(1, f.msn(), "the first Send is MSN 1");
            assertArrayEquals(down, f.untaggedPayload());
            byte[] bad = untaggedFpdu(0x3, true, 0, 2, 0, up, true);
            bad[bad.length - 1] ^= 0x55;
            out.write(bad);
            dto(ep.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            ep.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            Fpdu t = readFpdu(in);
            assertEquals(t.crcComputed(), t.crcWire(), "CRC32c of the Terminate");
            assertEquals(0x7, t.opcode(), "Terminate");
            assertEquals(2, t.qn(), "Terminates go on queue 2");
            assertEquals(2, t.word(18) >>> 28, "layer LLP");
            assertEquals(0x02, (t.word(18) >>> 16) & 0xFF, "code: CRC error");
            assertEquals(-1, in.read(), "a FIN follows the Terminate");
        }
    }

    /** A raw client connected to {@code server}'s PSP without peer-to-peer, IRD/ORD 1; the acceptor is ESTABLISHED. */
    private static Socket rawConnected(Node server, Ep ep) throws IOException {
        Socket s = rawClient(server.listen().connQual());
        s.getOutputStream().write(frame(false, ENHANCED, 2, v2Block(1, 1, new byte[0])));
        server.request().accept(ep.ep, 0, null);
        Frame rep = readFrame(new DataInputStream(s.getInputStream()));
        assertEquals(ENHANCED, rep.flags() & (ENHANCED | R));
        ep.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return s;
    }

    @Test
    @DisplayName("SND-12: a raw peer's Send with MSN 2 where MSN 1 is due is answered with a DDP untagged Terminate"
            + " (MSN out of range); the acceptor is BROKEN, its receive flushed, its buffer untouched")
    void rawSendOutOfOrder() throws Exception {
        try (Node server = new Node(TcpTesting.LO)) {
            Ep ep = server.ep();
            Region r = server.region(4096);
            ep.ep.postRecv(1, r.iov(0, 1000), 1, CompletionFlags.DEFAULT);
            try (Socket s = rawConnected(server, ep)) {
                s.getOutputStream().write(untaggedFpdu(0x3, true, 0, 2, 0, pattern(1, 40), false));
                ep.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
                dto(ep.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
                Fpdu t = readFpdu(new DataInputStream(s.getInputStream()));
                assertEquals(0x7, t.opcode(), "Terminate");
                assertEquals(1, t.word(18) >>> 28, "layer DDP");
                assertEquals(2, (t.word(18) >>> 24) & 0xF, "untagged buffer error");
                assertEquals(0x03, (t.word(18) >>> 16) & 0xFF, "MSN out of range");
                r.assertImage(TcpFixture.sentinelImage(4096), "receive buffer");
            }
        }
    }

    @Test
    @DisplayName("RDR-17 CON-21: IRD 1 negotiated with a raw peer that then sends two 8 MiB RDMA Read Requests"
            + " without reading the responses: the second exceeds the IRD and the acceptor breaks the connection")
    void rawReadsBeyondIrd() throws Exception {
        try (Node server = new Node(TcpTesting.LO)) {
            Ep ep = server.ep(new io.jdat.EpAttr().maxMessageSize(1 << 24).maxRdmaSize(1 << 24).maxRecvDtos(8)
                    .maxRequestDtos(8).maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4)
                    .maxRdmaReadIn(1).maxRdmaReadOut(1), 16);
            int size = 8 << 20;
            Region src = server.region(size);
            try (Socket s = rawConnected(server, ep)) {
                OutputStream out = s.getOutputStream();
                for (int msn = 1; msn <= 2; msn++) {
                    java.nio.ByteBuffer rr = java.nio.ByteBuffer.allocate(28);
                    rr.putInt(0x1000 + msn).putLong(0).putInt(size).putInt(src.lmr.rmrContext())
                            .putLong(src.lmr.registeredAddress());
                    out.write(untaggedFpdu(0x1, true, 1, msn, 0, rr.array(), false));
                }
                ep.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
                assertEquals(EpState.DISCONNECTED, ep.ep.getStatus().epState());
            }
        }
    }

    @Test
    @DisplayName("CON-10 PSP-02 (IWARP.md §1, §7): a raw Request with the markers bit gets a Reply with the reject"
            + " bit (and no M), which a requester reports as PEER_REJECTED; the consumer sees no connection request")
    void rawMarkersRejected() throws Exception {
        try (Node server = new Node(TcpTesting.LO); Socket s = rawClient(server.listen().connQual())) {
            s.getOutputStream().write(frame(false, M | ENHANCED, 2, v2Block(4, 4, new byte[] {1})));
            Frame rep = readFrame(new DataInputStream(s.getInputStream()));
            assertTrue(rep.isReply());
            assertEquals(R, rep.flags() & (R | M), "reject bit, no markers");
            assertEquals(-1, s.getInputStream().read(), "the stream ends after a reject");
            assertEmpty(server.crEvd, "no CR for a rejected Request");
        }
    }
}
