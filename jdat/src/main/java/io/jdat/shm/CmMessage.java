package io.jdat.shm;

import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * The connection-management messages of {@code shm}, exchanged over the listener's Unix domain socket before
 * the rings carry anything: a frame of int magic {@code 0x4A44434D} ("JDCM"), int type, int payload length
 * (at most {@value #MAX_PAYLOAD}), then the payload (big-endian). Decoding checks every length; a malformed
 * message is a {@link ProtocolException}.
 *
 * <pre>
 *   active                                   passive
 *   REQUEST(pid, port, IRD/ORD, probe, file, private data)  →
 *                     ←  ACCEPT(pid, IRD/ORD, probe, reach, private data) | REJECT | REFUSE
 *   READY(reach) | NACK  →
 * </pre>
 * "Probe" is the address of a byte the sender keeps readable, so that the peer can test once whether
 * cross-memory attach to the sender is permitted; "memory" is the directory of the sender's {@link ShmMemory}
 * files. The abilities the ACCEPT and READY carry tell the peer what the sender of the flags can do with the
 * peer's memory: {@link #CAN_REACH} (cross-memory attach works), {@link #CAN_MAP} (it may map the peer's
 * shared memory files).
 */
final class CmMessage {
    static final int MAGIC = 0x4A44_434D;
    static final int VERSION = 1;
    static final int MAX_PAYLOAD = 8192;
    static final int MAX_STRING = 4096;

    static final int REQUEST = 1;
    static final int ACCEPT = 2;
    static final int REJECT = 3;
    static final int REFUSE = 4;
    static final int READY = 5;
    static final int NACK = 6;

    /** Ability: cross-memory attach to the peer works. */
    static final int CAN_REACH = 1;
    /** Ability: the peer's {@link ShmMemory} files can be mapped. */
    static final int CAN_MAP = 2;

    /** A connection request. */
    record Request(long pid, long portQual, int ird, int ord, long probeAddress, String activeDir, String file,
            int ringCapacity, int staging, String memoryDir, byte[] privateData) {
    }

    /** An accept. */
    record Accept(long pid, int ird, int ord, long probeAddress, int abilities, String memoryDir,
            byte[] privateData) {
    }

    /** A received frame: its type and payload. */
    record Frame(int type, ByteBuffer payload) {
    }

    private CmMessage() {
    }

    static void writeRequest(SocketChannel ch, Request r) throws IOException {
        byte[] dir = r.activeDir().getBytes(StandardCharsets.UTF_8);
        byte[] file = r.file().getBytes(StandardCharsets.UTF_8);
        byte[] mem = r.memoryDir().getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(68 + dir.length + file.length + mem.length + r.privateData().length);
        b.putInt(VERSION).putLong(r.pid()).putLong(r.portQual()).putInt(r.ird()).putInt(r.ord())
                .putLong(r.probeAddress()).putInt(r.ringCapacity()).putInt(r.staging());
        putBytes(b, dir);
        putBytes(b, file);
        putBytes(b, mem);
        putBytes(b, r.privateData());
        write(ch, REQUEST, b.flip());
    }

    static Request parseRequest(ByteBuffer p) throws ProtocolException {
        try {
            int version = p.getInt();
            if (version != VERSION) {
                throw new ProtocolException("shm CM version " + version + ", expected " + VERSION);
            }
            long pid = p.getLong();
            long port = p.getLong();
            int ird = p.getInt();
            int ord = p.getInt();
            long probe = p.getLong();
            int ring = p.getInt();
            int staging = p.getInt();
            String dir = getString(p);
            String file = getString(p);
            String mem = getString(p);
            byte[] pd = getBytes(p, MAX_PAYLOAD);
            checkPeer("request", pid, ird, ord);
            return new Request(pid, port, ird, ord, probe, dir, file, ring, staging, mem, pd);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("truncated shm CM request");
        }
    }

    static void writeAccept(SocketChannel ch, Accept a) throws IOException {
        byte[] mem = a.memoryDir().getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(44 + mem.length + a.privateData().length);
        b.putLong(a.pid()).putInt(a.ird()).putInt(a.ord()).putLong(a.probeAddress()).put((byte) a.abilities());
        putBytes(b, mem);
        putBytes(b, a.privateData());
        write(ch, ACCEPT, b.flip());
    }

    static Accept parseAccept(ByteBuffer p) throws ProtocolException {
        try {
            long pid = p.getLong();
            int ird = p.getInt();
            int ord = p.getInt();
            long probe = p.getLong();
            int abilities = p.get() & (CAN_REACH | CAN_MAP);
            String mem = getString(p);
            byte[] pd = getBytes(p, MAX_PAYLOAD);
            checkPeer("accept", pid, ird, ord);
            return new Accept(pid, ird, ord, probe, abilities, mem, pd);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("truncated shm CM accept");
        }
    }

    static void writeReady(SocketChannel ch, int abilities) throws IOException {
        write(ch, READY, ByteBuffer.wrap(new byte[] {(byte) abilities}));
    }

    static void writeEmpty(SocketChannel ch, int type) throws IOException {
        write(ch, type, ByteBuffer.allocate(0));
    }

    private static void write(SocketChannel ch, int type, ByteBuffer payload) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(12).putInt(MAGIC).putInt(type).putInt(payload.remaining()).flip();
        ByteBuffer[] v = {h, payload};
        while (h.hasRemaining() || payload.hasRemaining()) {
            ch.write(v);
        }
    }

    /** Reads one frame from a blocking channel. */
    static Frame read(SocketChannel ch) throws IOException {
        ByteBuffer h = ByteBuffer.allocate(12);
        readFully(ch, h);
        h.flip();
        int magic = h.getInt();
        int type = h.getInt();
        int len = h.getInt();
        if (magic != MAGIC) {
            throw new ProtocolException("not an shm CM message (magic 0x" + Integer.toHexString(magic) + ")");
        }
        if (type < REQUEST || type > NACK || len < 0 || len > MAX_PAYLOAD + 2 * MAX_STRING + 64) {
            throw new ProtocolException("shm CM message type " + type + " length " + len);
        }
        ByteBuffer p = ByteBuffer.allocate(len);
        readFully(ch, p);
        return new Frame(type, p.flip());
    }

    private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("peer closed the shm CM socket");
            }
        }
    }

    private static void putBytes(ByteBuffer b, byte[] a) {
        b.putInt(a.length).put(a);
    }

    private static String getString(ByteBuffer p) throws ProtocolException {
        return new String(getBytes(p, MAX_STRING), StandardCharsets.UTF_8);
    }

    /** The peer's pid and RDMA Read depths, as a request or an accept carries them: a pid and counts. */
    private static void checkPeer(String what, long pid, int ird, int ord) throws ProtocolException {
        if (pid <= 0 || pid > Integer.MAX_VALUE || ird < 0 || ord < 0) {
            throw new ProtocolException("shm CM " + what + " with pid " + pid + ", IRD " + ird + ", ORD " + ord);
        }
    }

    private static byte[] getBytes(ByteBuffer p, int max) throws ProtocolException {
        int n = p.getInt();
        if (n < 0 || n > max || n > p.remaining()) {
            throw new ProtocolException("shm CM field of " + n + " bytes");
        }
        byte[] a = new byte[n];
        p.get(a);
        return a;
    }
}
