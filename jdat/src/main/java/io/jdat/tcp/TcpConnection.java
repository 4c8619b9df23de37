package io.jdat.tcp;

import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.WorkRequest;
import io.jdat.transport.ConnectionEnding;
import io.jdat.transport.ProgressThread;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One established iWARP stream: the socket, its {@link TcpReceiver} and {@link TcpTransmitter}, and how it
 * ends.
 *
 * <p>Endings: the peer's FIN at an FPDU boundary is {@code DISCONNECTED}; a reset, a stream cut inside an
 * FPDU, a Terminate either way, a failed send, a graceful close the peer does not finish within
 * {@code close_timeout} or a peer silent for {@code peer_timeout} is {@code BROKEN}. The core hears of it
 * once, from the IA's progress thread, never from under this connection's locks.
 *
 * <p>Closing. {@link #disconnectGracefully} (a graceful {@code dat_ep_disconnect} with nothing outstanding) sends what is
 * held, then the FIN, and keeps receiving: the peer's FIN, which it sends once it read everything before
 * ours, ends the connection as {@code DISCONNECTED}, so that the event means every byte reported complete
 * reached the peer. {@link #close} with {@link Channel#CLOSE_DISCONNECT} or {@link Channel#CLOSE_SILENT}
 * sends a FIN after what the socket holds and reads (dropping) until the peer's FIN, so that unread bytes do
 * not turn the close into a reset, for at most {@code close_timeout}; {@link Channel#CLOSE_BREAK} resets the
 * stream, unless a Terminate is on its way, which a FIN then follows.
 *
 * <p>Liveness ({@code peer_timeout}, off by default): every byte read from the peer, and every byte the
 * peer's TCP takes, is a sign of life; after a third of the bound without one the transmitter asks for one
 * with a zero-length RDMA Read ({@link TcpTransmitter#probe}); after the whole bound the connection breaks.
 * TCP keepalive cannot do this: a stopped process's kernel answers it.
 */
final class TcpConnection implements Channel, ProgressThread.Polled {

    final TcpTransport transport;
    final SocketChannel ch;
    final TcpReceiver rx;
    final TcpTransmitter tx;
    /** The RDMA Read queues both paths share (outbound Reads, inbound Read Requests to answer). */
    final ReadQueues reads;
    final int irdLimit;
    final int ordLimit;
    final boolean crc;
    final int mulpdu;
    /** Direct {@code recv}/{@code send} on the socket, or null: the paths then use the channel. */
    final DirectSocket direct;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    volatile ChannelSink sink;
    /** Registered with the progress thread's selector (set on that thread). */
    volatile SelectionKey key;
    private volatile int interest = SelectionKey.OP_READ;
    /**
     * How the stream ended, as the core will hear it. It only rises: after a reset, Linux reports the error to
     * one system call and end of stream to the next, so the receive path may see a clean end while the send
     * path sees the reset; the core is told once, on the progress thread, whatever the value is by then.
     */
    private final ConnectionEnding ending;
    volatile boolean closed;
    /** Closing gracefully: the progress thread reads and drops until the peer's FIN or this deadline. */
    volatile long lingerUntil;
    /** Draining ({@link #disconnectGracefully}): the peer must close its side by this deadline (0: not draining). */
    private volatile long drainUntil;
    /** How long a graceful close waits for the peer ({@code close_timeout}). */
    private final long closeTimeoutNanos;
    /** The liveness bound ({@code peer_timeout}), 0 for none. */
    private final long peerTimeoutNanos;
    /** When the peer last showed life (bytes read, bytes its TCP took); kept only with a liveness bound. */
    private volatile long lastSign;

    /** Wraps an established stream whose MULPDU stays {@code mulpdu} (tests). */
    TcpConnection(TcpTransport transport, SocketChannel ch, boolean crc, int mulpdu, int irdLimit, int ordLimit,
            boolean sendRtr, boolean holdFirstFpdu) throws IOException {
        this(transport, ch, crc, mulpdu, irdLimit, ordLimit, sendRtr, holdFirstFpdu, false);
    }

    /**
     * Wraps an established stream.
     *
     * @param mulpdu         the MULPDU at establishment
     * @param followMss      the MULPDU was not configured: the transmit path re-sizes it from the connection's
     *                       MSS as it grows ({@link TcpTransmitter}), when the socket's descriptor is known
     * @param sendRtr        the active side of a peer-to-peer connection: the RTR goes first
     * @param holdFirstFpdu  the passive side of a connection without peer-to-peer mode: send nothing until the
     *                       initiator's first FPDU arrived (RFC 5044 §7.1.2)
     */
    TcpConnection(TcpTransport transport, SocketChannel ch, boolean crc, int mulpdu, int irdLimit, int ordLimit,
            boolean sendRtr, boolean holdFirstFpdu, boolean followMss) throws IOException {
        this.transport = transport;
        this.ch = ch;
        this.crc = crc;
        this.mulpdu = mulpdu;
        this.irdLimit = irdLimit;
        this.ordLimit = ordLimit;
        this.local = (InetSocketAddress) ch.getLocalAddress();
        this.remote = (InetSocketAddress) ch.getRemoteAddress();
        this.closeTimeoutNanos = transport.config.closeTimeoutMillis() * 1_000_000L;
        this.peerTimeoutNanos = transport.config.peerTimeoutMillis() * 1_000_000L;
        this.ending = new ConnectionEnding(transport.progress::execute, () -> closed, true);
        this.lastSign = System.nanoTime();
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        this.direct = DirectSocket.of(ch);
        this.reads = new ReadQueues(irdLimit, ordLimit);
        this.tx = new TcpTransmitter(this, ch, crc, mulpdu, reads, sendRtr, holdFirstFpdu, followMss);
        this.rx = new TcpReceiver(this, ch, tx, reads, crc);
    }

    /**
     * Starts moving bytes for {@code s}: the RTR goes first, then the progress thread watches the socket.
     * The core may already have submitted requests (it reports ESTABLISHED before it returns the sink).
     */
    void start(ChannelSink s) {
        sink = s;
        boolean ended = ending.attach(s);
        tx.start();
        transport.progress.add(this);
        if (ended) {
            ending.deliver(s); // the stream ended between the handshake and now
        }
    }

    // ------------------------------------------------------------------ Channel

    @Override
    public long localPortQual() {
        return local.getPort();
    }

    @Override
    public void submit(WorkRequest wr) {
        tx.submit(wr);
    }

    @Override
    public void recvPosted() {
        if (rx.stalled()) {
            readInterest(true);
            // The waiting Send may be staged whole, so no read readiness will come: run a receive pass.
            transport.progress.execute(rx::poll);
        }
    }

    /**
     * A graceful disconnect with nothing outstanding: what is held goes out, then the FIN; the peer's FIN
     * ends the connection ({@code remoteDisconnected}), or {@code close_timeout} does ({@code broken}).
     */
    @Override
    public boolean disconnectGracefully() {
        if (closed) {
            return false;
        }
        if (drainUntil == 0) {
            drainUntil = (System.nanoTime() + closeTimeoutNanos) | 1;
            tx.finish();
            transport.progress.wake();
        }
        return true;
    }

    @Override
    public void close(int mode) {
        if (closed) {
            return;
        }
        closed = true;
        rx.stop();
        boolean terminating = tx.terminating();
        tx.close(mode != CLOSE_BREAK || terminating);
        if (mode == CLOSE_BREAK && !terminating) {
            reset();
        } else {
            finish();
        }
    }

    // ------------------------------------------------------------------ progress

    /** One receive pass and, if the socket backed up, one send pass (any thread). */
    @Override
    public boolean poll() {
        boolean p = rx.poll();
        if ((interest & SelectionKey.OP_WRITE) != 0) {
            tx.kick();
            p = true;
        }
        return p;
    }

    /** Turns read readiness on or off (off while a Send waits for a receive buffer). */
    void readInterest(boolean on) {
        setInterest(SelectionKey.OP_READ, on);
    }

    /** Turns write readiness on while the socket has not taken a whole batch. */
    void writeInterest(boolean on) {
        if (((interest & SelectionKey.OP_WRITE) != 0) != on) {
            setInterest(SelectionKey.OP_WRITE, on);
            if (on) {
                transport.progress.wake();
            }
        }
    }

    private synchronized void setInterest(int op, boolean on) {
        int ops = on ? interest | op : interest & ~op;
        interest = ops;
        SelectionKey k = key;
        if (k != null && k.isValid()) {
            try {
                k.interestOps(ops);
            } catch (java.nio.channels.CancelledKeyException e) {
                // closing
            }
        }
    }

    int interest() {
        return interest;
    }

    /** Bytes came from the peer: a sign of life (receive path). */
    void heard() {
        if (peerTimeoutNanos != 0) {
            lastSign = System.nanoTime();
        }
    }

    /** The peer's TCP took bytes: a sign of life too (transmit path). */
    void wrote() {
        if (peerTimeoutNanos != 0) {
            lastSign = System.nanoTime();
        }
    }

    /**
     * The deadlines of an open connection (progress thread, a few times a second): a drain the peer did not
     * finish in {@code close_timeout}, and the liveness bound: a probe after a third of it without a sign of
     * life, the end after all of it.
     */
    void checkDeadlines(long now) {
        if (closed) {
            return;
        }
        long d = drainUntil;
        if (d != 0 && now - d > 0) {
            notifyCore(true, "the peer did not close its side within close_timeout ("
                    + closeTimeoutNanos / 1_000_000 + " ms) of a graceful disconnect");
            return;
        }
        long bound = peerTimeoutNanos;
        if (bound != 0) {
            long quiet = now - lastSign;
            if (quiet > bound) {
                notifyCore(true, "no sign of life from the peer for " + quiet / 1_000_000 + " ms (peer_timeout "
                        + bound / 1_000_000 + " ms)");
            } else if (quiet > bound / 3) {
                tx.probe();
            }
        }
    }

    /** The receive path stopped: {@link TcpReceiver#EOF} or {@link TcpReceiver#BROKEN}. */
    void receiverEnded(int how, String reason) {
        if (how == TcpReceiver.EOF) {
            // An end of stream can be a reset in disguise: after a peer's RST, Linux hands the error
            // (ECONNRESET) to the first call on the socket and an end of stream to every later read. When a send
            // took the error, the transmit path reports the connection broken under its lock, so wait out a send
            // in flight first: a reset is then BROKEN (API.md §7, transport error), not the peer's graceful
            // DISCONNECTED, whichever path met it first.
            tx.awaitSendInFlight();
            notifyCore(false, reason);
        } else {
            notifyCore(true, reason);
        }
    }

    /** The transmit path failed (the socket is gone) or ended the stream (a Read's source was withdrawn). */
    void transmitterFailed(String reason) {
        notifyCore(true, reason);
    }

    /** A Terminate left: nothing follows it, so send the FIN now. */
    void terminateWritten() {
        try {
            ch.shutdownOutput();
        } catch (IOException e) {
            // the reset that follows says enough
        }
    }

    private void notifyCore(boolean broken, String reason) {
        if (closed) {
            return;
        }
        if (ending.end(broken)) { // with start(): exactly one of the two schedules the notification
            transport.trace(this, broken ? "broken: " + reason : "disconnected: " + reason);
        }
    }

    /** Graceful end: FIN now, and read until the peer's FIN (on the progress thread) before closing. */
    private void finish() {
        try {
            ch.shutdownOutput();
        } catch (IOException e) {
            abort();
            return;
        }
        lingerUntil = System.nanoTime() + closeTimeoutNanos;
        readInterest(true);
        transport.progress.wake();
    }

    /** Reads and drops what is left while closing; closes at the peer's FIN or the deadline. */
    void linger(ByteBuffer sinkBuffer) {
        try {
            for (;;) {
                sinkBuffer.clear();
                int n = ch.read(sinkBuffer);
                if (n < 0) {
                    abort();
                    return;
                }
                if (n == 0) {
                    break;
                }
            }
        } catch (IOException e) {
            abort();
            return;
        }
        if (System.nanoTime() - lingerUntil > 0) {
            reset();
        }
    }

    /** Ends the stream with a TCP reset. */
    void reset() {
        try {
            ch.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException | RuntimeException e) {
            // closing anyway
        }
        abort();
    }

    /**
     * Closes the socket and forgets the connection. Both paths stop first: after this no direct call uses
     * the descriptor, whose number the kernel may give to the next file opened.
     */
    void abort() {
        closed = true;
        rx.stop();
        tx.close(false);
        try {
            ch.close();
        } catch (IOException e) {
            // nothing to do
        }
        transport.progress.remove(this);
        transport.connections.remove(this);
    }

    /** True while the stream lingers in a graceful close ({@link #finish}). */
    boolean lingering() {
        return lingerUntil != 0;
    }

    /** The IA closes: reset without calling back into the core. */
    void abandon() {
        closed = true;
        rx.stop();
        tx.close(false);
        reset();
    }

    @Override
    public String toString() {
        return "tcp " + local + " <-> " + remote;
    }
}
