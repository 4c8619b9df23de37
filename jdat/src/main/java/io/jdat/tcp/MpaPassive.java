package io.jdat.tcp;

import io.jdat.spi.ChannelSink;
import io.jdat.spi.PassiveHandler;
import io.jdat.transport.DaemonTimer;
import io.jdat.transport.StreamRequest;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * The passive side of connection setup: reads the MPA Request of an accepted TCP connection (within
 * {@value #REQUEST_TIMEOUT_MILLIS} ms, as {@code siw}), hands the core a connection request, and answers
 * as the consumer decides: {@link #accept} sends the Reply (and in peer-to-peer mode waits for the RTR
 * before the EP is ESTABLISHED; without it, the connection sends nothing until the initiator's first FPDU
 * arrived, as RFC 5044 §7.1.2 asks of a responder), {@link #reject} sends a Reply with the reject bit and a FIN,
 * {@link #refuse} resets the stream without a Reply (the requester sees NON_PEER_REJECTED).
 *
 * <p>A Request asking for markers is rejected, as {@code siw} does. The IRD/ORD we reply with are the
 * accepting EP's, clamped to what the requester offered the other way round.
 */
final class MpaPassive extends StreamRequest<TcpTransport, TcpListener> {
    static final long REQUEST_TIMEOUT_MILLIS = 5_000;
    static final long RTR_TIMEOUT_MILLIS = 10_000;
    /** Deadlines of connection management (MPA requests, RTRs). */
    static final ScheduledExecutorService TIMER = DaemonTimer.create("jdat-tcp-timer");

    private Mpa.Frame request;
    private InetSocketAddress remote;

    MpaPassive(TcpTransport transport, TcpListener listener, SocketChannel ch) {
        super(transport, listener, ch);
    }

    /** Reads and checks the Request, then offers it to the service point (virtual thread). */
    void readRequest() {
        ScheduledFuture<?> deadline = TIMER.schedule(this::abort, REQUEST_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        try {
            remote = (InetSocketAddress) ch.getRemoteAddress();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            request = Mpa.read(new DataInputStream(Channels.newInputStream(ch)), false, Mpa.MAX_PRIVATE_DATA);
        } catch (IOException | RuntimeException e) {
            transport.trace(this, "no valid MPA Request: " + e.getMessage());
            abort();
            return;
        } finally {
            deadline.cancel(false);
        }
        if (request.markers()) {
            reject(); // markers are not supported (siw does the same)
            return;
        }
        arrived(Fields.fromInet(remote, listener.connQual(), request.privateData()));
        if (!listener.isOpen() || !listener.handler().onRequest(this)) {
            refuse();
        }
    }

    @Override
    public void accept(PassiveHandler passive, byte[] privateData, int rdmaReadIn, int rdmaReadOut) {
        if (!claimAnswer()) {
            return;
        }
        byte[] pd = privateData == null ? new byte[0] : privateData;
        Thread.ofVirtual().name("jdat-tcp-accept-" + remote.getPort()).start(() -> finishAccept(passive, pd,
                Math.min(rdmaReadIn, Mpa.V2_VALUE_MASK), Math.min(rdmaReadOut, Mpa.V2_VALUE_MASK)));
    }

    private void finishAccept(PassiveHandler passive, byte[] pd, int ird, int ord) {
        TcpConfig cfg = transport.config;
        Mpa.Frame req = request;
        boolean crc = cfg.crc() || req.crc();
        int irdLimit = req.enhanced() ? Math.min(ird, req.ord()) : ird;
        int ordLimit = req.enhanced() ? Math.min(ord, req.ird()) : ord;
        boolean p2p = req.peerToPeer();
        boolean writeRtr = p2p && (req.ordWord() & Mpa.V2_WRITE_RTR) != 0;
        boolean readRtr = p2p && !writeRtr && (req.ordWord() & Mpa.V2_READ_RTR) != 0;
        if (p2p && !writeRtr && !readRtr) {
            transport.trace(this, "peer-to-peer Request offers only a Send RTR");
            abort();
            passive.acceptFailed();
            return;
        }
        int irdWord = irdLimit | (p2p ? Mpa.V2_PEER_TO_PEER : 0);
        int ordWord = ordLimit | (writeRtr ? Mpa.V2_WRITE_RTR : 0) | (readRtr ? Mpa.V2_READ_RTR : 0);
        ScheduledFuture<?> deadline = null;
        try {
            MpaActive.writeFully(ch, Mpa.encode(true, crc ? Mpa.FLAG_CRC : 0, req.revision(), irdWord, ordWord, pd));
            Rtr rtr = null;
            if (p2p) {
                deadline = TIMER.schedule(this::abort, RTR_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
                rtr = readRtr(crc, writeRtr);
                deadline.cancel(false);
            }
            // Without an RTR, the initiator may not be ready for our FPDUs until it sent its own first
            // (RFC 5044 §7.1.2; siw as initiator can miss an FPDU that follows its MPA Reply too closely).
            TcpConnection conn = new TcpConnection(transport, ch, crc, cfg.mulpduFor(ch), irdLimit,
                    ordLimit, false, !p2p, cfg.mulpdu() == 0);
            leave();
            ChannelSink sink = passive.established(conn);
            if (sink == null) {
                conn.reset();
                return;
            }
            transport.connections.add(conn);
            if (rtr != null && rtr.read) {
                conn.rx.readRtrConsumed();
                conn.reads.addInbound(rtr.sinkStag, rtr.sinkTo, 0, 0, java.lang.foreign.MemorySegment.NULL, 0, 0);
                conn.tx.readRequestQueued();
            }
            conn.start(sink);
            transport.trace(conn, "established (passive, crc " + crc + ", ird " + irdLimit + ", p2p " + p2p + ")");
        } catch (IOException | RuntimeException e) {
            if (deadline != null) {
                deadline.cancel(false);
            }
            transport.trace(this, "accept failed: " + e);
            abort();
            passive.acceptFailed();
        }
    }

    /** The ready-to-receive FPDU that must come first in peer-to-peer mode. */
    private record Rtr(boolean read, int sinkStag, long sinkTo) {
    }

    private Rtr readRtr(boolean crcOn, boolean write) throws IOException {
        ByteBuffer len = ByteBuffer.allocate(Ddp.LENGTH_FIELD);
        readFully(len);
        int ulpdu = len.getShort(Ddp.LENGTH_OFFSET) & 0xFFFF;
        int expect = write ? Ddp.TAGGED_HEADER : Ddp.UNTAGGED_HEADER + Ddp.READ_REQUEST_HEADER;
        if (ulpdu != expect) {
            throw new IOException("RTR of " + ulpdu + " bytes, expected " + expect);
        }
        ByteBuffer rest = ByteBuffer.allocate(ulpdu + Ddp.pad(ulpdu) + Ddp.CRC_FIELD);
        readFully(rest);
        // `rest` starts after the ULPDU_Length: FPDU offsets less Ddp.LENGTH_FIELD
        int ctrl = rest.get(Ddp.DDP_CONTROL_OFFSET - Ddp.LENGTH_FIELD) & 0xFF;
        int rctl = rest.get(Ddp.RDMAP_CONTROL_OFFSET - Ddp.LENGTH_FIELD) & 0xFF;
        int opcode = Ddp.opcode(rctl);
        boolean versions = (ctrl & Ddp.CTRL_VERSION_MASK) == Ddp.DDP_VERSION && Ddp.rdmapVersion(rctl) == Ddp.RDMAP_VERSION;
        boolean ok = versions && (write ? (ctrl & Ddp.CTRL_TAGGED) != 0 && opcode == Ddp.OP_WRITE
                : (ctrl & Ddp.CTRL_TAGGED) == 0 && opcode == Ddp.OP_READ_REQUEST
                        && rest.getInt(Ddp.QN_OFFSET - Ddp.LENGTH_FIELD) == Ddp.QN_READ_REQUEST
                        && rest.getInt(Ddp.RR_SIZE_OFFSET - Ddp.LENGTH_FIELD) == 0);
        if (!ok || (ctrl & Ddp.CTRL_LAST) == 0) {
            throw new IOException("first FPDU is not the RTR the Reply chose");
        }
        if (crcOn) {
            CRC32C c = new CRC32C();
            c.update(len.array(), 0, Ddp.LENGTH_FIELD);
            c.update(rest.array(), 0, ulpdu + Ddp.pad(ulpdu));
            int wire = Integer.reverseBytes(rest.getInt(ulpdu + Ddp.pad(ulpdu)));
            if (wire != (int) c.getValue()) {
                throw new IOException("RTR CRC mismatch");
            }
        }
        return write ? null : new Rtr(true, rest.getInt(Ddp.RR_SINK_STAG_OFFSET - Ddp.LENGTH_FIELD),
                rest.getLong(Ddp.RR_SINK_TO_OFFSET - Ddp.LENGTH_FIELD));
    }

    private void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new java.io.EOFException("stream ended during setup");
            }
        }
    }

    @Override
    public void reject() {
        if (!claimAnswer()) {
            return;
        }
        // From here the reject owns the stream: an IA closing right after dat_cr_reject must not cut the Reply
        // off (the requester would see a close before the Reply: NON_PEER_REJECTED instead of PEER_REJECTED).
        leave();
        Mpa.Frame req = request;
        try {
            // a few bytes on a stream that has sent nothing yet: the send buffer takes them at once
            MpaActive.writeFully(ch, Mpa.encode(true, Mpa.FLAG_REJECT, req.revision(), 0, 0, new byte[0]));
            ch.shutdownOutput();
        } catch (IOException e) {
            // the requester is gone: nothing to tell
        } finally {
            closeStream();
        }
    }

    @Override
    public void refuse() {
        markAnswered();
        try {
            ch.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException | RuntimeException e) {
            // closing anyway
        }
        abort();
    }

    @Override
    public String toString() {
        return "tcp request from " + remote + " to :" + listener.connQual();
    }
}
