package io.jdat.tcp;

import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.WorkRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One established iWARP stream: the socket, its {@link TcpReceiver} and {@link TcpTransmitter}, and how it
 * ends.
 *
 * <p>Endings: the peer's FIN at an FPDU boundary is {@code DISCONNECTED}; a reset, a stream cut inside an
 * FPDU, a Terminate either way or a failed send is {@code BROKEN}. The core hears of it once, from the IA's
 * progress thread, never from under this connection's locks. {@link #close} with
 * {@link Channel#CLOSE_DISCONNECT} sends a FIN and reads until the peer's FIN (so that unread bytes do not
 * turn the close into a reset); {@link Channel#CLOSE_BREAK} resets the stream, unless a Terminate is on its
 * way, which a FIN then follows.
 */
final class TcpConnection implements Channel {
    /** How long a closing stream waits for the peer's FIN before it is reset. */
    static final long LINGER_NANOS = 2_000_000_000L;

    final TcpTransport transport;
    final SocketChannel ch;
    final TcpReceiver rx;
    final TcpTransmitter tx;
    final int irdLimit;
    final int ordLimit;
    final boolean crc;
    final int mulpdu;
    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    volatile ChannelSink sink;
    /** Registered with the progress thread's selector (set on that thread). */
    volatile SelectionKey key;
    private volatile int interest = SelectionKey.OP_READ;
    /**
     * How the stream ended, as the core will hear it: {@link #NOT_ENDED}, {@link #ENDED_DISCONNECTED} or
     * {@link #ENDED_BROKEN}. It only rises: after a reset, Linux reports the error to one system call and end
     * of stream to the next, so the receive path may see a clean end while the send path sees the reset; the
     * core is told once, on the progress thread, whatever the value is by then.
     */
    private final AtomicInteger ending = new AtomicInteger();
    private static final int NOT_ENDED = 0;
    private static final int ENDED_DISCONNECTED = 1;
    private static final int ENDED_BROKEN = 2;
    volatile boolean closed;
    /** Closing gracefully: the progress thread reads and drops until the peer's FIN or this deadline. */
    volatile long lingerUntil;

    /**
     * Wraps an established stream.
     *
     * @param sendRtr        the active side of a peer-to-peer connection: the RTR goes first
     * @param holdFirstFpdu  the passive side of a connection without peer-to-peer mode: send nothing until the
     *                       initiator's first FPDU arrived (RFC 5044 §7.1.2)
     */
    TcpConnection(TcpTransport transport, SocketChannel ch, boolean crc, int mulpdu, int irdLimit, int ordLimit,
            boolean sendRtr, boolean holdFirstFpdu) throws IOException {
        this.transport = transport;
        this.ch = ch;
        this.crc = crc;
        this.mulpdu = mulpdu;
        this.irdLimit = irdLimit;
        this.ordLimit = ordLimit;
        this.local = (InetSocketAddress) ch.getLocalAddress();
        this.remote = (InetSocketAddress) ch.getRemoteAddress();
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        this.tx = new TcpTransmitter(this, ch, crc, mulpdu, irdLimit, ordLimit, sendRtr, holdFirstFpdu);
        this.rx = new TcpReceiver(this, ch, tx, crc);
    }

    /**
     * Starts moving bytes for {@code s}: the RTR goes first, then the progress thread watches the socket.
     * The core may already have submitted requests (it reports ESTABLISHED before it returns the sink).
     */
    void start(ChannelSink s) {
        boolean ended;
        synchronized (this) {
            sink = s;
            ended = ending.get() != NOT_ENDED;
        }
        tx.start();
        transport.progress.add(this);
        if (ended) {
            deliver(s); // the stream ended between the handshake and now
        }
    }

    // ------------------------------------------------------------------ Channel

    @Override
    public SocketAddress localAddress() {
        return transport.address();
    }

    @Override
    public long localPortQual() {
        return local.getPort();
    }

    @Override
    public SocketAddress remoteAddress() {
        return new InetSocketAddress(remote.getAddress(), 0);
    }

    @Override
    public long remotePortQual() {
        return remote.getPort();
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
    boolean poll() {
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

    /** The receive path stopped: {@link TcpReceiver#EOF} or {@link TcpReceiver#BROKEN}. */
    void receiverEnded(int how, String reason) {
        if (how == TcpReceiver.EOF) {
            notifyCore(false, reason);
        } else {
            notifyCore(true, reason);
        }
    }

    /** The transmit path failed (the socket is gone). */
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
        int want = broken ? ENDED_BROKEN : ENDED_DISCONNECTED;
        ChannelSink s;
        synchronized (this) { // with start(): exactly one of the two schedules the notification
            int was = ending.get();
            if (was >= want) {
                return;
            }
            ending.set(want);
            s = was == NOT_ENDED ? sink : null; // already scheduled: the task reads the raised value
        }
        transport.trace(this, broken ? "broken: " + reason : "disconnected: " + reason);
        if (s != null) {
            deliver(s); // with no sink yet, start() delivers it
        }
    }

    private void deliver(ChannelSink s) {
        transport.progress.execute(() -> {
            if (!closed) {
                if (ending.get() == ENDED_BROKEN) {
                    s.broken();
                } else {
                    s.remoteDisconnected();
                }
            }
        });
    }

    /** Graceful end: FIN now, and read until the peer's FIN (on the progress thread) before closing. */
    private void finish() {
        try {
            ch.shutdownOutput();
        } catch (IOException e) {
            abort();
            return;
        }
        lingerUntil = System.nanoTime() + LINGER_NANOS;
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

    /** Closes the socket and forgets the connection. */
    void abort() {
        closed = true;
        try {
            ch.close();
        } catch (IOException e) {
            // nothing to do
        }
        transport.progress.remove(this);
        transport.connections.remove(this);
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
