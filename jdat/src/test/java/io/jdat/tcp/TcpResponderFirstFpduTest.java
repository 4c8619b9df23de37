package io.jdat.tcp;

import static io.jdat.tcp.TcpFixture.C;
import static io.jdat.tcp.TcpFixture.ENHANCED;
import static io.jdat.tcp.TcpFixture.frame;
import static io.jdat.tcp.TcpFixture.pattern;
import static io.jdat.tcp.TcpFixture.rawClient;
import static io.jdat.tcp.TcpFixture.readFpdu;
import static io.jdat.tcp.TcpFixture.readFrame;
import static io.jdat.tcp.TcpFixture.untaggedFpdu;
import static io.jdat.tcp.TcpFixture.v2Block;
import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dtoOk;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.EventNumber;
import io.jdat.MemPriv;
import io.jdat.PublicServicePoint;
import io.jdat.Rmr;
import io.jdat.tcp.TcpFixture.Ep;
import io.jdat.tcp.TcpFixture.Fpdu;
import io.jdat.tcp.TcpFixture.Frame;
import io.jdat.tcp.TcpFixture.Node;
import io.jdat.tcp.TcpFixture.Region;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RFC 5044 §7.1.2 on {@code tcp}: the responder of a connection that did not negotiate RFC 6581 peer-to-peer
 * mode (no RTR) sends no FPDU before the initiator's first FPDU arrived; what it posts meanwhile waits and goes
 * out, in order, once that FPDU is in. With peer-to-peer mode the RTR is the initiator's first FPDU and the
 * responder sends at once. The Linux soft-iWARP initiator needs this: an FPDU that follows its MPA Reply too
 * closely can be missed (siw-vm README).
 */
class TcpResponderFirstFpduTest {
    /** How long the wire must stay silent while the responder holds its Send. */
    private static final int SILENCE_MS = 400;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    /** A tagged FPDU (RDMA Write) with a CRC field, 0 when {@code withCrc} is false. */
    private static byte[] writeFpdu(int stag, long to, byte[] payload, boolean withCrc) {
        int ulpdu = 14 + payload.length;
        int pad = (-(2 + ulpdu)) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu + pad + 4);
        b.putShort((short) ulpdu).put((byte) (0x80 | 0x40 | 1)).put((byte) 0x40).putInt(stag).putLong(to).put(payload);
        b.position(2 + ulpdu + pad);
        int value = withCrc ? TcpFixture.crc(b.array(), 2 + ulpdu + pad) : 0;
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(value);
        return b.array();
    }

    /** Asserts that nothing arrives on {@code s} for {@link #SILENCE_MS}, then restores the read timeout. */
    private static void assertSilent(Socket s, String what) throws IOException {
        s.setSoTimeout(SILENCE_MS);
        try {
            assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read(), what);
        } finally {
            s.setSoTimeout(10_000);
        }
    }

    /**
     * Connects a raw initiator without peer-to-peer mode to {@code server} and returns its socket once the
     * acceptor is ESTABLISHED.
     */
    private static Socket rawInitiator(Node server, PublicServicePoint psp, Ep ep, int revision, boolean crc)
            throws IOException {
        Socket s = rawClient(psp.connQual());
        int flags = (crc ? C : 0) | (revision == 2 ? ENHANCED : 0);
        byte[] pd = revision == 2 ? v2Block(4, 4, new byte[0]) : new byte[0];
        s.getOutputStream().write(frame(false, flags, revision, pd));
        server.request().accept(ep.ep, 0, null);
        Frame rep = readFrame(new DataInputStream(s.getInputStream()));
        assertTrue(rep.isReply(), "an MPA Reply");
        assertEquals(0, rep.irdWord() & 0x8000, "no peer-to-peer mode in the Reply");
        ep.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        return s;
    }

    @ParameterizedTest(name = "revision {0}, crc {1}, the initiator's first FPDU: {2}")
    @CsvSource({"2, false, send", "2, true, send", "1, false, send", "2, false, write", "1, true, write"})
    @DisplayName("without peer-to-peer mode, the acceptor's Sends wait on the wire until the initiator's first FPDU"
            + " (a Send or an RDMA Write) arrived, then go in order with MSN 1 and 2 and complete")
    void sendsWaitForTheInitiatorsFirstFpdu(int revision, boolean crc, String first) throws Exception {
        try (Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            Ep ep = server.ep();
            Region r = server.region(8192);
            ep.ep.postRecv(1, r.iov(0, 1000), 1, CompletionFlags.DEFAULT);
            try (Socket s = rawInitiator(server, psp, ep, revision, crc)) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream();
                byte[] down1 = pattern(31, 50);
                byte[] down2 = pattern(32, 3000);
                r.put(4096, down1, 0, down1.length);
                r.put(5000, down2, 0, down2.length);
                ep.ep.postSend(1, r.iov(4096, down1.length), 9, CompletionFlags.DEFAULT);
                ep.ep.postSend(1, r.iov(5000, down2.length), 10, CompletionFlags.DEFAULT);
                assertSilent(s, "the acceptor sends nothing before the initiator's first FPDU");
                assertEmpty(ep.reqEvd, "the held Sends have not completed");

                byte[] up = pattern(33, 77);
                if (first.equals("send")) {
                    out.write(untaggedFpdu(0x3, true, 0, 1, 0, up, crc));
                } else {
                    out.write(writeFpdu(r.lmr.rmrContext(), r.seg.address() + 2048, up, crc));
                }
                Fpdu f1 = readFpdu(in);
                assertEquals(0x3, f1.opcode(), "the first held Send");
                assertEquals(1, f1.msn(), "MSN 1");
                assertArrayEquals(down1, f1.untaggedPayload());
                Fpdu f2 = readFpdu(in);
                assertEquals(2, f2.msn(), "then the second, MSN 2");
                assertArrayEquals(down2, f2.untaggedPayload());
                if (crc) {
                    assertEquals(f1.crcComputed(), f1.crcWire(), "CRC32c of the first Send");
                    assertEquals(f2.crcComputed(), f2.crcWire(), "CRC32c of the second Send");
                }
                dtoOk(ep.reqEvd, 9, down1.length);
                dtoOk(ep.reqEvd, 10, down2.length);
                if (first.equals("send")) {
                    dtoOk(ep.recvEvd, 1, up.length);
                    TcpFixture.assertImageEquals(r.seg.asSlice(0, up.length), up, "the initiator's Send");
                } else {
                    TcpFixture.assertImageEquals(r.seg.asSlice(2048, up.length), up, "the initiator's RDMA Write");
                }
            }
        }
    }

    @Test
    @DisplayName("while the acceptor holds its Sends, an RMR bind posted first completes at once (it sends nothing);"
            + " a bind posted behind a held Send completes after it")
    void bindsDoNotWaitForTheFirstFpdu() throws Exception {
        try (Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            Ep ep = server.ep();
            Region r = server.region(8192);
            try (Socket s = rawInitiator(server, psp, ep, 2, false)) {
                Rmr rmr1 = Rmr.create(server.pz);
                Rmr rmr2 = Rmr.create(server.pz);
                rmr1.bind(r.lmr.triplet(0, 1024), MemPriv.REMOTE_WRITE, ep.ep, 1, CompletionFlags.DEFAULT);
                io.jdat.testing.DataPath.bind(ep.reqEvd, io.jdat.DtoCompletionStatus.SUCCESS, 1);
                ep.ep.postSend(1, r.iov(4096, 8), 2, CompletionFlags.DEFAULT);
                rmr2.bind(r.lmr.triplet(1024, 1024), MemPriv.REMOTE_WRITE, ep.ep, 3, CompletionFlags.DEFAULT);
                assertSilent(s, "the Send is held");
                assertEmpty(ep.reqEvd, "neither the held Send nor the bind behind it completed");
                s.getOutputStream().write(writeFpdu(r.lmr.rmrContext(), r.seg.address(), new byte[0], false));
                Fpdu f = readFpdu(new DataInputStream(s.getInputStream()));
                assertEquals(0x3, f.opcode(), "the Send");
                dtoOk(ep.reqEvd, 2, 8);
                io.jdat.testing.DataPath.bind(ep.reqEvd, io.jdat.DtoCompletionStatus.SUCCESS, 3);
            }
        }
    }

    @Test
    @DisplayName("with peer-to-peer mode the RTR is the initiator's first FPDU: the acceptor's Send goes out at once,"
            + " with nothing more from the initiator")
    void peerToPeerSendsAtOnce() throws Exception {
        try (Node server = new Node(TcpTesting.LO)) {
            PublicServicePoint psp = server.listen();
            Ep ep = server.ep();
            Region r = server.region(8192);
            try (Socket s = rawClient(psp.connQual())) {
                DataInputStream in = new DataInputStream(s.getInputStream());
                s.getOutputStream().write(frame(false, ENHANCED, 2, v2Block(0x8000 | 4, 0x8000 | 4, new byte[0])));
                server.request().accept(ep.ep, 0, null);
                Frame rep = readFrame(in);
                assertEquals(0x8000, rep.irdWord() & 0x8000, "peer-to-peer mode accepted");
                assertEquals(0x8000, rep.ordWord() & 0x8000, "with a zero-length RDMA Write as the RTR");
                s.getOutputStream().write(writeFpdu(0, 0, new byte[0], false)); // the RTR
                ep.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                byte[] down = pattern(41, 64);
                r.put(0, down, 0, down.length);
                ep.ep.postSend(1, r.iov(0, down.length), 5, CompletionFlags.DEFAULT);
                Fpdu f = readFpdu(in);
                assertEquals(0x3, f.opcode(), "the Send, right after the RTR");
                assertArrayEquals(down, f.untaggedPayload());
                dtoOk(ep.reqEvd, 5, down.length);
            }
        }
    }

    @Test
    @DisplayName("jdat to jdat, revision 1 (no RTR): the server's Send posted first is delivered once the client's"
            + " first Send arrived, both complete")
    void revisionOneBetweenJdatIas() throws InterruptedException {
        try (Node server = new Node(TcpTesting.LO_REV1); Node client = new Node(TcpTesting.LO_REV1)) {
            PublicServicePoint psp = server.listen();
            Ep s = server.ep();
            Ep c = client.ep();
            Region sr = server.region(4096);
            Region cr = client.region(4096);
            byte[] down = pattern(51, 100);
            byte[] up = pattern(52, 200);
            sr.put(0, down, 0, down.length);
            cr.put(0, up, 0, up.length);
            s.ep.postRecv(1, sr.iov(1024, 1024), 1, CompletionFlags.DEFAULT);
            c.ep.postRecv(1, cr.iov(1024, 1024), 2, CompletionFlags.DEFAULT);
            TcpFixture.connect(c, s, psp);
            s.ep.postSend(1, sr.iov(0, down.length), 3, CompletionFlags.DEFAULT);
            Thread.sleep(SILENCE_MS);
            assertEmpty(c.recvEvd, "the server's Send waits for the client's first FPDU");
            assertEmpty(s.reqEvd, "and has not completed");
            c.ep.postSend(1, cr.iov(0, up.length), 4, CompletionFlags.DEFAULT);
            dtoOk(s.recvEvd, 1, up.length);
            dtoOk(c.recvEvd, 2, down.length);
            dtoOk(s.reqEvd, 3, down.length);
            dtoOk(c.reqEvd, 4, up.length);
            TcpFixture.assertImageEquals(sr.seg.asSlice(1024, up.length), up, "the client's message");
            TcpFixture.assertImageEquals(cr.seg.asSlice(1024, down.length), down, "the server's message");
        }
    }
}
