package io.jdat.tcp;

import static io.jdat.tcp.TcpFixture.pattern;
import static io.jdat.testing.DataPath.dtoOk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.tcp.TcpFixture.Ep;
import io.jdat.tcp.TcpFixture.Node;
import io.jdat.tcp.TcpFixture.Region;
import io.jdat.testing.wire.Fpdu;
import io.jdat.testing.wire.IwarpConnection;
import io.jdat.testing.wire.IwarpStreamDecoder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 14 item 8: each connection sizes its MULPDU from its effective MSS ({@code TCP_MAXSEG}), as RFC 5044
 * §4.1 says, so that every FPDU fits one TCP segment (IWARP.md §3, "Segment sizing").
 */
class TcpMulpduTest {
    private static final int BIG = 1 << 20;
    private static final int SEND = 200 * 1024;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    @DisplayName("RFC 5044 §4.1 without markers: MULPDU = EMSS - (6 + EMSS mod 4), so an FPDU is at most EMSS bytes")
    void mulpduOfMssFollowsRfc5044() {
        for (int emss : new int[] {536, 1448, 1460, 8948, 9001, 65483, 65495}) {
            int m = TcpConfig.mulpduOfMss(emss);
            int fpdu = 2 + m + Fpdu.pad(m) + 4;
            assertTrue(fpdu <= emss, "EMSS " + emss + ": MULPDU " + m + " makes FPDUs of " + fpdu + " bytes");
            assertTrue(fpdu > emss - 4, "EMSS " + emss + ": MULPDU " + m + " wastes more than the alignment");
        }
        assertEquals(1442, TcpConfig.mulpduOfMss(1448), "an Ethernet MSS gives the classic 1442");
        assertEquals(TcpConfig.LOOPBACK_MULPDU, TcpConfig.mulpduOfMss(1 << 20), "capped by the 16-bit length");
    }

    @Test
    @DisplayName("the effective MSS of a loopback connection is read through FFM (TCP_MAXSEG)")
    void readsTheMssOfAConnection() throws Exception {
        assertTrue(SocketFd.available(), "getsockopt is bound (the tests run with native access)");
        try (java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(ss.getLocalSocketAddress());
                Socket peer = ss.accept()) {
            int mss = SocketFd.maxSegment(ch);
            assertTrue(mss > 1000 && mss < 65536, "loopback MSS " + mss);
            assertEquals(mss, SocketFd.readMaxSegment((InetSocketAddress) ch.getLocalAddress(),
                    (InetSocketAddress) ch.getRemoteAddress()), "read, not estimated");
        }
    }

    @Test
    @DisplayName("on loopback every FPDU jdat emits, both ways, fits one TCP segment of its connection (FPDU length"
            + " <= TCP_MAXSEG), and 1 MiB RDMA Writes and Reads and a 200 KiB Send still arrive intact")
    void everyFpduFitsOneSegment() throws Exception {
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), (int) psp.connQual());
            try (RecordingProxy proxy = new RecordingProxy(target, 0, 0)) {
                EpAttr attr = new EpAttr().maxMessageSize(1 << 22).maxRdmaSize(1 << 22).maxRecvDtos(8)
                        .maxRequestDtos(8).maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4)
                        .maxRdmaReadIn(4).maxRdmaReadOut(4);
                Ep c = client.ep(attr, 16);
                Ep s = server.ep(attr, 16);
                Region cr = client.region(4L * BIG);
                Region sr = server.region(4L * BIG);
                c.ep.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), proxy.port(),
                        TcpFixture.WAIT_US, 0, null, Qos.BEST_EFFORT, 0);
                server.request().accept(s.ep, 0, null);
                s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);

                byte[] w = pattern(1, BIG);
                byte[] r = pattern(2, BIG);
                byte[] m = pattern(3, SEND);
                cr.put(0, w, 0, BIG);
                sr.put(BIG, r, 0, BIG);
                cr.put(2L * BIG, m, 0, SEND);
                s.ep.postRecv(1, sr.iov(2L * BIG, SEND), 7, CompletionFlags.DEFAULT);
                c.ep.postRdmaWrite(1, cr.iov(0, BIG), 1, sr.remote(0, BIG), CompletionFlags.DEFAULT);
                c.ep.postRdmaRead(1, cr.iov(BIG, BIG), 2, sr.remote(BIG, BIG), CompletionFlags.DEFAULT);
                c.ep.postSend(1, cr.iov(2L * BIG, SEND), 3, CompletionFlags.DEFAULT);
                dtoOk(c.reqEvd, 1, BIG);
                dtoOk(c.reqEvd, 2, BIG);
                dtoOk(c.reqEvd, 3, SEND);
                dtoOk(s.recvEvd, 7, SEND);
                TcpFixture.assertImageEquals(sr.seg.asSlice(0, BIG), w, "RDMA Write");
                TcpFixture.assertImageEquals(cr.seg.asSlice(BIG, BIG), r, "RDMA Read");
                TcpFixture.assertImageEquals(sr.seg.asSlice(2L * BIG, SEND), m, "Send");

                int clientMss = mss(proxy.clientLeg());
                int serverMss = mss(proxy.serverLeg());
                IwarpConnection conn = IwarpStreamDecoder.decode(proxy.upstream(), proxy.downstream());
                assertFits(conn.initiatorFpdus(), clientMss, "client to proxy");
                assertFits(conn.responderFpdus(), serverMss, "server to proxy");
                // Linux bounds the MSS by half the largest window seen, so a fresh loopback connection reads
                // about 32 KiB; the MSS grows later, and the MULPDU with it (TcpMssFollowTest): read at the end,
                // the sender's MSS is the largest it had, which every FPDU fits.
                int largest = conn.initiatorFpdus().stream().mapToInt(Fpdu::length).max().orElse(0);
                assertTrue(largest > 16 * 1024, "the client's large FPDUs are MSS-sized, not small: " + largest);
            }
        }
    }

    /**
     * The MSS of jdat's socket at the other end of the proxy's {@code leg} (this JVM's, found by its addresses):
     * the sender's, which sizes its segments and, since issue 18, its FPDUs as it grows. The proxy's own MSS
     * toward jdat is bounded by half of jdat's window, not the proxy's, so it may stay smaller.
     */
    private static int mss(Socket leg) {
        int m = SocketFd.readMaxSegment((InetSocketAddress) leg.getRemoteSocketAddress(),
                (InetSocketAddress) leg.getLocalSocketAddress());
        assertTrue(m > 0, "TCP_MAXSEG of jdat's socket at the other end of the proxy's leg " + leg);
        return m;
    }

    private static void assertFits(List<Fpdu> fpdus, int mss, String what) {
        assertTrue(fpdus.size() > 16, what + ": " + fpdus.size() + " FPDUs decoded");
        for (Fpdu f : fpdus) {
            assertTrue(f.length() <= mss, what + ": an FPDU of " + f.length() + " bytes (ULPDU " + f.ulpduLength()
                    + ") does not fit one segment of MSS " + mss);
        }
    }
}
