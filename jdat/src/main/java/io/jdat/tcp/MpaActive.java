package io.jdat.tcp;

import io.jdat.spi.ActiveHandler;
import io.jdat.spi.ChannelSink;
import io.jdat.transport.OutgoingAttempt;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;

/**
 * The active side of connection setup ({@code dat_ep_connect}): TCP connect, MPA Request, MPA Reply, and
 * the RTR of RFC 6581 peer-to-peer mode. Runs on a virtual thread with blocking I/O, so the steps read in
 * order; the core's connect timeout cancels it by closing the socket.
 *
 * <p>Outcomes: a refused TCP connection, a stream that ends or resets before the Reply, or a Reply that is
 * not MPA (bad key or revision, markers) is {@code NON_PEER_REJECTED}; no route to the host or a TCP
 * connect timeout is {@code UNREACHABLE}; a Reply with the reject bit is {@code PEER_REJECTED}.
 *
 * <p>What we send: revision 2 (or 1, configurable) with the enhanced flag, our IRD/ORD (the EP's
 * {@code max_rdma_read_in/out}), P2P with a zero-length RDMA Write as RTR unless configured off, CRC when
 * configured, never markers.
 */
final class MpaActive extends OutgoingAttempt {
    private final TcpTransport transport;
    private final SocketChannel ch;
    private final InetSocketAddress remote;
    private final byte[] privateData;
    private final int ird;
    private final int ord;
    private final ActiveHandler handler;

    private MpaActive(TcpTransport transport, SocketChannel ch, InetSocketAddress remote, long localPort,
            byte[] privateData, int ird, int ord, ActiveHandler handler) {
        super(transport, localPort);
        this.transport = transport;
        this.ch = ch;
        this.remote = remote;
        this.privateData = privateData == null ? new byte[0] : privateData;
        this.ird = Math.min(ird, Mpa.V2_VALUE_MASK);
        this.ord = Math.min(ord, Mpa.V2_VALUE_MASK);
        this.handler = handler;
    }

    static MpaActive start(TcpTransport transport, InetSocketAddress remote, byte[] pd, int ird, int ord,
            ActiveHandler handler) {
        SocketChannel ch = null;
        long port = 0;
        try {
            ch = SocketChannel.open();
            ch.bind(new InetSocketAddress(transport.config.bindHost(), 0));
            port = ((InetSocketAddress) ch.getLocalAddress()).getPort();
        } catch (IOException e) {
            // reported as NON_PEER_REJECTED by run()
        }
        MpaActive a = new MpaActive(transport, ch, remote, port, pd, ird, ord, handler);
        a.launch("jdat-tcp-connect-" + port, a::run);
        return a;
    }

    @Override
    protected void cancelled() {
        closeQuietly();
    }

    private void run() {
        try {
            if (ch == null) {
                fail(Outcome.NON_PEER);
                return;
            }
            try {
                ch.connect(remote);
            } catch (NoRouteToHostException e) {
                fail(Outcome.UNREACHABLE);
                return;
            } catch (ConnectException e) {
                String m = String.valueOf(e.getMessage());
                fail(m.contains("refused") ? Outcome.NON_PEER : Outcome.UNREACHABLE);
                return;
            } catch (SocketException e) {
                String m = String.valueOf(e.getMessage());
                fail(m.contains("unreachable") ? Outcome.UNREACHABLE : Outcome.NON_PEER);
                return;
            }
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            TcpConfig cfg = transport.config;
            int irdWord = ird | (cfg.p2p() ? Mpa.V2_PEER_TO_PEER : 0);
            int ordWord = ord | (cfg.p2p() ? Mpa.V2_WRITE_RTR : 0);
            int rev = cfg.revision();
            writeFully(ch, Mpa.encode(false, cfg.crc() ? Mpa.FLAG_CRC : 0, rev, irdWord, ordWord, privateData));
            Mpa.Frame reply;
            try {
                reply = Mpa.read(new DataInputStream(Channels.newInputStream(ch)), true,
                        Mpa.MAX_PRIVATE_DATA);
            } catch (Mpa.ProtocolException | EOFException e) {
                transport.trace(this, "no valid MPA Reply: " + e.getMessage());
                fail(Outcome.NON_PEER);
                return;
            }
            if (reply.rejected()) {
                fail(Outcome.PEER_REJECTED);
                return;
            }
            boolean rtr = rev == 2 && cfg.p2p() && reply.peerToPeer();
            if (reply.markers() || (rtr && (reply.ordWord() & Mpa.V2_WRITE_RTR) == 0)) {
                transport.trace(this, "Reply asks for markers or an RTR we did not offer");
                fail(Outcome.NON_PEER);
                return;
            }
            boolean crc = cfg.crc() || reply.crc();
            int ordLimit = reply.enhanced() ? Math.min(ord, reply.ird()) : ord;
            TcpConnection conn = new TcpConnection(transport, ch, crc, cfg.mulpduFor(ch), ird,
                    ordLimit, rtr, false, cfg.mulpdu() == 0);
            if (!finish()) {
                closeQuietly();
                return;
            }
            ChannelSink sink = handler.established(conn, reply.privateData());
            if (sink == null) {
                conn.reset(); // the EP gave up meanwhile: the acceptor sees the reset before any RTR
                return;
            }
            transport.connections.add(conn);
            conn.start(sink);
            transport.trace(conn, "established (active, crc " + crc + ", ord " + ordLimit + ", rtr " + rtr + ")");
        } catch (IOException | RuntimeException e) {
            if (pending()) {
                transport.trace(this, "connect failed: " + e);
            }
            fail(Outcome.NON_PEER);
        }
    }

    private enum Outcome { NON_PEER, UNREACHABLE, PEER_REJECTED }

    private void fail(Outcome o) {
        closeQuietly();
        if (!finish()) {
            return;
        }
        switch (o) {
            case NON_PEER -> handler.nonPeerRejected();
            case UNREACHABLE -> handler.unreachable();
            case PEER_REJECTED -> handler.peerRejected();
            default -> throw new IllegalStateException();
        }
    }

    private void closeQuietly() {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }

    static void writeFully(SocketChannel ch, java.nio.ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    @Override
    public String toString() {
        return "tcp connect :" + localPortQual() + " -> " + remote;
    }
}
