package io.jdat.tcp;

import static io.jdat.tcp.TcpFixture.pattern;
import static io.jdat.testing.DataPath.dtoOk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.tcp.TcpFixture.Ep;
import io.jdat.tcp.TcpFixture.Node;
import io.jdat.tcp.TcpFixture.Region;
import io.jdat.testing.net.Direction;
import io.jdat.testing.net.FaultProxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 14 item 11: a graceful close delivers every byte reported complete. RDMA Writes complete when their
 * bytes are in the socket (iWARP), so a graceful {@code dat_ep_disconnect} reports DISCONNECTED only after the
 * stream drained and both FINs were exchanged, and a graceful {@code dat_ia_close} lets closing connections
 * finish instead of resetting them; only an abrupt close resets. The peer here reads at a trickle through a
 * {@link RecordingProxy}, so the bytes reported complete are still in the client's socket when it closes.
 */
class TcpGracefulCloseTest {
    /** Loopback with a short close_timeout, for the drain the peer never finishes. */
    static final String LO_CLOSE = "tcp-test-close";
    private static final int WRITE = 64 * 1024;
    private static final int WRITES = 40;
    /** The proxy reads the client's stream 16 KiB every 10 ms: about 1.6 MB/s. */
    private static final int TRICKLE = 16 * 1024;
    private static final long PAUSE_MS = 10;

    @BeforeAll
    static void register() {
        TcpTesting.register();
        try {
            Registry.addProvider(new RegistryEntry(LO_CLOSE, 'u', 1, 2, true, false, "tcp", "jdat", 1, 0,
                    "127.0.0.1 close_timeout=700", ""));
        } catch (io.jdat.DatException e) {
            if (e.type() != io.jdat.DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
    }

    private static EpAttr attr() {
        return new EpAttr().maxMessageSize(1 << 22).maxRdmaSize(1 << 22).maxRecvDtos(8).maxRequestDtos(WRITES + 8)
                .maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4).maxRdmaReadIn(4)
                .maxRdmaReadOut(4);
    }

    /** Client and server EPs connected through {@code proxy} (to {@code psp}). */
    private static void connectThrough(Ep c, Ep s, int proxyPort) {
        c.ep.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), proxyPort, TcpFixture.WAIT_US, 0,
                null, Qos.BEST_EFFORT, 0);
        s.node.request().accept(s.ep, 0, null);
        s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    /** Posts the Writes (a distinct pattern each) and waits until every one completed SUCCESS. */
    private static byte[] writeAll(Ep c, Region cr, Region sr) {
        byte[] image = pattern(11, WRITES * WRITE);
        cr.put(0, image, 0, image.length);
        for (int i = 0; i < WRITES; i++) {
            c.ep.postRdmaWrite(1, cr.iov((long) i * WRITE, WRITE), i, sr.remote((long) i * WRITE, WRITE),
                    CompletionFlags.DEFAULT);
        }
        for (int i = 0; i < WRITES; i++) {
            dtoOk(c.reqEvd, i, WRITE);
        }
        return image;
    }

    /** Frees the client's objects (its EP first, connected or not) and closes its IA gracefully. */
    private static void closeGracefully(Node client, Ep c, Region cr) {
        c.ep.free();
        cr.lmr.free();
        c.reqEvd.free();
        c.recvEvd.free();
        c.connEvd.free();
        client.crEvd.free();
        client.pz.free();
        client.ia.close(CloseFlags.GRACEFUL);
        client.closedByTest();
    }

    @Test
    @DisplayName("DSC-06 DSC-11 DSC-17: after 40 RDMA Writes of 64 KiB all completed, a graceful disconnect towards"
            + " a peer that reads at a trickle reports DISCONNECTED only once the peer has every byte; a graceful"
            + " IA close then ends with FINs both ways (no reset) and the peer sees DISCONNECTED")
    void gracefulDisconnectDeliversEveryCompletedWrite() throws Exception {
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), (int) psp.connQual());
            try (RecordingProxy proxy = new RecordingProxy(target, TRICKLE, PAUSE_MS)) {
                Ep c = client.ep(attr(), WRITES + 8);
                Ep s = server.ep(attr(), 16);
                Region cr = client.region((long) WRITES * WRITE);
                Region sr = server.region((long) WRITES * WRITE);
                connectThrough(c, s, proxy.port());
                byte[] image = writeAll(c, cr, sr);
                int upAtCompletion = proxy.upstream().length;

                c.ep.disconnect(CloseFlags.GRACEFUL);
                c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertTrue(upAtCompletion < WRITES * WRITE, "the test needs bytes reported complete that the peer"
                        + " had not read yet: the proxy had " + upAtCompletion + " bytes at the last completion");
                // DISCONNECTED means the peer took everything: it placed every Write before it saw our FIN.
                sr.seg.asSlice(0, image.length);
                TcpFixture.assertImageEquals(sr.seg, image, "the server's memory when the client saw DISCONNECTED");
                assertEquals("FIN", proxy.clientEnd(), "the client's stream ended with a FIN");
                s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                assertEquals(EpState.DISCONNECTED, c.ep.query(io.jdat.EpParam.FIELD_ALL).epState());

                closeGracefully(client, c, cr);
                assertTrue(proxy.awaitEnd(5_000), "both streams ended");
                assertEquals("FIN", proxy.clientEnd(), "client stream");
                assertEquals("FIN", proxy.serverEnd(), "server stream");
            }
        }
    }

    @Test
    @DisplayName("IAC-04: an EP freed right after its RDMA Writes completed, then a graceful IA close: the closing"
            + " connection drains to the slow peer (every Write arrives, the peer sees DISCONNECTED, the client's"
            + " stream ends with a FIN, not a reset)")
    void gracefulIaCloseDrainsAFreedEpsConnection() throws Exception {
        try (Node client = new Node(TcpTesting.LO); Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), (int) psp.connQual());
            try (RecordingProxy proxy = new RecordingProxy(target, TRICKLE, PAUSE_MS)) {
                Ep c = client.ep(attr(), WRITES + 8);
                Ep s = server.ep(attr(), 16);
                Region cr = client.region((long) WRITES * WRITE);
                Region sr = server.region((long) WRITES * WRITE);
                connectThrough(c, s, proxy.port());
                byte[] image = writeAll(c, cr, sr);
                int upAtCompletion = proxy.upstream().length;

                closeGracefully(client, c, cr);
                assertTrue(upAtCompletion < WRITES * WRITE, "the proxy had " + upAtCompletion + " bytes");
                s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                TcpFixture.assertImageEquals(sr.seg, image, "the server's memory");
                assertTrue(proxy.awaitEnd(5_000), "both streams ended");
                assertEquals("FIN", proxy.clientEnd(), "client stream");
            }
        }
    }

    @Test
    @DisplayName("a graceful disconnect whose peer never takes the bytes nor closes breaks after close_timeout"
            + " (BROKEN, the stream reset), instead of reporting DISCONNECTED for bytes that never arrived")
    void drainThePeerNeverFinishesBreaksAfterCloseTimeout() throws Exception {
        try (Node client = new Node(LO_CLOSE); Node server = new Node(LO_CLOSE)) {
            PublicServicePoint psp = server.listen();
            try (FaultProxy proxy = FaultProxy.start(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    (int) psp.connQual()))) {
                Ep c = client.ep(attr(), WRITES + 8);
                Ep s = server.ep(attr(), 16);
                Region cr = client.region(WRITE);
                Region sr = server.region(WRITE);
                connectThrough(c, s, proxy.port());
                proxy.stall(Direction.CLIENT_TO_SERVER);
                c.ep.postRdmaWrite(1, cr.iov(0, WRITE), 1, sr.remote(0, WRITE), CompletionFlags.DEFAULT);
                dtoOk(c.reqEvd, 1, WRITE);
                long t0 = System.nanoTime();
                c.ep.disconnect(CloseFlags.GRACEFUL);
                assertEquals(EpState.DISCONNECT_PENDING, c.ep.query(io.jdat.EpParam.FIELD_ALL).epState(),
                        "waiting for the peer");
                DatEvent e = c.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(ms >= 600 && ms < 3_000, "BROKEN after close_timeout (700 ms): " + ms + " ms, " + e);
            }
        }
    }
}
