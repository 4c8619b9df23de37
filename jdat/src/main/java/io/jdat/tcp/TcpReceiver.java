package io.jdat.tcp;

import io.jdat.MemPriv;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.RemoteRegion;
import io.jdat.spi.WorkRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ScatteringByteChannel;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * The receive path of one connection: reads FPDUs from the socket, checks every field of them before any
 * byte moves, and places payloads into registered memory.
 *
 * <p>Bytes come through a staging buffer, so that one read takes many small FPDUs (a direct {@code recv}
 * when the connection has {@link DirectSocket}: a consumer that polls pays no NIO bookkeeping per look); when the rest of a large
 * payload is still in the socket, it is read straight into the target segment (no staging copy), and the
 * next staging read is kept short so that the payload after the next header goes straight too.
 *
 * <p>What the wire may not do, and what happens when it does (the Terminate codes of RFC 5040/5041/5044):
 * a bad DDP or RDMAP version; a ULPDU shorter than its headers; an unknown queue number or opcode; an MSN
 * out of order; an MO that does not continue the message; a Send longer than its receive buffer; an RDMA
 * Write or Read naming a context, range or privilege the core refuses; a Read Response not matching the
 * oldest outstanding Read; more incoming Reads than the negotiated IRD; a CRC mismatch. Each ends the
 * connection with a Terminate naming the layer and error, and the core reports it BROKEN. Nothing is
 * written outside the range the core resolved.
 *
 * <p>Thread confinement: everything here runs under {@link #lock}, taken with {@code tryLock} by whichever
 * thread makes progress (the IA's progress thread or a polling consumer). Core callbacks made from here
 * ({@code takeRecv}, {@code completeRecv}, {@code resolveRemote}) are the receive-path calls the SPI allows;
 * connection-level notifications are deferred to the progress thread. An RDMA Read's source is only admitted here:
 * the transmitter reads it, under its own holds ({@code holdSource}).
 */
final class TcpReceiver {
    /** Staging buffer size: many small FPDUs, or one header-and-trailer window of a large one. */
    static final int STAGING = 64 * 1024 + 64;
    /** A payload remainder at least this long is read straight into its target. */
    static final int DIRECT_MIN = 2048;
    /** After a large payload, the next staging read takes at most this much: trailer and next header. */
    static final int BULK_READ = 128;
    /** Receiver-not-ready limit, as for {@code mem} (system property {@code jdat.tcp.rnrTimeoutMillis}). */
    static final long RNR_TIMEOUT_NANOS = Long.getLong("jdat.tcp.rnrTimeoutMillis", 2000L) * 1_000_000L;

    private static final int HEADER = 0;
    private static final int PAYLOAD = 1;
    private static final int TRAILER = 2;
    private static final int DEAD = 3;

    /** The outcome of a receive pass beyond placing bytes. */
    static final int OK = 0;
    /** The peer closed its side at an FPDU boundary. */
    static final int EOF = 1;
    /** The connection broke (stream error, protocol error, Terminate received or sent). */
    static final int BROKEN = 2;

    final ReentrantLock lock = new ReentrantLock();
    private final TcpConnection conn;
    private final ScatteringByteChannel ch;
    /** Direct {@code recv} on the socket ({@link TcpConnection#direct}), or null. */
    private final DirectSocket.Path direct;
    private final TcpTransmitter tx;
    private final ReadQueues reads;
    private final ByteBuffer in;
    private final MemorySegment inSeg;
    private final CRC32C crc;
    private final Placement place = new Placement();
    private final RemoteRegion region = new RemoteRegion();
    private final RemoteRegion probe = new RemoteRegion();
    private final MemorySegment scratch = Arena.ofAuto().allocate(Ddp.TERMINATE_MAX + 64, 8); // freed with the receiver

    // Parse state of the current FPDU.
    private static final ValueLayout.OfInt CONTROL_WORD = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private int phase = HEADER;
    private int opcode;
    private boolean last;
    private int payload;
    private int remaining;
    private int pad;
    private boolean bulk;
    // The RDMA Write being placed: its STag and first TO, and whether this pass holds its region.
    private int writeStag;
    private long writeTo;
    private boolean holding;
    /** A Write's payload goes on in this pass: resolve the rest again ({@link #resumeWrite}). */
    private boolean resumeWrite;
    // Read Request fields, kept for the trailer.
    private int rrSinkStag;
    private long rrSinkTo;
    private long rrSize;
    private int rrSourceStag;
    private long rrSourceTo;
    // The Send message being received.
    private RecvBuffer recvBuf;
    private long msgPlaced;
    private int expectedSendMsn = 1;
    private int expectedReadMsn = 1;
    // Receiver not ready: a Send header waits for a buffer since this time (0: not waiting).
    private long stallSince;
    private volatile boolean stalled;
    /** No FPDU arrived whole yet (the transmitter of a responder without an RTR waits for one). */
    private boolean first = true;
    /** What ended this receiver ({@link #OK} while it runs). */
    private int outcome = OK;
    private String reason;

    TcpReceiver(TcpConnection conn, ScatteringByteChannel ch, TcpTransmitter tx, ReadQueues reads, boolean crcOn) {
        this.conn = conn;
        this.ch = ch;
        this.direct = conn.direct == null ? null : conn.direct.rx;
        this.tx = tx;
        this.reads = reads;
        this.in = ByteBuffer.allocateDirect(STAGING).order(ByteOrder.BIG_ENDIAN);
        this.in.flip(); // read mode, empty
        this.inSeg = MemorySegment.ofBuffer(in.duplicate().clear());
        this.crc = crcOn ? new CRC32C() : null;
    }

    /** A zero-length RDMA Read Request served as the RTR took MSN 1 of the Read queue. */
    void readRtrConsumed() {
        expectedReadMsn = 2;
    }

    /** True while a Send waits for a receive buffer. */
    boolean stalled() {
        return stalled;
    }

    /** Why the receiver stopped, for messages. */
    String reason() {
        return reason;
    }

    /**
     * One receive pass, if no other thread is in one: reads and places what the socket has.
     *
     * @return true when it moved bytes or completed something
     */
    boolean poll() {
        if (!lock.tryLock()) {
            return false;
        }
        boolean progress;
        int out;
        try {
            if (phase == DEAD) {
                return false;
            }
            progress = receive();
            out = outcome;
        } finally {
            lock.unlock();
        }
        if (progress) {
            conn.heard();
        }
        if (out != OK) {
            conn.receiverEnded(out, reason);
        }
        return progress;
    }

    /**
     * True when another thread is in a receive pass: the one that failed {@link #poll}'s {@code tryLock}
     * learns that someone else moves this connection's bytes.
     */
    boolean receivingElsewhere() {
        return lock.isLocked() && !lock.isHeldByCurrentThread();
    }

    /** Stops the receiver for good (connection closing); waits for a pass in progress. */
    void stop() {
        lock.lock();
        try {
            phase = DEAD;
            recvBuf = null;
            place.clear();
        } finally {
            lock.unlock();
        }
    }

    private boolean receive() {
        try {
            return receivePass();
        } finally {
            if (holding) {
                // the pass ends inside a Write's payload: the hold ends here, the rest is resolved again later
                release();
                resumeWrite = phase == PAYLOAD;
            }
        }
    }

    private boolean receivePass() {
        boolean progress = false;
        try {
            for (;;) {
                switch (phase) {
                    case HEADER -> {
                        int r = header();
                        if (r < 0) {
                            return progress;
                        }
                        progress = true;
                    }
                    case PAYLOAD -> {
                        if (!payload()) {
                            return progress;
                        }
                        progress = true;
                    }
                    case TRAILER -> {
                        if (!trailer()) {
                            return progress;
                        }
                        progress = true;
                        if (in.remaining() == 0) {
                            // An FPDU ended with nothing more staged: let the caller see its completion now
                            // instead of paying for a read that most likely finds nothing.
                            return true;
                        }
                    }
                    default -> {
                        return progress;
                    }
                }
            }
        } catch (EndOfStream e) {
            if (phase == HEADER && in.remaining() == 0 && recvBuf == null) {
                end(EOF, "peer closed the connection");
            } else {
                end(BROKEN, "stream ended inside an FPDU");
            }
            return true;
        } catch (IOException e) {
            end(BROKEN, "receive failed: " + e.getMessage());
            return true;
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            // Registered memory whose arena the consumer closed under an incoming message.
            terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_LOCAL_CATASTROPHIC, Terminate.RDMAP_CATASTROPHIC_STREAM,
                    "target memory went away: " + e.getMessage());
            return true;
        }
    }

    /** Reads until {@code need} bytes are staged. @return false when the socket has no more now */
    private boolean fill(int need) throws IOException {
        while (in.remaining() < need) {
            if (in.hasRemaining()) {
                in.compact();
            } else {
                in.clear();
            }
            int limit = bulk ? Math.max(need, Math.min(in.position() + BULK_READ, in.capacity())) : in.capacity();
            in.limit(Math.max(limit, in.position()));
            int n = read();
            in.flip();
            if (n < 0) {
                throw new EndOfStream();
            }
            if (n == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * One read into the staging buffer's free space [position, limit): directly ({@code recv}) when the
     * connection has {@link DirectSocket}, else through the channel.
     *
     * @return the bytes read, 0 when none is there now, -1 at the end of the stream
     */
    private int read() throws IOException {
        if (direct == null) {
            return ch.read(in);
        }
        int p = in.position();
        int n = (int) direct.receive(inSeg, p, in.limit() - p);
        if (n > 0) {
            in.position(p + n);
        }
        return n;
    }

    /** @return -1 when more bytes are needed, else 0 (moved to the next phase or died) */
    private int header() throws IOException {
        if (!fill(Ddp.RDMAP_CONTROL_OFFSET + 1)) {
            return -1;
        }
        int p = in.position();
        int ulpdu = in.getShort(p + Ddp.LENGTH_OFFSET) & 0xFFFF;
        int ctrl = in.get(p + Ddp.DDP_CONTROL_OFFSET) & 0xFF;
        int rctl = in.get(p + Ddp.RDMAP_CONTROL_OFFSET) & 0xFF;
        boolean tagged = (ctrl & Ddp.CTRL_TAGGED) != 0;
        if ((ctrl & Ddp.CTRL_VERSION_MASK) != Ddp.DDP_VERSION) {
            return terminate(Terminate.LAYER_DDP, tagged ? Terminate.DDP_TAGGED : Terminate.DDP_UNTAGGED,
                    tagged ? Terminate.DDP_T_BAD_VERSION : Terminate.DDP_U_BAD_VERSION,
                    "DDP version " + (ctrl & Ddp.CTRL_VERSION_MASK));
        }
        if (Ddp.rdmapVersion(rctl) != Ddp.RDMAP_VERSION) {
            return terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_BAD_VERSION,
                    "RDMAP version " + Ddp.rdmapVersion(rctl));
        }
        last = (ctrl & Ddp.CTRL_LAST) != 0;
        opcode = Ddp.opcode(rctl);
        int hdr = (tagged ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER)
                + (!tagged && opcode == Ddp.OP_READ_REQUEST ? Ddp.READ_REQUEST_HEADER : 0);
        if (ulpdu < hdr) {
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_LOCAL_CATASTROPHIC, 0,
                    "ULPDU of " + ulpdu + " bytes is shorter than its " + hdr + "-byte header");
        }
        if (!fill(Ddp.LENGTH_FIELD + hdr)) {
            return -1;
        }
        p = in.position(); // fill() may have compacted the staging buffer
        payload = ulpdu - hdr;
        pad = Ddp.pad(ulpdu);
        int r = tagged ? tagged(p) : untagged(p);
        if (r != 0) {
            return r;
        }
        if (crc != null) {
            crc.reset();
            crcUpdate(p, Ddp.LENGTH_FIELD + hdr);
        }
        in.position(p + Ddp.LENGTH_FIELD + hdr);
        remaining = payload;
        bulk = payload >= DIRECT_MIN;
        phase = PAYLOAD;
        return 0;
    }

    private int tagged(int p) {
        int stag = in.getInt(p + Ddp.STAG_OFFSET);
        long to = in.getLong(p + Ddp.TO_OFFSET);
        switch (opcode) {
            case Ddp.OP_WRITE -> {
                int r = resolve(stag, to, payload, MemPriv.REMOTE_WRITE, Terminate.LAYER_DDP, Terminate.DDP_TAGGED,
                        Terminate.DDP_T_BASE_BOUNDS, Terminate.DDP_T_INVALID_STAG, "RDMA Write to");
                if (r != 0) {
                    return r;
                }
                place.contiguous(region.segment(), region.offset());
                writeStag = stag;
                writeTo = to;
                holding = payload > 0; // the region's hold, until the payload is in or this pass ends
                return 0;
            }
            case Ddp.OP_READ_RESPONSE -> {
                WorkRequest wr = reads.outboundSink(stag);
                if (wr == null) {
                    return terminate(Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG,
                            String.format("Read Response to STag 0x%08x, which names no outstanding Read", stag));
                }
                long len = wr.remoteLength(); // what the Read asked for; the sink may be longer
                if (to < 0 || to > len || payload > len - to) {
                    return terminate(Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_BASE_BOUNDS,
                            "Read Response outside its sink: TO " + to + ", " + payload + " bytes, sink " + len);
                }
                place.vector(wr, to);
                return 0;
            }
            default -> {
                return terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION,
                        Terminate.RDMAP_UNEXPECTED_OPCODE, "tagged " + Ddp.opcodeName(opcode));
            }
        }
    }

    /** An untagged FPDU: checks its queue number and opcode, then hands it to the handler of its kind. */
    private int untagged(int p) {
        int qn = in.getInt(p + Ddp.QN_OFFSET);
        int msn = in.getInt(p + Ddp.MSN_OFFSET);
        int mo = in.getInt(p + Ddp.MO_OFFSET);
        if (qn == Ddp.QN_SEND && Ddp.isSend(opcode)) {
            return send(msn, mo);
        }
        if (qn == Ddp.QN_READ_REQUEST && opcode == Ddp.OP_READ_REQUEST) {
            return readRequest(p, msn, mo);
        }
        if (qn == Ddp.QN_TERMINATE && opcode == Ddp.OP_TERMINATE) {
            return terminateReceived();
        }
        if (qn != Ddp.QN_SEND && qn != Ddp.QN_READ_REQUEST && qn != Ddp.QN_TERMINATE) {
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_QN,
                    "queue number " + Integer.toUnsignedString(qn));
        }
        return terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE,
                Ddp.opcodeName(opcode) + " on queue " + qn);
    }

    /** A segment of a Send (siw_proc_send): in MSN order, continuing its message, into the posted buffer. */
    private int send(int msn, int mo) {
        if (opcode == Ddp.OP_SEND_INVALIDATE || opcode == Ddp.OP_SEND_SE_INVALIDATE) {
            return terminate(Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION,
                    Terminate.RDMAP_UNEXPECTED_OPCODE, Ddp.opcodeName(opcode) + " (not in DAT 1.2)");
        }
        if (msn != expectedSendMsn) {
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_MSN_RANGE,
                    "Send MSN " + Integer.toUnsignedString(msn) + ", expected " + Integer.toUnsignedString(expectedSendMsn));
        }
        if (recvBuf == null) {
            if (mo != 0) {
                return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO,
                        "first segment of a Send at MO " + Integer.toUnsignedString(mo));
            }
            ChannelSink sink = conn.sink;
            RecvBuffer b = sink.takeRecv();
            if (b == null) {
                return stall(sink);
            }
            if (stallSince != 0) {
                stalled = false;
                stallSince = 0;
                // stall() turned read readiness off; the buffer may have come without recvPosted seeing the
                // stall (posted while stall() ran), so nothing else turns it back on
                conn.readInterest(true);
            }
            recvBuf = b;
            msgPlaced = 0;
        } else if (Integer.toUnsignedLong(mo) != msgPlaced) {
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO,
                    "Send segment at MO " + Integer.toUnsignedString(mo) + ", expected " + msgPlaced);
        }
        if (msgPlaced + payload > recvBuf.totalLength()) {
            RecvBuffer b = recvBuf;
            recvBuf = null;
            conn.sink.completeRecv(b, msgPlaced + payload, false); // DAT_DTO_ERR_LOCAL_LENGTH
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_TOO_LONG,
                    "Send of at least " + (msgPlaced + payload) + " bytes into a " + b.totalLength() + "-byte buffer");
        }
        place.vector(recvBuf, msgPlaced);
        return 0;
    }

    /**
     * An RDMA Read Request (siw_proc_rreq): one whole segment in MSN order, within the IRD, naming a source
     * the core admits for remote read. Its Read Responses are queued when the FPDU's trailer checked out.
     */
    private int readRequest(int p, int msn, int mo) {
        if (msn != expectedReadMsn) {
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_MSN_RANGE,
                    "Read Request MSN " + Integer.toUnsignedString(msn) + ", expected " + Integer.toUnsignedString(expectedReadMsn));
        }
        if (!last || mo != 0 || payload != 0) {
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO,
                    "Read Request not one whole segment");
        }
        rrSinkStag = in.getInt(p + Ddp.RR_SINK_STAG_OFFSET);
        rrSinkTo = in.getLong(p + Ddp.RR_SINK_TO_OFFSET);
        rrSize = Integer.toUnsignedLong(in.getInt(p + Ddp.RR_SIZE_OFFSET));
        int srcStag = in.getInt(p + Ddp.RR_SOURCE_STAG_OFFSET);
        long srcTo = in.getLong(p + Ddp.RR_SOURCE_TO_OFFSET);
        rrSourceStag = srcStag;
        rrSourceTo = srcTo;
        if (!reads.inboundRoom()) {
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_MSN_RANGE,
                    "more incoming RDMA Reads than the negotiated IRD " + conn.irdLimit);
        }
        int r = resolve(srcStag, srcTo, rrSize, MemPriv.REMOTE_READ, Terminate.LAYER_RDMAP,
                Terminate.RDMAP_REMOTE_PROTECTION, Terminate.RDMAP_BASE_BOUNDS, Terminate.RDMAP_INVALID_STAG,
                "RDMA Read of");
        if (r != 0) {
            return r;
        }
        place.contiguous(scratch, 0); // no payload
        return 0;
    }

    /** A Terminate from the peer (siw_proc_terminate): its payload goes to the scratch area, read at the end. */
    private int terminateReceived() {
        if (payload < Terminate.MIN_LENGTH || payload > scratch.byteSize()) {
            return terminate(Terminate.LAYER_LLP, 0, Terminate.LLP_BAD_FRAME, "Terminate of " + payload + " bytes");
        }
        place.contiguous(scratch, 0);
        return 0;
    }

    /**
     * Resolves the target of an RDMA Write or the source of an RDMA Read into {@link #region}, as the core
     * admits it for {@code privilege}. A refusal ends the connection with the Terminate of {@code layer} and
     * {@code type}: {@code boundsCode} when only the length runs past the region, else {@code stagCode}.
     *
     * @param what the operation, for the message ("RDMA Write to")
     * @return 0 when admitted, else {@link #terminate}'s or {@link #dead}'s value
     */
    private int resolve(int stag, long to, long length, int privilege, int layer, int type, int boundsCode,
            int stagCode, String what) {
        int st = conn.sink.resolveRemote(stag, to, length, privilege, region);
        if (st == RemoteRegion.CLOSED) {
            return dead("the endpoint no longer takes RDMA");
        }
        if (st != RemoteRegion.OK) {
            return terminate(layer, type, admitsStart(stag, to, privilege) ? boundsCode : stagCode,
                    String.format("%s STag 0x%08x, TO 0x%x, %d bytes refused", what, stag, to, length));
        }
        return 0;
    }

    /**
     * For the Terminate code of a refused access: true when the core admits the range's first byte, so the
     * STag, its privilege and the start are right and only the length runs past the region (base/bounds
     * violation); otherwise the STag is reported invalid (the SPI does not say which check failed).
     */
    private boolean admitsStart(int stag, long to, int privilege) {
        boolean ok = conn.sink.resolveRemote(stag, to, 1, privilege, probe) == RemoteRegion.OK;
        conn.sink.placed(); // a probe places nothing: no hold
        return ok;
    }

    /** No receive buffer for a Send: wait for one (flow control holds the peer) up to the RNR limit. */
    private int stall(ChannelSink sink) {
        if (!sink.isAccepting()) {
            return dead("the endpoint no longer takes messages");
        }
        long now = System.nanoTime();
        if (stallSince == 0) {
            stallSince = now | 1;
            stalled = true;
            conn.readInterest(false);
        } else if (now - stallSince > RNR_TIMEOUT_NANOS) {
            stalled = false;
            return terminate(Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_NO_BUFFER,
                    "no receive buffer posted for a Send within " + RNR_TIMEOUT_NANOS / 1_000_000 + " ms");
        }
        return -1; // the header stays staged and is parsed again when a buffer is posted
    }

    private boolean payload() throws IOException {
        if (resumeWrite && !resumeWrite()) {
            return true; // refused: the connection ends
        }
        for (;;) {
            int n = Math.min(remaining, in.remaining());
            if (n > 0) {
                int p = in.position();
                if (crc != null) {
                    crcUpdate(p, n);
                }
                place.copy(inSeg, p, n);
                in.position(p + n);
                remaining -= n;
            }
            if (remaining == 0) {
                release();
                phase = TRAILER;
                return true;
            }
            if (remaining >= DIRECT_MIN) {
                // Straight into the target; what follows the payload (trailer, next header) spills into the
                // empty staging buffer in the same read, at most BULK_READ bytes of it.
                in.clear();
                in.limit(BULK_READ);
                int k = place.read(ch, remaining, crc, in);
                in.flip();
                if (k < 0) {
                    throw new EndOfStream();
                }
                if (k == 0) {
                    return false;
                }
                remaining -= k;
            } else if (!fill(1)) {
                return false;
            }
        }
    }

    /**
     * An RDMA Write's payload goes on in a later pass: the part still to come is resolved again, so that a hold on
     * the region never spans the wait for the peer's bytes ({@link ChannelSink#resolveRemote}); a region withdrawn
     * in between refuses it as it would a new Write (LMF-04: an in-flight Write may fail).
     *
     * @return false when refused (the connection ends)
     */
    private boolean resumeWrite() {
        resumeWrite = false;
        long to = writeTo + (payload - remaining);
        if (resolve(writeStag, to, remaining, MemPriv.REMOTE_WRITE, Terminate.LAYER_DDP, Terminate.DDP_TAGGED,
                Terminate.DDP_T_BASE_BOUNDS, Terminate.DDP_T_INVALID_STAG, "RDMA Write (continued) to") != 0) {
            return false;
        }
        holding = true; // the same region: the placement's target is unchanged
        return true;
    }

    /** Ends the region's hold of the RDMA Write being placed, if any. */
    private void release() {
        if (holding) {
            holding = false;
            conn.sink.placed();
        }
    }

    /**
     * Adds the {@code n} staged bytes at {@code p} to the CRC; the staging buffer's position ends at {@code p + n},
     * its limit is unchanged. No allocation ({@code CRC32C} reads a direct buffer between position and limit).
     */
    private void crcUpdate(int p, int n) {
        int lim = in.limit();
        in.limit(p + n).position(p);
        crc.update(in);
        in.limit(lim);
    }

    private boolean trailer() throws IOException {
        if (!fill(pad + Ddp.CRC_FIELD)) {
            return false;
        }
        int p = in.position();
        if (crc != null) {
            crcUpdate(p, pad);
            int wire = Integer.reverseBytes(in.getInt(p + pad)); // sent least-significant byte first
            if (wire != (int) crc.getValue()) {
                in.position(p + pad + Ddp.CRC_FIELD);
                terminate(Terminate.LAYER_LLP, 0, Terminate.LLP_CRC,
                        String.format("CRC mismatch on %s: wire 0x%08x, computed 0x%08x", Ddp.opcodeName(opcode), wire,
                                (int) crc.getValue()));
                return true;
            }
        }
        in.position(p + pad + Ddp.CRC_FIELD);
        phase = HEADER;
        if (first) {
            first = false;
            tx.peerFpduArrived(); // RFC 5044 §7.1.2: a responder without an RTR may send from now on
        }
        complete();
        return true;
    }

    /** The FPDU arrived whole (and its CRC matched): what it means. */
    private void complete() {
        switch (opcode) {
            case Ddp.OP_SEND, Ddp.OP_SEND_SE -> {
                msgPlaced += payload;
                if (last) {
                    RecvBuffer b = recvBuf;
                    recvBuf = null;
                    expectedSendMsn++;
                    conn.sink.completeRecv(b, msgPlaced, opcode == Ddp.OP_SEND_SE);
                    msgPlaced = 0;
                }
            }
            case Ddp.OP_READ_RESPONSE -> {
                if (last) {
                    long order = reads.oldestOutboundOrder();
                    WorkRequest wr = reads.removeOutbound();
                    tx.readCompleted(order, wr.remoteLength()); // bytes read, not the sink's size
                }
            }
            case Ddp.OP_READ_REQUEST -> {
                expectedReadMsn++;
                // admitted only: the transmitter holds the source for each Read Response it reads (holdSource)
                reads.addInbound(rrSinkStag, rrSinkTo, rrSourceStag, rrSourceTo, region.segment(), region.offset(),
                        rrSize);
                tx.readRequestQueued();
            }
            case Ddp.OP_TERMINATE -> {
                int word = scratch.get(CONTROL_WORD, Terminate.CONTROL_OFFSET);
                tx.peerTerminated(word);
                end(BROKEN, "peer sent Terminate: " + Terminate.describe(word));
            }
            default -> {
                // RDMA Write: nothing to report at the target.
            }
        }
    }

    private int terminate(int layer, int type, int code, String why) {
        tx.sendTerminate(Terminate.controlWord(layer, type, code));
        end(BROKEN, "sent Terminate (" + Terminate.describe(Terminate.controlWord(layer, type, code)) + "): " + why);
        return 1;
    }

    private int dead(String why) {
        phase = DEAD;
        reason = why;
        return 1;
    }

    private void end(int how, String why) {
        phase = DEAD;
        outcome = how;
        reason = why;
        stalled = false;
        recvBuf = null; // a message cut short: the core flushes its buffer when the connection closes
    }

    /** End of stream from a read. */
    private static final class EndOfStream extends IOException {
        private static final long serialVersionUID = 1L;

        EndOfStream() {
            super("end of stream");
        }
    }
}
