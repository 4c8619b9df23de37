package io.jdat.tcp;

import static io.jdat.testing.net.Direction.CLIENT_TO_SERVER;
import static io.jdat.testing.net.Direction.SERVER_TO_CLIENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpParam;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.testing.DataPath;
import io.jdat.testing.net.Direction;
import io.jdat.testing.net.FaultProxy;
import io.jdat.testing.wire.Fpdu;
import io.jdat.testing.wire.IwarpConnection;
import io.jdat.testing.wire.IwarpStreamDecoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code tcp} transport with a {@link FaultProxy} between the two EPs: arbitrary segmentation (one byte
 * per TCP write, and 256 KiB gathered into one), a stall, a reset in the middle of a message, and corrupted
 * bytes, caught by the MPA CRC or, without it, by the DDP/RDMAP header checks.
 *
 * <p>Every test connects client → proxy → server: the server's service point takes an ephemeral port, the
 * proxy forwards to it, and the client connects to the proxy's port. Stream offsets for the one-shot faults
 * are computed from the wire format (the start-up's size, checked against {@link FaultProxy#bytesForwarded}
 * after every connect, plus the FPDUs of earlier messages), not read from the proxy's counters, which count
 * a write only once it has returned, possibly after the peer has read it.
 *
 * <p>The corruption tests put a recording relay ({@link Tap}) between the proxy and the server, and decode
 * what it saw with the independent reference decoder of {@code io.jdat.testing.wire}: the Terminate the
 * server sent, its layer/type/code, and which FPDU was corrupted.
 *
 * <p>What the tests hold the transport to: data arrives intact under any segmentation; completions come in
 * order; a broken stream (reset, Terminate) gives both EPs {@code DAT_CONNECTION_EVENT_BROKEN} with every
 * outstanding DTO completed first, FLUSHED (the one request the failure hit may carry its own error); and
 * nothing corrupt, partial or misplaced is ever reported as a successful receive or written outside the
 * range the target registered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpFaultTest {
    /** Event waits: generous, the machine is shared. Microseconds. */
    private static final int WAIT_US = 10_000_000;
    /** How long "nothing completes" is watched for. Microseconds. */
    private static final int QUIET_US = 300_000;
    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final byte SENTINEL = DataPath.SENTINEL;
    /** Message sizes for the segmentation tests: around every size boundary of the transport. */
    private static final int[] SIZES = {1, 2, 3, 4, 5, 7, 13, 64, 100, 255, 1023, 1024, 1025, 2047, 2048, 2049, 4095,
        4096, 5000};
    /** The MPA framing (RFC 5044) around a ULPDU, and the untagged DDP header (RFC 5041). */
    private static final int LENGTH_FIELD = 2;
    private static final int UNTAGGED = 18;
    private static final int CRC_FIELD = 4;
    /**
     * Client → server bytes of the start-up: the MPA Request (20-byte header, the 4-byte IRD/ORD block of
     * revision 2, no private data), then the RTR, a zero-length RDMA Write (2 + 14 + 0 pad + 4).
     */
    private static final long HANDSHAKE_UP = 20 + 4 + 20;
    /** Server → client bytes of the start-up: the MPA Reply. */
    private static final long HANDSHAKE_DOWN = 20 + 4;

    private Side client;
    private Side server;
    private EventDispatcher crEvd;
    private PublicServicePoint psp;
    private FaultProxy proxy;
    private Tap tap;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (tap != null) {
            tap.close();
        }
    }

    // ================================================================== (1) byte by byte

    /**
     * One byte per TCP write in both directions, from the MPA Request on: sends of every boundary size both
     * ways, RDMA Writes and Reads both ways, all verified byte for byte.
     */
    @ParameterizedTest
    @ValueSource(strings = {TcpTesting.LO, TcpTesting.LO_CRC, TcpTesting.LO_SMALL})
    void byteByByteDeliveryBothWays(String iaName) throws Exception {
        open(iaName, 2 * MIB, 2 * MIB);
        startProxy(false);
        proxy.byteByByte(CLIENT_TO_SERVER);
        proxy.byteByByte(SERVER_TO_CLIENT);
        connect();

        sendsOfEverySize(client, server, 1);
        sendsOfEverySize(server, client, 2);
        rdmaWriteThenReadBack(client, server, 4099, 3);
        rdmaWriteThenReadBack(server, client, 3001, 4);

        for (Direction d : Direction.values()) {
            long bytes = proxy.bytesForwarded(d);
            assertTrue(bytes > 20_000, d + ": only " + bytes + " bytes forwarded");
            assertEquals(bytes, proxy.writeCount(d), d + ": every byte, handshake included, in a write of its own");
        }
        assertConnected(client);
        assertConnected(server);
    }

    /** {@code from} sends one message of each of {@link #SIZES} to {@code to}; all checked, in order. */
    private void sendsOfEverySize(Side from, Side to, int seed) {
        long stride = 8 * KIB;
        long srcBase = MIB;
        to.buf.asSlice(0, SIZES.length * stride).fill(SENTINEL);
        for (int i = 0; i < SIZES.length; i++) {
            recv(to, i * stride, stride, 100 + i);
        }
        long src = srcBase;
        for (int i = 0; i < SIZES.length; i++) {
            DataPath.fill(from.buf, src, SIZES[i], seed * 100 + i);
            send(from, src, SIZES[i], 200 + i);
            src += SIZES[i];
        }
        src = srcBase;
        for (int i = 0; i < SIZES.length; i++) {
            expectOk(from.reqEvd, 200 + i, SIZES[i], "send of " + SIZES[i] + " bytes");
            expectOk(to.recvEvd, 100 + i, SIZES[i], "receive of " + SIZES[i] + " bytes");
            assertSameBytes(from.buf, src, to.buf, i * stride, SIZES[i], "message of " + SIZES[i] + " bytes");
            DataPath.assertUntouched(to.buf, i * stride + SIZES[i], stride - SIZES[i], "receive buffer past the message");
            src += SIZES[i];
        }
    }

    /**
     * {@code from} RDMA-Writes {@code len} bytes into {@code to} at an odd offset, then RDMA-Reads them back
     * into another place: the read completes after the write is placed (same stream, in order), so both the
     * target and the sink are checked, and the bytes around the target are untouched.
     */
    private void rdmaWriteThenReadBack(Side from, Side to, int len, int seed) {
        long src = MIB + 64 * KIB;
        long dst = 512 * KIB + 1;
        long sink = MIB + 128 * KIB + 3;
        to.buf.asSlice(dst - 1, len + 2).fill(SENTINEL);
        DataPath.fill(from.buf, src, len, seed);
        from.ep.postRdmaWrite(1, at(from, src, len), 300, to.lmr.remoteTriplet(dst, len), CompletionFlags.DEFAULT);
        from.ep.postRdmaRead(1, at(from, sink, len), 301, to.lmr.remoteTriplet(dst, len), CompletionFlags.DEFAULT);
        expectOk(from.reqEvd, 300, len, "RDMA Write");
        expectOk(from.reqEvd, 301, len, "RDMA Read");
        assertSameBytes(from.buf, src, to.buf, dst, len, "RDMA Write target");
        assertSameBytes(from.buf, src, from.buf, sink, len, "RDMA Read sink");
        DataPath.assertUntouched(to.buf, dst - 1, 1, "byte before the RDMA Write target");
        DataPath.assertUntouched(to.buf, dst + len, 1, "byte after the RDMA Write target");
    }

    // ================================================================== (2) huge coalesced reads

    /**
     * The proxy gathers up to 256 KiB (until the sender pauses for 20 ms) into one write, both ways, so one
     * socket read returns hundreds of FPDUs and ends anywhere inside one: 500 small sends back to back,
     * 1.1 MiB of RDMA Writes, six RDMA Reads (more than the ORD of 4, so some wait for a slot) and a last
     * send, all verified, every completion in posting order.
     */
    @ParameterizedTest
    @ValueSource(strings = {TcpTesting.LO, TcpTesting.LO_SMALL})
    void hugeCoalescedReads(String iaName) throws Exception {
        open(iaName, 4 * MIB, 4 * MIB);
        startProxy(false);
        Duration pause = Duration.ofMillis(20);
        proxy.coalesce(CLIENT_TO_SERVER, 256 * (int) KIB, pause);
        proxy.coalesce(SERVER_TO_CLIENT, 256 * (int) KIB, pause);
        connect();

        int sends = 500;
        long slot = 256;
        for (int i = 0; i <= sends; i++) {
            recv(server, i * slot, slot, i);
        }
        // Requests, in posting order: 500 sends, 3 writes, 6 reads, 1 send.
        List<long[]> expected = new ArrayList<>(); // {cookie, length}
        for (int i = 0; i < sends; i++) {
            int len = 1 + (i * 37) % (int) slot;
            DataPath.fill(client.buf, i * slot, len, i);
            send(client, i * slot, len, i);
            expected.add(new long[] {i, len});
        }
        long writeLen = 384 * KIB;
        long writeBase = MIB;
        for (int k = 0; k < 3; k++) {
            long off = writeBase + k * writeLen;
            DataPath.fill(client.buf, off, writeLen, 1000 + k);
            client.ep.postRdmaWrite(1, at(client, off, writeLen), 1000 + k, server.lmr.remoteTriplet(off, writeLen),
                    CompletionFlags.DEFAULT);
            expected.add(new long[] {1000 + k, writeLen});
        }
        long readLen = 192 * KIB;
        long sinkBase = 5 * MIB / 2;
        for (int k = 0; k < 6; k++) {
            client.ep.postRdmaRead(1, at(client, sinkBase + k * readLen, readLen), 2000 + k,
                    server.lmr.remoteTriplet(writeBase + k * readLen, readLen), CompletionFlags.DEFAULT);
            expected.add(new long[] {2000 + k, readLen});
        }
        DataPath.fill(client.buf, sends * slot, slot, 3000);
        send(client, sends * slot, slot, 3000);
        expected.add(new long[] {3000, slot});

        for (long[] e : expected) {
            expectOk(client.reqEvd, e[0], e[1], "request " + e[0]);
        }
        for (int i = 0; i <= sends; i++) {
            long len = i < sends ? 1 + (i * 37) % (int) slot : slot;
            expectOk(server.recvEvd, i, len, "receive " + i);
            assertSameBytes(client.buf, i * slot, server.buf, i * slot, len, "message " + i);
        }
        // The reads read back what the writes wrote: both are checked against the writes' sources.
        assertSameBytes(client.buf, writeBase, server.buf, writeBase, 3 * writeLen, "RDMA Write targets");
        assertSameBytes(client.buf, writeBase, client.buf, sinkBase, 6 * readLen, "RDMA Read sinks");
        // Structural, not timing: more than 500 FPDUs went through far fewer gathered writes (a new write starts
        // only after 256 KiB or a 20 ms silence of the sender).
        assertTrue(proxy.writeCount(CLIENT_TO_SERVER) < sends,
                proxy.writeCount(CLIENT_TO_SERVER) + " writes: the proxy did not coalesce");
        assertConnected(client);
        assertConnected(server);
    }

    // ================================================================== (3) a stall

    /**
     * Server → client stalls while the client has sends and three 4 MiB RDMA Reads posted: the server gets
     * every send (also those posted after the Reads, so it has the Read Requests too) and its Read Responses
     * back up in the proxy and the sockets, but nothing of the Reads completes at the client, nor anything
     * posted after them (completions are in order), nor the server's sends to the client. After the resume,
     * everything completes, verified.
     */
    @Test
    void stallHoldsReadsUntilResume() throws Exception {
        long readLen = 4 * MIB;
        long small = 12 * MIB; // the client's small buffers, after the three read sinks
        open(TcpTesting.LO, 13 * MIB, readLen + MIB);
        startProxy(false);
        connect();
        DataPath.fill(server.buf, 0, readLen, 7);
        for (int i = 0; i < 4; i++) {
            recv(server, readLen + i * KIB, KIB, 10 + i);
        }
        for (int i = 0; i < 2; i++) {
            recv(client, small + i * KIB, KIB, 20 + i);
        }
        long forwardedBefore = proxy.bytesForwarded(SERVER_TO_CLIENT);
        proxy.stall(SERVER_TO_CLIENT);

        for (int i = 0; i < 4; i++) {
            DataPath.fill(client.buf, small + 64 * KIB + i * KIB, 100 + i, 30 + i);
        }
        send(client, small + 64 * KIB, 100, 1);
        send(client, small + 65 * KIB, 101, 2);
        for (int k = 0; k < 3; k++) {
            client.ep.postRdmaRead(1, at(client, k * readLen, readLen), 3 + k, server.lmr.remoteTriplet(0, readLen),
                    CompletionFlags.DEFAULT);
        }
        send(client, small + 66 * KIB, 102, 6);
        send(client, small + 67 * KIB, 103, 7);
        for (int i = 0; i < 2; i++) {
            DataPath.fill(server.buf, readLen + 512 * KIB + i * KIB, 200 + i, 40 + i);
            send(server, readLen + 512 * KIB + i * KIB, 200 + i, 50 + i);
        }

        // Client → server flows: all four sends arrive, the last two behind the three Read Requests.
        for (int i = 0; i < 4; i++) {
            expectOk(server.recvEvd, 10 + i, 100 + i, "server receive " + i);
            assertSameBytes(client.buf, small + 64 * KIB + i * KIB, server.buf, readLen + i * KIB, 100 + i,
                    "send " + i);
        }
        expectOk(client.reqEvd, 1, 100, "first send");
        expectOk(client.reqEvd, 2, 101, "second send");
        // Nothing of the Reads (nor the sends queued behind them) completes while the responses are held.
        assertNothingWithin(client.reqEvd, "client requests while server -> client is stalled");
        assertNothingWithin(client.recvEvd, "client receives while server -> client is stalled");
        assertEquals(forwardedBefore, proxy.bytesForwarded(SERVER_TO_CLIENT), "the proxy forwarded while stalled");
        Endpoint.Status st = client.ep.getStatus();
        assertEquals(EpState.CONNECTED, st.epState());
        assertFalse(st.requestIdle(), "the Reads are outstanding");

        proxy.resume(SERVER_TO_CLIENT);
        for (int k = 0; k < 3; k++) {
            expectOk(client.reqEvd, 3 + k, readLen, "RDMA Read " + k);
        }
        expectOk(client.reqEvd, 6, 102, "third send");
        expectOk(client.reqEvd, 7, 103, "fourth send");
        for (int k = 0; k < 3; k++) {
            assertSameBytes(server.buf, 0, client.buf, k * readLen, readLen, "RDMA Read sink " + k);
        }
        for (int i = 0; i < 2; i++) {
            expectOk(client.recvEvd, 20 + i, 200 + i, "client receive " + i);
            assertSameBytes(server.buf, readLen + 512 * KIB + i * KIB, client.buf, small + i * KIB, 200 + i,
                    "server send " + i);
            expectOk(server.reqEvd, 50 + i, 200 + i, "server send " + i);
        }
        assertConnected(client);
        assertConnected(server);
    }

    // ================================================================== (4) a reset mid-message

    /** Which message the reset cuts, 512 KiB into its 1 MiB. */
    enum Cut {
        /** A Send, client → server. */
        SEND(CLIENT_TO_SERVER),
        /** An RDMA Write, client → server. */
        RDMA_WRITE(CLIENT_TO_SERVER),
        /** The Read Response of the client's RDMA Read, server → client. */
        READ_RESPONSE(SERVER_TO_CLIENT);

        final Direction direction;

        Cut(Direction direction) {
            this.direction = direction;
        }
    }

    /**
     * A TCP reset 512 KiB into a 1 MiB message: both EPs get BROKEN; every receive (the one the cut message
     * was filling included) and every outstanding request is completed before it, FLUSHED (the request the
     * failure hit may carry ERR_TRANSPORT; a Send or Write whose bytes were all in the socket had succeeded
     * already, as RDMAP has no end-to-end acknowledgement); later posts are flushed at once, as DISCONNECTED
     * says.
     */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void resetMidMessageBreaksBothSidesAndFlushes(Cut cut) throws Exception {
        long big = MIB;
        long smallOff = 2 * MIB;
        open(TcpTesting.LO, 3 * MIB, 3 * MIB);
        startProxy(false);
        connect();
        DataPath.fill(client.buf, 0, big, 1);
        DataPath.fill(server.buf, 0, big, 2);
        DataPath.fill(client.buf, smallOff, 64, 3);
        recv(server, big, big, 10); // the cut Send's buffer
        recv(server, smallOff, 64, 11);
        recv(server, smallOff + 64, 64, 12);
        recv(client, smallOff + 4 * KIB, 64, 20);
        recv(client, smallOff + 5 * KIB, 64, 21);

        proxy.resetAfter(cut.direction, big / 2);
        switch (cut) {
            case SEND -> send(client, 0, big, 1);
            case RDMA_WRITE -> client.ep.postRdmaWrite(1, at(client, 0, big), 1, server.lmr.remoteTriplet(big, big),
                    CompletionFlags.DEFAULT);
            case READ_RESPONSE -> client.ep.postRdmaRead(1, at(client, big, big), 1, server.lmr.remoteTriplet(0, big),
                    CompletionFlags.DEFAULT);
            default -> throw new AssertionError(cut);
        }
        client.ep.postRdmaRead(1, at(client, smallOff + 8 * KIB, 4 * KIB), 2,
                server.lmr.remoteTriplet(smallOff + 8 * KIB, 4 * KIB), CompletionFlags.DEFAULT);
        if (cut == Cut.READ_RESPONSE) {
            // A Send would reach the server (client -> server is not cut) and rightly complete a receive there.
            client.ep.postRdmaRead(1, at(client, smallOff + 16 * KIB, 64), 3,
                    server.lmr.remoteTriplet(smallOff + 16 * KIB, 64), CompletionFlags.DEFAULT);
        } else {
            send(client, smallOff, 64, 3);
        }

        // Completions precede the connection event: once an EP reports BROKEN, all of its are queued already.
        expectConn(client, EventNumber.CONNECTION_EVENT_BROKEN);
        List<DatEvent> requests = queued(client.reqEvd);
        List<DatEvent> clientRecvs = queued(client.recvEvd);
        expectConn(server, EventNumber.CONNECTION_EVENT_BROKEN);
        List<DatEvent> serverRecvs = queued(server.recvEvd);
        assertTrue(proxy.bytesForwarded(cut.direction) >= big / 2, "the reset fired before its budget");

        assertCookies(requests, 1, 2, 3);
        boolean mayHaveSucceeded = cut != Cut.READ_RESPONSE; // its bytes may all have been in the socket
        assertBrokenRequests(requests, mayHaveSucceeded ? 1 : 0, DtoCompletionStatus.ERR_TRANSPORT);
        assertAllFlushed(clientRecvs, 20, 21);
        assertAllFlushed(serverRecvs, 10, 11, 12); // never the partial message as SUCCESS
        DataPath.assertEmpty(server.reqEvd, "server requests");

        assertPostsFlushAfterBreak(client);
        assertPostsFlushAfterBreak(server);
    }

    /** In DISCONNECTED every post is accepted and completed FLUSHED at once (RCV-08, SND-06, RWR-05, RDR-10). */
    private void assertPostsFlushAfterBreak(Side s) {
        Endpoint.Status st = s.ep.getStatus();
        assertEquals(EpState.DISCONNECTED, st.epState(), "state after BROKEN");
        assertTrue(st.recvIdle() && st.requestIdle(), "everything was flushed: " + st);
        assertEquals(EpState.DISCONNECTED, s.ep.query(EpParam.FIELD_EP_STATE).epState());
        recv(s, 0, 64, 900);
        send(s, 0, 64, 901);
        s.ep.postRdmaWrite(1, at(s, 0, 64), 902, s.lmr.remoteTriplet(64, 64), CompletionFlags.DEFAULT);
        s.ep.postRdmaRead(1, at(s, 0, 64), 903, s.lmr.remoteTriplet(64, 64), CompletionFlags.DEFAULT);
        assertAllFlushed(queued(s.recvEvd), 900);
        assertAllFlushed(queued(s.reqEvd), 901, 902, 903);
        assertTrue(s.ep.getStatus().requestIdle());
    }

    // ================================================================== (5) corruption caught by the CRC

    /** A Send corrupted in one payload byte, on an IA with CRC: single FPDU (staged or read straight) or many. */
    enum CrcCase {
        /** 100 bytes: the payload goes through the staging buffer. */
        SMALL(TcpTesting.LO_CRC, 65496, 100),
        /** 60000 bytes in one FPDU: the payload is read straight into the receive buffer. */
        LARGE(TcpTesting.LO_CRC, 65496, 60000),
        /** 1000 bytes in 100-byte FPDUs: the earlier FPDUs of the message were placed and accepted. */
        SEGMENTED(TcpTesting.LO_SMALL, 100, 1000);

        final String ia;
        final int mulpdu;
        final int size;

        CrcCase(String ia, int mulpdu, int size) {
            this.ia = ia;
            this.mulpdu = mulpdu;
            this.size = size;
        }

        /** Bytes on the wire of a Send of {@code n} bytes: its FPDUs, headers, pads and CRCs. */
        long wireLength(int n) {
            int perFpdu = mulpdu - UNTAGGED;
            long total = 0;
            for (int left = n; left > 0; left -= perFpdu) {
                int ulpdu = UNTAGGED + Math.min(left, perFpdu);
                total += LENGTH_FIELD + ulpdu + ((-(LENGTH_FIELD + ulpdu)) & 3) + CRC_FIELD;
            }
            return total;
        }

        /** Stream offset, from the message's first FPDU, of its payload byte {@code i}. */
        long payloadOffset(int i) {
            int perFpdu = mulpdu - UNTAGGED;
            int k = i / perFpdu;
            int full = LENGTH_FIELD + mulpdu;
            full += (-full) & 3;
            return (long) k * (full + CRC_FIELD) + LENGTH_FIELD + UNTAGGED + i % perFpdu;
        }
    }

    /**
     * One flipped payload bit of a Send, with CRC: the receiver finds the mismatch, sends a Terminate
     * (layer LLP, error code 0x02, RFC 5044) and breaks; the receive the message was filling is FLUSHED,
     * never SUCCESS, nor are later messages received; the client gets the Terminate (its oldest unfinished
     * request fails with ERR_TRANSPORT) and is BROKEN too.
     */
    @ParameterizedTest
    @EnumSource(CrcCase.class)
    void corruptionCaughtByCrc(CrcCase c) throws Exception {
        open(c.ia, MIB, MIB);
        startProxy(true);
        connect();
        long src = 0;
        long after = 256 * KIB;
        DataPath.fill(client.buf, src, c.size, 1);
        DataPath.fill(client.buf, after, 64, 2);
        recv(server, 0, 64 * KIB, 10);
        recv(server, 64 * KIB, 64 * KIB, 11);
        recv(server, 128 * KIB, 64 * KIB, 12);
        // A first, intact message: the path works and the stream is quiet afterwards.
        send(client, src, c.size, 1);
        expectOk(client.reqEvd, 1, c.size, "intact send");
        expectOk(server.recvEvd, 10, c.size, "intact receive");
        assertSameBytes(client.buf, src, server.buf, 0, c.size, "intact message");

        long base = HANDSHAKE_UP + c.wireLength(c.size); // the first byte of the next message
        proxy.corruptAt(CLIENT_TO_SERVER, base + c.payloadOffset(c.size / 2), (byte) 0x10);
        send(client, src, c.size, 2); // corrupted on the way
        send(client, after, 64, 3); // intact, but after the Terminate: never received
        client.ep.postRdmaRead(1, at(client, 512 * KIB, 64), 4, server.lmr.remoteTriplet(0, 64), CompletionFlags.DEFAULT);

        expectConn(server, EventNumber.CONNECTION_EVENT_BROKEN);
        assertAllFlushed(queued(server.recvEvd), 11, 12); // queued before BROKEN; never SUCCESS
        expectConn(client, EventNumber.CONNECTION_EVENT_BROKEN);
        List<DatEvent> requests = queued(client.reqEvd);
        assertCookies(requests, 2, 3, 4);
        assertBrokenRequests(requests, 2, DtoCompletionStatus.ERR_TRANSPORT); // LLP Terminate: a transport error

        IwarpConnection wire = IwarpStreamDecoder.decode(tap.up(), tap.down());
        List<Fpdu> bad = wire.initiatorFpdus().stream().filter(f -> !f.crcValid()).toList();
        assertEquals(1, bad.size(), "exactly one FPDU arrived with a bad CRC");
        assertEquals(2, bad.get(0).msn(), "the corrupted FPDU belongs to the second Send");
        assertTerminate(wire, 2, 0, Set.of(0x02)); // LLP, CRC error (RFC 5044 section 8)
    }

    /**
     * The same flipped payload bit without CRC is not detectable: nothing in DDP or RDMAP covers the
     * payload, so the receive completes SUCCESS with the wrong byte and the connection stays up. TCP's own
     * 16-bit checksum is all that protects the data then, and it misses errors introduced by middleboxes,
     * NICs and memory; that is why MPA has a CRC32c, and why {@code crc=on} is the setting for data that
     * matters (see {@link #corruptionCaughtByCrc}).
     */
    @Test
    void payloadCorruptionWithoutCrcGoesUndetected() throws Exception {
        int size = 4000;
        open(TcpTesting.LO, MIB, MIB);
        startProxy(false);
        connect();
        DataPath.fill(client.buf, 0, size, 1);
        recv(server, 0, 8 * KIB, 10);
        recv(server, 8 * KIB, 8 * KIB, 11);
        long base = HANDSHAKE_UP;
        int flipped = 1234;
        proxy.corruptAt(CLIENT_TO_SERVER, base + LENGTH_FIELD + UNTAGGED + flipped, (byte) 0x10);
        send(client, 0, size, 1);
        expectOk(server.recvEvd, 10, size, "receive of the silently corrupted message");
        for (int i = 0; i < size; i++) {
            byte sent = client.buf.get(ValueLayout.JAVA_BYTE, i);
            byte got = server.buf.get(ValueLayout.JAVA_BYTE, i);
            assertEquals(i == flipped ? (byte) (sent ^ 0x10) : sent, got, "byte " + i);
        }
        send(client, 0, size, 2);
        expectOk(server.recvEvd, 11, size, "next receive");
        assertSameBytes(client.buf, 0, server.buf, 8 * KIB, size, "next message");
        assertConnected(server);
        assertConnected(client);
    }

    // ================================================================== (6) header corruption without CRC

    /** A field of an RDMA Write's header, corrupted on the wire (no CRC), and the Terminate it must cause. */
    enum HeaderField {
        /** DDP control byte: version 1 becomes 2. DDP tagged buffer error, invalid DDP version (0x04). */
        DDP_VERSION(2, 0x03, 1, 1, Set.of(0x04), DtoCompletionStatus.ERR_REMOTE_ACCESS),
        /** RDMAP control byte: version 1 becomes 2. RDMAP remote operation error, invalid RDMAP version. */
        RDMAP_VERSION(3, 0xC0, 0, 2, Set.of(0x05), DtoCompletionStatus.ERR_REMOTE_RESPONDER),
        /** The STag's key byte: a context that is not registered. DDP tagged buffer error, invalid STag. */
        STAG(7, 0x01, 1, 1, Set.of(0x00), DtoCompletionStatus.ERR_REMOTE_ACCESS),
        /**
         * Bit 13 of the Tagged Offset: the target address moves 8 KiB down, into the guard below the region.
         * DDP tagged buffer error (invalid STag or base/bounds).
         */
        TAGGED_OFFSET(14, 0x20, 1, 1, Set.of(0x00, 0x01), DtoCompletionStatus.ERR_REMOTE_ACCESS),
        /**
         * The ULPDU_Length grows by 256: the write would run 256 bytes past the region's end, into the guard
         * above it. DDP tagged buffer error (invalid STag or base/bounds).
         */
        ULPDU_LENGTH(0, 0x01, 1, 1, Set.of(0x00, 0x01), DtoCompletionStatus.ERR_REMOTE_ACCESS);

        final int offset;
        final byte mask;
        final int layer;
        final int type;
        final Set<Integer> codes;
        final DtoCompletionStatus status;

        HeaderField(int offset, int mask, int layer, int type, Set<Integer> codes, DtoCompletionStatus status) {
            this.offset = offset;
            this.mask = (byte) mask;
            this.layer = layer;
            this.type = type;
            this.codes = codes;
            this.status = status;
        }
    }

    /**
     * Without CRC, a corrupted header field of a 4 KiB RDMA Write into the upper half of an 8 KiB region is
     * still caught by the header checks: the server sends a Terminate with the RFC's layer/type/code and
     * breaks, the client gets it and breaks, and not one byte of the region or of the 8 KiB guards below and
     * above it (same allocation, not registered) is written.
     */
    @ParameterizedTest
    @EnumSource(HeaderField.class)
    void headerCorruptionWithoutCrcIsCaught(HeaderField field) throws Exception {
        open(TcpTesting.LO, MIB, MIB);
        // guard [0, 8K) | target region [8K, 16K) | guard [16K, 32K); 32 KiB aligned, so that TO bit 13 is
        // known to be set (TO = chunk + 12 KiB) and flipping it lands at chunk + 4 KiB, inside the lower guard.
        MemorySegment chunk = server.arena.allocate(32 * KIB, 32 * KIB);
        chunk.fill(SENTINEL);
        MemorySegment region = chunk.asSlice(8 * KIB, 8 * KIB);
        Lmr target = Lmr.create(server.ia, MemType.VIRTUAL, RegionDescription.forVa(region), region.byteSize(),
                server.pz, MemPriv.ALL);
        startProxy(true);
        connect();
        recv(server, 0, 4 * KIB, 10);
        DataPath.fill(client.buf, 0, 4 * KIB, 5);

        long base = HANDSHAKE_UP;
        proxy.corruptAt(CLIENT_TO_SERVER, base + field.offset, field.mask);
        client.ep.postRdmaWrite(1, at(client, 0, 4 * KIB), 1, target.remoteTriplet(4 * KIB, 4 * KIB),
                CompletionFlags.DEFAULT);
        client.ep.postRdmaRead(1, at(client, 64 * KIB, 64), 2, target.remoteTriplet(0, 64), CompletionFlags.DEFAULT);

        expectConn(server, EventNumber.CONNECTION_EVENT_BROKEN);
        assertAllFlushed(queued(server.recvEvd), 10);
        expectConn(client, EventNumber.CONNECTION_EVENT_BROKEN);
        List<DatEvent> requests = queued(client.reqEvd);
        DataPath.assertUntouched(chunk, 0, chunk.byteSize(), "guards and region (" + field + ")");
        assertCookies(requests, 1, 2);
        assertBrokenRequests(requests, 1, field.status);
        assertNotEquals(DtoCompletionStatus.SUCCESS, requests.get(1).status(), "the RDMA Read");

        IwarpConnection wire = IwarpStreamDecoder.decode(tap.up(), tap.down());
        Fpdu rtr = wire.initiatorFpdus().get(0);
        assertEquals(base, rtr.offset() + rtr.length(), "the corrupted FPDU is the first after the RTR");
        assertTerminate(wire, field.layer, field.type, field.codes);
    }

    // ================================================================== checks

    /**
     * The server's direction holds exactly one FPDU, a Terminate (RDMAP opcode 7 on queue 2, RFC 5040
     * section 4.8) whose control word names {@code layer}, {@code type} and one of {@code codes}.
     */
    private static void assertTerminate(IwarpConnection wire, int layer, int type, Set<Integer> codes) {
        List<Fpdu> down = wire.responderFpdus();
        assertEquals(1, down.size(), "the server sent one FPDU after its Reply: " + down);
        Fpdu t = down.get(0);
        assertEquals(7, t.opcode(), "a Terminate: " + t);
        assertEquals(2, t.qn(), "on the Terminate queue");
        if (wire.crcInUse()) {
            assertTrue(t.crcValid(), "the Terminate's own CRC");
        }
        int word = ByteBuffer.wrap(t.payload(), 0, 4).getInt();
        int gotLayer = word >>> 28;
        int gotType = (word >>> 24) & 0xF;
        int gotCode = (word >>> 16) & 0xFF;
        String what = String.format("Terminate control word 0x%08x", word);
        assertEquals(layer, gotLayer, what + ": layer");
        assertEquals(type, gotType, what + ": error type");
        assertTrue(codes.contains(gotCode), what + ": error code 0x" + Integer.toHexString(gotCode) + ", expected " + codes);
    }

    /**
     * Requests of a broken connection, in posting order: the first {@code maySucceed} may have succeeded
     * before the failure; after those, the first unsuccessful one may carry {@code failure} (the error the
     * failure reported for the request it hit), and all the others are FLUSHED.
     */
    private static void assertBrokenRequests(List<DatEvent> events, int maySucceed, DtoCompletionStatus failure) {
        int i = 0;
        while (i < maySucceed && i < events.size() && events.get(i).status() == DtoCompletionStatus.SUCCESS) {
            i++;
        }
        if (i < events.size() && events.get(i).status() == failure) {
            i++;
        }
        for (; i < events.size(); i++) {
            assertEquals(DtoCompletionStatus.ERR_FLUSHED, events.get(i).status(), "status of " + events.get(i)
                    + " (all: " + events + ")");
            assertEquals(0, events.get(i).transferredLength());
        }
    }

    private static void assertAllFlushed(List<DatEvent> events, long... cookies) {
        assertCookies(events, cookies);
        for (DatEvent e : events) {
            assertEquals(DtoCompletionStatus.ERR_FLUSHED, e.status(), "status of " + e);
            assertEquals(0, e.transferredLength(), "length of " + e);
        }
    }

    private static void assertCookies(List<DatEvent> events, long... cookies) {
        long[] got = events.stream().mapToLong(DatEvent::userCookie).toArray();
        assertEquals(java.util.Arrays.toString(cookies), java.util.Arrays.toString(got), "completions, in order: " + events);
        for (DatEvent e : events) {
            assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber());
        }
    }

    private static void assertSameBytes(MemorySegment a, long aOff, MemorySegment b, long bOff, long len, String what) {
        long m = MemorySegment.mismatch(a, aOff, aOff + len, b, bOff, bOff + len);
        if (m != -1) {
            fail(what + ": byte " + m + " of " + len + " differs: sent " + a.get(ValueLayout.JAVA_BYTE, aOff + m)
                    + ", got " + b.get(ValueLayout.JAVA_BYTE, bOff + m));
        }
    }

    private static void assertConnected(Side s) {
        assertEquals(EpState.CONNECTED, s.ep.getStatus().epState(), s.name);
        DataPath.assertEmpty(s.connEvd, s.name + " connection events");
    }

    // ================================================================== events

    private static DatEvent next(EventDispatcher evd, String what) {
        DatEvent e = new DatEvent();
        if (!evd.waitFor(WAIT_US, 1, e)) {
            fail("no event within " + WAIT_US / 1_000_000 + " s: " + what);
        }
        return e;
    }

    private static void expectOk(EventDispatcher evd, long cookie, long length, String what) {
        DatEvent e = next(evd, what);
        assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber(), what + ": " + e);
        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), what + ": " + e);
        assertEquals(cookie, e.userCookie(), what + ": " + e);
        assertEquals(length, e.transferredLength(), what + ": " + e);
    }

    private static void expectConn(Side s, EventNumber n) {
        DatEvent e = next(s.connEvd, s.name + " " + n);
        assertEquals(n, e.eventNumber(), s.name + ": " + e);
    }

    /** Everything queued on {@code evd} now, without waiting. */
    private static List<DatEvent> queued(EventDispatcher evd) {
        List<DatEvent> out = new ArrayList<>();
        for (;;) {
            DatEvent e = new DatEvent();
            if (!evd.dequeue(e)) {
                return out;
            }
            out.add(e);
        }
    }

    /** A short wait that must time out: a bounded negative check, not a proof. */
    private static void assertNothingWithin(EventDispatcher evd, String what) {
        DatEvent e = new DatEvent();
        assertFalse(evd.waitFor(QUIET_US, 1, e), what + ": " + e);
    }

    // ================================================================== posting

    private static LmrTriplet[] at(Side s, long off, long len) {
        return new LmrTriplet[] {s.lmr.triplet(off, len)};
    }

    private static void send(Side s, long off, long len, long cookie) {
        s.ep.postSend(1, at(s, off, len), cookie, CompletionFlags.DEFAULT);
    }

    private static void recv(Side s, long off, long len, long cookie) {
        s.ep.postRecv(1, at(s, off, len), cookie, CompletionFlags.DEFAULT);
    }

    // ================================================================== set-up

    private void open(String iaName, long clientBuf, long serverBuf) {
        client = new Side("client", iaName, clientBuf);
        server = new Side("server", iaName, serverBuf);
        crEvd = EventDispatcher.create(server.ia, 16, null, EvdFlags.CR);
        psp = PublicServicePoint.createAny(server.ia, crEvd, PspFlags.CONSUMER);
    }

    /** Starts the proxy in front of the server's service point, with a recording {@link Tap} behind it. */
    private void startProxy(boolean tapped) throws IOException {
        InetSocketAddress target = new InetSocketAddress("127.0.0.1", (int) psp.connQual());
        if (tapped) {
            tap = Tap.start(target);
            target = tap.address();
        }
        proxy = FaultProxy.start(target);
    }

    /** Connects the client through the proxy; both sides ESTABLISHED. */
    private void connect() {
        client.ep.connect(new InetSocketAddress("127.0.0.1", 0), proxy.port(), WAIT_US, 0, null, Qos.BEST_EFFORT,
                ConnectFlags.DEFAULT);
        DatEvent cr = next(crEvd, "connection request");
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        cr.cr().accept(server.ep, 0, null);
        expectConn(client, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        expectConn(server, EventNumber.CONNECTION_EVENT_ESTABLISHED);
        // The proxy counts a write when it returns, which may be after the peer read it: wait for the count,
        // so that stream offsets taken from it from now on are exact.
        try {
            assertTrue(proxy.awaitForwarded(CLIENT_TO_SERVER, HANDSHAKE_UP, Duration.ofSeconds(5)));
            assertTrue(proxy.awaitForwarded(SERVER_TO_CLIENT, HANDSHAKE_DOWN, Duration.ofSeconds(5)));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertEquals(HANDSHAKE_UP, proxy.bytesForwarded(CLIENT_TO_SERVER), "MPA Request and RTR");
        assertEquals(HANDSHAKE_DOWN, proxy.bytesForwarded(SERVER_TO_CLIENT), "MPA Reply");
    }

    /** One side: IA, PZ, EVDs, an EP with deep queues, and a registered buffer full of {@link #SENTINEL}. */
    private static final class Side {
        final String name;
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher recvEvd;
        final EventDispatcher reqEvd;
        final EventDispatcher connEvd;
        final Endpoint ep;
        final Arena arena = Arena.ofShared();
        final MemorySegment buf;
        final Lmr lmr;

        Side(String name, String iaName, long bufSize) {
            this.name = name;
            ia = InterfaceAdapter.open(iaName, 16, null);
            pz = ProtectionZone.create(ia);
            recvEvd = EventDispatcher.create(ia, 2048, null, EvdFlags.DTO);
            reqEvd = EventDispatcher.create(ia, 2048, null, EvdFlags.DTO);
            connEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd,
                    ia.defaultEpAttr().maxRecvDtos(1024).maxRequestDtos(1024));
            buf = arena.allocate(bufSize, 4096);
            buf.fill(SENTINEL);
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), bufSize, pz, MemPriv.ALL);
        }

        void close() {
            ia.close(CloseFlags.ABRUPT);
            arena.close();
        }
    }

    /**
     * A recording relay for one connection: forwards to {@code target} and keeps every byte of both
     * directions, as they passed (after any fault the proxy in front of it injected). An end of stream is
     * passed on as a half-close, an error resets both legs.
     */
    static final class Tap implements AutoCloseable {
        private final ServerSocket listener;
        private final InetSocketAddress target;
        private final ByteArrayOutputStream up = new ByteArrayOutputStream();
        private final ByteArrayOutputStream down = new ByteArrayOutputStream();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        private Tap(ServerSocket listener, InetSocketAddress target) {
            this.listener = listener;
            this.target = target;
        }

        static Tap start(InetSocketAddress target) throws IOException {
            Tap t = new Tap(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()), target);
            Thread.ofPlatform().daemon().name("tap-accept").start(t::acceptOne);
            return t;
        }

        InetSocketAddress address() {
            return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
        }

        /** What went towards the target so far. */
        byte[] up() {
            return up.toByteArray();
        }

        /** What came back from the target so far. */
        byte[] down() {
            return down.toByteArray();
        }

        private void acceptOne() {
            try {
                Socket a = listener.accept();
                sockets.add(a);
                Socket b = new Socket();
                sockets.add(b);
                b.connect(target, 5_000);
                a.setTcpNoDelay(true);
                b.setTcpNoDelay(true);
                Thread.ofPlatform().daemon().name("tap-up").start(() -> pump(a, b, up));
                Thread.ofPlatform().daemon().name("tap-down").start(() -> pump(b, a, down));
            } catch (IOException e) {
                abortAll();
            }
        }

        private void pump(Socket from, Socket to, ByteArrayOutputStream record) {
            byte[] buf = new byte[64 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buf)) >= 0; ) {
                    record.write(buf, 0, n); // recorded before the next hop can see it
                    out.write(buf, 0, n);
                }
                to.shutdownOutput();
            } catch (IOException e) {
                abortAll();
            }
        }

        private void abortAll() {
            for (Socket s : sockets) {
                try {
                    if (!s.isClosed()) {
                        s.setSoLinger(true, 0);
                    }
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        @Override
        public void close() {
            try {
                listener.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            abortAll();
        }
    }
}
