package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.MemPriv;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.testing.Images;
import io.jdat.testing.Pair;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Helpers for the {@code tcp} tests: registered regions of any size, fast byte patterns with exact
 * whole-region checks, nodes with several endpoints, and an independent encoder/decoder of MPA start-up
 * frames (RFC 5044 / RFC 6581) for raw-socket peers.
 */
final class TcpFixture {
    /** Event waits: 5 s in microseconds. */
    static final int WAIT_US = 5_000_000;
    /** What untouched memory holds. */
    static final byte SENTINEL = (byte) 0xEE;

    private TcpFixture() {
    }

    // ------------------------------------------------------------------ memory

    /** A registered region with every privilege ({@link io.jdat.testing.Region}, shared by every transport's tests). */
    static final class Region extends io.jdat.testing.Region {
        Region(InterfaceAdapter ia, ProtectionZone pz, Arena arena, long size, int priv) {
            super(ia, pz, arena, size, priv);
        }
    }

    /** A region on {@code side} of a pair, allocated from the side's arena. */
    static Region region(Pair.Side side, long size) {
        return new Region(side.ia, side.pz, side.arena, size, MemPriv.ALL);
    }

    /** Checks {@code seg} byte for byte against {@code expected}. */
    static void assertImageEquals(MemorySegment seg, byte[] expected, String what) {
        Images.assertImageEquals(seg, expected, what);
    }

    /** {@code len} bytes of a pattern that depends on {@code seed} and position, never the sentinel. */
    static byte[] pattern(int seed, int len) {
        return Images.pattern(seed, len);
    }

    /** An image of {@code size} sentinel bytes. */
    static byte[] sentinelImage(long size) {
        return Images.sentinelImage(size);
    }

    /**
     * Splits {@code n} bytes into the (offset, length) pairs of {@code pieces} segments starting at
     * {@code base}, each {@code gap} bytes after the previous one's end. Lengths: roughly equal, a short
     * one in the middle, the rest in the last; with {@code slack} extra bytes on the last (a partial segment).
     */
    static long[] spread(long base, long n, int pieces, long gap, long slack) {
        return Images.spread(base, n, pieces, gap, slack);
    }

    /** Writes {@code msg} into the segments of {@code spread} (in order) of image {@code img}. */
    static void scatterInto(byte[] img, long[] spread, byte[] msg) {
        Images.scatterInto(img, spread, msg);
    }

    /** Writes {@code msg} into the segments of {@code spread} of {@code r}. */
    static void scatterInto(Region r, long[] spread, byte[] msg) {
        Images.scatterInto(r, spread, msg);
    }

    // ------------------------------------------------------------------ events

    static DatEvent next(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertTrue(evd.waitFor(WAIT_US, 1, e), "no event within 5 s on " + evd);
        return e;
    }

    static DatEvent expectConn(EventDispatcher evd, EventNumber n) {
        DatEvent e = next(evd);
        assertEquals(n, e.eventNumber(), "connection event");
        return e;
    }

    /** This IA's address, as dat_ia_query reports it. */
    static SocketAddress address(InterfaceAdapter ia) {
        return ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
    }

    // ------------------------------------------------------------------ nodes

    /** One IA with a PZ, a CR EVD, an arena and any number of endpoints; closed abruptly at the end. */
    static final class Node implements AutoCloseable {
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final EventDispatcher crEvd;
        final Arena arena = Arena.ofShared();
        final List<Ep> eps = new ArrayList<>();
        private boolean closed;

        Node(String iaName) {
            ia = InterfaceAdapter.open(iaName, 16, null);
            pz = ProtectionZone.create(ia);
            crEvd = EventDispatcher.create(ia, 64, null, EvdFlags.CR);
        }

        Ep ep(EpAttr attr, int qlen) {
            Ep e = new Ep(this, attr, qlen);
            eps.add(e);
            return e;
        }

        Ep ep() {
            return ep(null, 64);
        }

        Region region(long size) {
            return new Region(ia, pz, arena, size, MemPriv.ALL);
        }

        Region region(long size, int priv) {
            return new Region(ia, pz, arena, size, priv);
        }

        PublicServicePoint listen() {
            return PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);
        }

        SocketAddress address() {
            return TcpFixture.address(ia);
        }

        /** The next connection request. */
        ConnectionRequest request() {
            DatEvent e = next(crEvd);
            assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, e.eventNumber());
            return e.cr();
        }

        /** The test closed the IA itself (gracefully): {@link #close} only frees the arena. */
        void closedByTest() {
            closed = true;
        }

        void closeAbrupt() {
            if (!closed) {
                closed = true;
                ia.close(CloseFlags.ABRUPT);
            }
        }

        @Override
        public void close() {
            closeAbrupt();
            arena.close();
        }
    }

    /** An endpoint with its own receive, request and connect EVDs. */
    static final class Ep {
        final Node node;
        final EventDispatcher recvEvd;
        final EventDispatcher reqEvd;
        final EventDispatcher connEvd;
        final Endpoint ep;

        Ep(Node node, EpAttr attr, int qlen) {
            this.node = node;
            recvEvd = EventDispatcher.create(node.ia, qlen, null, EvdFlags.DTO);
            reqEvd = EventDispatcher.create(node.ia, qlen, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            connEvd = EventDispatcher.create(node.ia, 16, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(node.ia, node.pz, recvEvd, reqEvd, connEvd, attr);
        }

        DatEvent expectConn(EventNumber n) {
            return TcpFixture.expectConn(connEvd, n);
        }

        void connect(Node server, long port, byte[] pd, int timeoutUs) {
            ep.connect(server.address(), port, timeoutUs, pd == null ? 0 : pd.length, pd, Qos.BEST_EFFORT, 0);
        }
    }

    /**
     * Connects {@code c} to {@code s} through {@code psp} (which must be on {@code s}'s node) and waits for
     * ESTABLISHED on both.
     */
    static void connect(Ep c, Ep s, PublicServicePoint psp) {
        c.connect(s.node, psp.connQual(), null, WAIT_US);
        s.node.request().accept(s.ep, 0, null);
        s.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        c.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
    }

    // ------------------------------------------------------------------ raw MPA

    static final byte[] REQ_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] REP_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    static final int M = 0x80;
    static final int C = 0x40;
    static final int R = 0x20;
    static final int ENHANCED = 0x10;

    /** A decoded start-up frame: its flags, revision and whole private data (the rev-2 block included). */
    record Frame(byte[] key, int flags, int revision, byte[] pd) {
        boolean isReply() {
            return java.util.Arrays.equals(key, REP_KEY);
        }

        boolean isRequest() {
            return java.util.Arrays.equals(key, REQ_KEY);
        }

        /** The RFC 6581 IRD word (0 without the block). */
        int irdWord() {
            return (flags & ENHANCED) != 0 && pd.length >= 4 ? ((pd[0] & 0xFF) << 8) | (pd[1] & 0xFF) : 0;
        }

        int ordWord() {
            return (flags & ENHANCED) != 0 && pd.length >= 4 ? ((pd[2] & 0xFF) << 8) | (pd[3] & 0xFF) : 0;
        }

        /** The consumer's private data. */
        byte[] ulpData() {
            return (flags & ENHANCED) != 0 && revision == 2 ? java.util.Arrays.copyOfRange(pd, 4, pd.length) : pd;
        }
    }

    /** Encodes a frame; {@code pd} is the whole private data as it goes on the wire. */
    static byte[] frame(boolean reply, int flags, int revision, byte[] pd) {
        ByteBuffer b = ByteBuffer.allocate(20 + pd.length);
        b.put(reply ? REP_KEY : REQ_KEY).put((byte) flags).put((byte) revision).putShort((short) pd.length).put(pd);
        return b.array();
    }

    /** The rev-2 IRD/ORD block followed by the consumer data. */
    static byte[] v2Block(int irdWord, int ordWord, byte[] ulp) {
        return ByteBuffer.allocate(4 + ulp.length).putShort((short) irdWord).putShort((short) ordWord).put(ulp).array();
    }

    static Frame readFrame(DataInputStream in) throws IOException {
        byte[] key = new byte[16];
        in.readFully(key);
        int flags = in.readUnsignedByte();
        int rev = in.readUnsignedByte();
        int len = in.readUnsignedShort();
        byte[] pd = new byte[len];
        in.readFully(pd);
        return new Frame(key, flags, rev, pd);
    }

    // ------------------------------------------------------------------ raw FPDUs

    /** A received FPDU: its ULPDU (DDP segment) and whether its CRC field matched. */
    record Fpdu(byte[] ulpdu, int crcWire, int crcComputed) {
        int ddpControl() {
            return ulpdu[0] & 0xFF;
        }

        int opcode() {
            return ulpdu[1] & 0x0F;
        }

        int rdmapVersion() {
            return (ulpdu[1] & 0xFF) >>> 6;
        }

        boolean tagged() {
            return (ddpControl() & 0x80) != 0;
        }

        boolean last() {
            return (ddpControl() & 0x40) != 0;
        }

        int word(int at) {
            return ByteBuffer.wrap(ulpdu).getInt(at);
        }

        /** Untagged: queue number, MSN, MO. */
        int qn() {
            return word(6);
        }

        int msn() {
            return word(10);
        }

        int mo() {
            return word(14);
        }

        /** The payload after an untagged header. */
        byte[] untaggedPayload() {
            return java.util.Arrays.copyOfRange(ulpdu, 18, ulpdu.length);
        }
    }

    /** CRC32c as MPA puts it on the wire: over length, ULPDU and pad, least-significant byte first. */
    static int crc(byte[] fpdu, int n) {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(fpdu, 0, n);
        return (int) c.getValue();
    }

    /** An untagged FPDU (Send, Terminate) with a CRC field (0 when {@code withCrc} is false). */
    static byte[] untaggedFpdu(int opcode, boolean last, int qn, int msn, int mo, byte[] payload, boolean withCrc) {
        int ulpdu = 18 + payload.length;
        int pad = (-(2 + ulpdu)) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu + pad + 4);
        b.putShort((short) ulpdu).put((byte) ((last ? 0x40 : 0) | 1)).put((byte) (0x40 | opcode)).putInt(0).putInt(qn)
                .putInt(msn).putInt(mo).put(payload);
        b.position(2 + ulpdu + pad);
        int value = withCrc ? crc(b.array(), 2 + ulpdu + pad) : 0;
        b.order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(value);
        return b.array();
    }

    /** Reads one FPDU. */
    static Fpdu readFpdu(DataInputStream in) throws IOException {
        int ulpdu = in.readUnsignedShort();
        int pad = (-(2 + ulpdu)) & 3;
        byte[] all = new byte[2 + ulpdu + pad + 4];
        all[0] = (byte) (ulpdu >>> 8);
        all[1] = (byte) ulpdu;
        in.readFully(all, 2, all.length - 2);
        int wire = ByteBuffer.wrap(all, all.length - 4, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
        return new Fpdu(java.util.Arrays.copyOfRange(all, 2, 2 + ulpdu), wire, crc(all, all.length - 4));
    }

    // ------------------------------------------------------------------ raw sockets

    /** Something to run on a raw socket. */
    interface SocketTask {
        void run(java.net.Socket s) throws Exception;
    }

    /**
     * A raw TCP server on loopback that accepts one connection and runs {@code task} on it (virtual thread);
     * the socket stays open until {@link #close}.
     */
    static final class RawServer implements AutoCloseable {
        final java.net.ServerSocket server;
        private final Thread thread;
        private final List<java.net.Socket> sockets = java.util.Collections.synchronizedList(new ArrayList<>());
        private volatile boolean closing;
        volatile Throwable failure;

        RawServer(SocketTask task) throws IOException {
            server = new java.net.ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress());
            thread = Thread.ofVirtual().name("raw-server").start(() -> {
                try {
                    java.net.Socket s = server.accept();
                    sockets.add(s);
                    s.setSoTimeout(10_000);
                    task.run(s);
                } catch (Throwable t) {
                    if (!closing) {
                        failure = t;
                    }
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        /** Waits for the task to end and rethrows what it threw. */
        void join() throws Exception {
            thread.join(10_000);
            if (failure != null) {
                throw new AssertionError("raw server: " + failure, failure);
            }
        }

        @Override
        public void close() throws IOException, InterruptedException {
            closing = true;
            server.close();
            synchronized (sockets) {
                for (java.net.Socket s : sockets) {
                    s.close();
                }
            }
            thread.interrupt();
            thread.join(5_000);
        }
    }

    /** A raw client socket to {@code port} on loopback, with a 10 s read timeout. */
    static java.net.Socket rawClient(long port) throws IOException {
        java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), (int) port);
        s.setSoTimeout(10_000);
        s.setTcpNoDelay(true);
        return s;
    }

    /** A free TCP port on loopback (nothing listens on it once this returns). */
    static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static InetSocketAddress inet(SocketAddress a) {
        return (InetSocketAddress) a;
    }
}
