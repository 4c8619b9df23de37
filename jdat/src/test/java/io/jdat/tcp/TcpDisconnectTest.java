package io.jdat.tcp;

import static io.jdat.tcp.TcpFixture.pattern;
import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.PublicServicePoint;
import io.jdat.tcp.TcpFixture.Ep;
import io.jdat.tcp.TcpFixture.Node;
import io.jdat.tcp.TcpFixture.Region;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How {@code tcp} connections end: {@code dat_ep_disconnect} from either side, the flush rules of API.md
 * §7.5, a peer whose IA goes away (its TCP stream is reset), and reuse of the same EPs after
 * {@code dat_ep_reset}.
 */
public class TcpDisconnectTest {
    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    /** The IA both nodes open. */
    protected String ia() {
        return TcpTesting.LO;
    }

    /**
     * Whether a Send completes once it is on its way (iWARP: in the socket) rather than once the peer took it
     * into a receive buffer (then it waits, like the RDMA Read behind it, while the peer posts no receive).
     */
    protected boolean sendCompletesWhenSent() {
        return true;
    }

    /** Two nodes on {@code ia}, one EP each, connected through a PSP on the server. */
    private static final class Conn implements AutoCloseable {
        final Node client;
        final Node server;
        final PublicServicePoint psp;
        final Ep c;
        final Ep s;
        final Region cr;
        final Region sr;

        Conn(String ia) {
            client = new Node(ia);
            server = new Node(ia);
            psp = server.listen();
            c = client.ep();
            s = server.ep();
            cr = client.region(64 * 1024);
            sr = server.region(64 * 1024);
            TcpFixture.connect(c, s, psp);
        }

        @Override
        public void close() {
            try {
                client.close();
            } finally {
                server.close();
            }
        }
    }

    static Stream<Arguments> closers() {
        return Stream.of(Arguments.of("GRACEFUL", "client"), Arguments.of("GRACEFUL", "server"),
                Arguments.of("ABRUPT", "client"), Arguments.of("ABRUPT", "server"));
    }

    @ParameterizedTest(name = "{0} by the {1}")
    @MethodSource("closers")
    @DisplayName("DSC-02 DSC-11 DSC-17 RCV-08: either side disconnects (graceful or abrupt) with nothing in flight:"
            + " both get DISCONNECTED and are D, every posted receive of both is flushed, no other event")
    void eitherSide(String how, String who) {
        int flags = how.equals("GRACEFUL") ? CloseFlags.GRACEFUL : CloseFlags.ABRUPT;
        try (Conn x = new Conn(ia())) {
            boolean byClient = who.equals("client");
            Ep closer = byClient ? x.c : x.s;
            Ep peer = byClient ? x.s : x.c;
            Region closerMem = byClient ? x.cr : x.sr;
            Region peerMem = byClient ? x.sr : x.cr;
            closer.ep.postRecv(1, closerMem.iov(0, 64), 1, CompletionFlags.DEFAULT);
            peer.ep.postRecv(1, peerMem.iov(0, 64), 2, CompletionFlags.DEFAULT);
            peer.ep.postRecv(1, peerMem.iov(64, 64), 3, CompletionFlags.DEFAULT);
            closer.ep.disconnect(flags);
            closer.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, closer.ep.getStatus().epState());
            dto(closer.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
            peer.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, peer.ep.getStatus().epState());
            dto(peer.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            dto(peer.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            // RCV-08 / SND-06: posts in D are flushed at once
            peer.ep.postSend(1, peerMem.iov(0, 8), 4, CompletionFlags.DEFAULT);
            dto(peer.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 4);
            assertEmpty(closer.connEvd, "closer");
            assertEmpty(peer.connEvd, "peer");
            assertEmpty(closer.reqEvd, "closer requests");
        }
    }

    /**
     * Leaves an RDMA Read of the client outstanding for as long as the server posts no receive: the
     * server's receive path waits on the Send in front of the Read Request (receiver not ready).
     */
    private void readStuckBehindSend(Conn x, byte[] msg, byte[] data) {
        x.cr.put(0, msg, 0, msg.length);
        x.sr.put(8192, data, 0, data.length);
        x.c.ep.postSend(1, x.cr.iov(0, msg.length), 1, CompletionFlags.DEFAULT);
        if (sendCompletesWhenSent()) {
            dtoOk(x.c.reqEvd, 1, msg.length); // in the socket: complete at the initiator
        }
        x.c.ep.postRdmaRead(1, x.cr.iov(16384, data.length), 2, x.sr.remote(8192, data.length),
                CompletionFlags.DEFAULT);
        x.c.ep.postRecv(1, x.cr.iov(32768, 64), 3, CompletionFlags.DEFAULT);
        assertFalse(x.c.ep.getStatus().requestIdle(), "the read waits behind the unreceived send");
    }

    @Test
    @DisplayName("DSC-06 DSC-10 DSC-11 DSC-17: GRACEFUL with a read outstanding waits in DISCONNECT_PENDING; once"
            + " the read succeeds the client is D with DISCONNECTED, the server got the earlier message and sees"
            + " DISCONNECTED")
    void gracefulWaitsForOutstandingRead() {
        try (Conn x = new Conn(ia())) {
            byte[] msg = pattern(1, 300);
            byte[] data = pattern(2, 5000);
            readStuckBehindSend(x, msg, data);
            x.c.ep.disconnect(CloseFlags.GRACEFUL);
            assertEquals(EpState.DISCONNECT_PENDING, x.c.ep.getStatus().epState());
            assertEmpty(x.c.connEvd, "no DISCONNECTED while the read is outstanding");
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_DISCPENDING,
                    () -> x.c.ep.postSend(1, x.cr.iov(0, 8), 9, CompletionFlags.DEFAULT));
            x.s.ep.postRecv(1, x.sr.iov(0, 1024), 10, CompletionFlags.DEFAULT);
            dtoOk(x.s.recvEvd, 10, 300);
            if (!sendCompletesWhenSent()) {
                dtoOk(x.c.reqEvd, 1, 300);
            }
            dtoOk(x.c.reqEvd, 2, 5000);
            x.c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, x.c.ep.getStatus().epState());
            dto(x.c.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            x.s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            TcpFixture.assertImageEquals(x.sr.seg.asSlice(0, 300), msg, "message sent before the disconnect");
            TcpFixture.assertImageEquals(x.cr.seg.asSlice(16384, 5000), data, "read drained by the disconnect");
            assertEmpty(x.c.reqEvd, "client requests");
        }
    }

    @Test
    @DisplayName("DSC-06 DSC-11 DSC-17 SND-12: GRACEFUL right after posting 8 sends of 1 MiB (more than the sockets"
            + " hold): every send completes, the peer receives every byte, then both see DISCONNECTED")
    void gracefulDrainsLargeSends() {
        int n = 1 << 20;
        try (Conn x = new Conn(ia())) {
            Region src = x.client.region(8L * n);
            Region dst = x.server.region(8L * n);
            byte[] img = TcpFixture.sentinelImage(8L * n);
            for (int i = 0; i < 8; i++) {
                byte[] msg = pattern(300 + i, n);
                src.put((long) i * n, msg, 0, n);
                System.arraycopy(msg, 0, img, i * n, n);
                x.s.ep.postRecv(1, dst.iov((long) i * n, n), i, CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < 8; i++) {
                x.c.ep.postSend(1, src.iov((long) i * n, n), i, CompletionFlags.DEFAULT);
            }
            x.c.ep.disconnect(CloseFlags.GRACEFUL);
            for (int i = 0; i < 8; i++) {
                dtoOk(x.c.reqEvd, i, n);
            }
            x.c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            for (int i = 0; i < 8; i++) {
                dtoOk(x.s.recvEvd, i, n);
            }
            x.s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dst.assertImage(img, "messages sent before a graceful disconnect");
        }
    }

    @Test
    @DisplayName("DSC-03 DSC-04 DSC-07 DSC-17: ABRUPT with a read outstanding: D at once, the read and the receive"
            + " flushed in order; the server still gets the message sent before and then sees DISCONNECTED")
    void abruptFlushesOutstandingRead() {
        try (Conn x = new Conn(ia())) {
            byte[] msg = pattern(3, 300);
            readStuckBehindSend(x, msg, pattern(4, 5000));
            x.c.ep.disconnect(CloseFlags.GRACEFUL);
            assertEquals(EpState.DISCONNECT_PENDING, x.c.ep.getStatus().epState());
            x.c.ep.disconnect(CloseFlags.ABRUPT);
            assertEquals(EpState.DISCONNECTED, x.c.ep.getStatus().epState());
            if (!sendCompletesWhenSent()) {
                // The send was flushed at its sender: the receiver must not get it either.
                dto(x.c.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
            }
            dto(x.c.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            dto(x.c.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            x.c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertTrue(x.c.ep.getStatus().requestIdle() && x.c.ep.getStatus().recvIdle());
            if (!sendCompletesWhenSent()) {
                x.s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                x.s.ep.postRecv(1, x.sr.iov(0, 1024), 10, CompletionFlags.DEFAULT);
                dto(x.s.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 10);
                assertEmpty(x.c.reqEvd, "client requests");
                return;
            }
            x.s.ep.postRecv(1, x.sr.iov(0, 1024), 10, CompletionFlags.DEFAULT);
            dtoOk(x.s.recvEvd, 10, 300);
            x.s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            TcpFixture.assertImageEquals(x.sr.seg.asSlice(0, 300), msg, "message sent before the disconnect");
            assertEmpty(x.c.reqEvd, "client requests");
        }
    }

    @ParameterizedTest(name = "the {0}'s IA closes")
    @ValueSource(strings = {"client", "server"})
    @DisplayName("IAC-01 DSC-17 DSC-03: an IA closed abruptly resets its TCP streams: the peer sees BROKEN, is D,"
            + " its outstanding read and posted receives are flushed")
    void iaCloseBreaksPeer(String who) {
        try (Conn x = new Conn(ia())) {
            boolean clientGoes = who.equals("client");
            Ep survivor = clientGoes ? x.s : x.c;
            Region mem = clientGoes ? x.sr : x.cr;
            Region goneMem = clientGoes ? x.cr : x.sr;
            // The closing side has no receive: it stops reading at the survivor's Send, so the Read stays out.
            survivor.ep.postSend(1, mem.iov(0, 100), 1, CompletionFlags.DEFAULT);
            if (sendCompletesWhenSent()) {
                dtoOk(survivor.reqEvd, 1, 100);
            }
            survivor.ep.postRdmaRead(1, mem.iov(4096, 64), 2, goneMem.remote(0, 64), CompletionFlags.DEFAULT);
            survivor.ep.postRecv(1, mem.iov(8192, 64), 3, CompletionFlags.DEFAULT);
            survivor.ep.postRecv(1, mem.iov(8256, 64), 4, CompletionFlags.DEFAULT);
            (clientGoes ? x.client : x.server).closeAbrupt();
            survivor.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(EpState.DISCONNECTED, survivor.ep.getStatus().epState());
            if (!sendCompletesWhenSent()) {
                dto(survivor.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
            }
            dto(survivor.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            dto(survivor.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            dto(survivor.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 4);
            assertEmpty(survivor.connEvd, "one connection event");
        }
    }

    @Test
    @DisplayName("EPF-03 DSC-17: dat_ep_free of a connected EP ends its connection: the peer gets DISCONNECTED and"
            + " its receives are flushed")
    void freeConnectedEp() {
        try (Conn x = new Conn(ia())) {
            x.s.ep.postRecv(1, x.sr.iov(0, 64), 1, CompletionFlags.DEFAULT);
            x.c.ep.free();
            x.s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(x.s.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
        }
    }

    @Test
    @DisplayName("DSC-15 CRA-07: disconnect in ACTIVE_CONNECTION_PENDING after the request reached the server:"
            + " D, DISCONNECTED, receives flushed; the late accept fails with ACCEPT_COMPLETION_ERROR")
    void disconnectWhileConnecting() {
        try (Node client = new Node(ia()); Node server = new Node(ia())) {
            PublicServicePoint psp = server.listen();
            Ep c = client.ep();
            Ep s = server.ep();
            Region r = client.region(4096);
            c.ep.postRecv(1, r.iov(0, 64), 31, CompletionFlags.DEFAULT);
            c.connect(server, psp.connQual(), null, TcpFixture.WAIT_US);
            ConnectionRequest cr = server.request();
            c.ep.disconnect(CloseFlags.ABRUPT);
            assertEquals(EpState.DISCONNECTED, c.ep.getStatus().epState());
            c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(c.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 31);
            cr.accept(s.ep, 0, null);
            s.expectConn(EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEquals(EpState.DISCONNECTED, s.ep.getStatus().epState());
            assertEmpty(c.connEvd, "one event");
        }
    }

    @Test
    @DisplayName("RST-01 RST-07 DSC-02 DSC-17: the same two EPs connect, carry checked data both ways and"
            + " disconnect 10 times (graceful and abrupt, from either side), dat_ep_reset between rounds")
    void reconnectAfterReset() {
        try (Node client = new Node(ia()); Node server = new Node(ia())) {
            PublicServicePoint psp = server.listen();
            Ep c = client.ep();
            Ep s = server.ep();
            Region cr = client.region(16384);
            Region sr = server.region(16384);
            for (int round = 0; round < 10; round++) {
                TcpFixture.connect(c, s, psp);
                byte[] up = pattern(100 + round, 1000 + round);
                byte[] down = pattern(200 + round, 2000 - round);
                cr.put(0, up, 0, up.length);
                sr.put(0, down, 0, down.length);
                s.ep.postRecv(1, sr.iov(4096, 4096), round, CompletionFlags.DEFAULT);
                c.ep.postRecv(1, cr.iov(4096, 4096), round, CompletionFlags.DEFAULT);
                c.ep.postSend(1, cr.iov(0, up.length), round, CompletionFlags.DEFAULT);
                s.ep.postSend(1, sr.iov(0, down.length), round, CompletionFlags.DEFAULT);
                dtoOk(c.reqEvd, round, up.length);
                dtoOk(s.reqEvd, round, down.length);
                dtoOk(s.recvEvd, round, up.length);
                dtoOk(c.recvEvd, round, down.length);
                TcpFixture.assertImageEquals(sr.seg.asSlice(4096, up.length), up, "round " + round + " up");
                TcpFixture.assertImageEquals(cr.seg.asSlice(4096, down.length), down, "round " + round + " down");
                Ep closer = round % 2 == 0 ? c : s;
                closer.ep.disconnect(round % 4 < 2 ? CloseFlags.GRACEFUL : CloseFlags.ABRUPT);
                c.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                s.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
                for (Endpoint e : new Endpoint[] {c.ep, s.ep}) {
                    e.reset();
                    assertEquals(EpState.UNCONNECTED, e.getStatus().epState(), "round " + round);
                }
            }
            assertEmpty(c.connEvd, "client");
            assertEmpty(s.connEvd, "server");
        }
    }
}
