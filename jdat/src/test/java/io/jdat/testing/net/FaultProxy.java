package io.jdat.testing.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 that forwards every accepted connection to one target and injects faults into the
 * forwarded byte streams, per {@link Direction}.
 *
 * <p>Each accepted connection gets its own leg to the target and two daemon platform threads, one per
 * direction. Both legs use TCP_NODELAY. End of stream is passed on as a half-close (FIN); an I/O error on
 * either leg aborts both legs with a RST. {@link #close()} closes the listener and resets every connection,
 * and never blocks for more than about two seconds.
 *
 * <p><b>Fault scope.</b> Faults are settings of the proxy, not of one connection: each applies to every
 * connection, current and future, in the given direction, from the next byte forwarded after the call (a
 * write already under way completes). Delivery modes ({@link #passThrough}, {@link #byteByByte},
 * {@link #coalesce}) and stalls last until changed; {@link #resetAfter} and {@link #corruptAt} fire once and
 * then disarm. All methods are thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
    /** The longest {@link #close()} waits for the proxy's threads to finish. */
    private static final long CLOSE_WAIT_MS = 2_000;
    /** The longest the proxy waits to connect to the target before resetting the client. */
    private static final int CONNECT_TIMEOUT_MS = 2_000;
    /** The silence that ends a {@link #coalesce(Direction, int)} gathering. */
    private static final Duration DEFAULT_PAUSE = Duration.ofMillis(2);

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final Faults faults = new Faults();
    private final Set<ProxiedConnection> connections = ConcurrentHashMap.newKeySet();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();

    private FaultProxy(InetSocketAddress target, ServerSocket listener) {
        this.target = target;
        this.listener = listener;
    }

    /**
     * Starts a proxy listening on an ephemeral port of 127.0.0.1 that forwards to {@code target}.
     *
     * @param target where accepted connections are forwarded; it need not be listening yet
     * @return the running proxy
     * @throws IOException if the listening socket cannot be opened
     */
    public static FaultProxy start(InetSocketAddress target) throws IOException {
        Objects.requireNonNull(target, "target");
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        FaultProxy proxy = new FaultProxy(target, listener);
        proxy.startThread("fault-proxy-accept-" + listener.getLocalPort(), proxy::acceptLoop);
        return proxy;
    }

    /** The port the proxy listens on (on 127.0.0.1). */
    public int port() {
        return listener.getLocalPort();
    }

    /** The address clients connect to: 127.0.0.1 and {@link #port()}. */
    public InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    /** The address connections are forwarded to. */
    public InetSocketAddress target() {
        return target;
    }

    // ------------------------------------------------------------------ delivery modes

    /** Forwards bytes in direction {@code d} as they are read, one write per read (the default). */
    public void passThrough(Direction d) {
        faults.setPlan(Objects.requireNonNull(d), Faults.Plan.PASS);
    }

    /**
     * Delivers bytes in direction {@code d} one byte per write, so the receiver sees (up to its own read
     * timing) one-byte TCP segments: a test of reassembly under arbitrary segmentation.
     */
    public void byteByByte(Direction d) {
        faults.setPlan(Objects.requireNonNull(d), new Faults.Plan(Faults.Delivery.BYTE_BY_BYTE, 0, 0));
    }

    /**
     * Gathers bytes in direction {@code d} into one write of up to {@code maxBytes}: after the first byte
     * arrives, keeps reading until {@code maxBytes} are held, the source ends, or it stays silent for about
     * 2 ms. Same as {@code coalesce(d, maxBytes, Duration.ofMillis(2))}.
     *
     * @param maxBytes the largest write, at least 1
     */
    public void coalesce(Direction d, int maxBytes) {
        coalesce(d, maxBytes, DEFAULT_PAUSE);
    }

    /**
     * Like {@link #coalesce(Direction, int)} with an explicit source silence {@code pause} (millisecond
     * resolution, at least 1 ms) that ends a gathering; a long pause makes coalescing independent of the
     * sender's scheduling.
     *
     * @param maxBytes the largest write, at least 1
     * @param pause the silence that ends a gathering early
     */
    public void coalesce(Direction d, int maxBytes, Duration pause) {
        Objects.requireNonNull(d);
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be at least 1: " + maxBytes);
        }
        if (pause.isNegative() || pause.isZero()) {
            throw new IllegalArgumentException("pause must be positive: " + pause);
        }
        int pauseMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, pause.toMillis()));
        faults.setPlan(d, new Faults.Plan(Faults.Delivery.COALESCE, maxBytes, pauseMillis));
    }

    // ------------------------------------------------------------------ stalls

    /**
     * Stops forwarding in direction {@code d}: the proxy reads nothing more from the source (so the sender's
     * TCP window eventually fills) and writes nothing more to the destination, until {@link #resume}. Bytes
     * already read are held, not lost. A write already under way when this is called completes.
     */
    public void stall(Direction d) {
        faults.setStalled(Objects.requireNonNull(d), true);
    }

    /** Resumes forwarding in direction {@code d} after {@link #stall}; no-op if not stalled. */
    public void resume(Direction d) {
        faults.setStalled(Objects.requireNonNull(d), false);
    }

    // ------------------------------------------------------------------ one-shot faults

    /**
     * After exactly {@code bytes} more bytes have been forwarded in direction {@code d} (counted from this
     * call, over whichever connections forward them), aborts the connection that forwarded the last of them:
     * both legs are closed with SO_LINGER 0, so both peers get a TCP RST. Bytes read past the budget are
     * dropped. With {@code bytes == 0}, the next connection to read a byte in {@code d} is reset without
     * forwarding it. Fires once; a later call replaces an armed reset.
     *
     * <p>On Linux a peer still reads the bytes forwarded to it before the RST, then gets ECONNRESET
     * ("Connection reset"); a reply it had not sent back yet is lost. Other TCP stacks may discard unread
     * data on a RST.
     */
    public void resetAfter(Direction d, long bytes) {
        Objects.requireNonNull(d);
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        faults.armReset(d, bytes);
    }

    /**
     * XORs {@code xorMask} into the byte at {@code offset} of direction {@code d}'s stream, the offset counted
     * from the first byte of that direction of a connection. Applies to the first connection that forwards
     * that offset after this call, then disarms; connections already past it are unaffected. Several
     * corruptions may be armed at once.
     *
     * @param xorMask the bits to flip, not 0
     */
    public void corruptAt(Direction d, long offset, byte xorMask) {
        Objects.requireNonNull(d);
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative: " + offset);
        }
        if (xorMask == 0) {
            throw new IllegalArgumentException("xorMask 0 would flip no bit");
        }
        faults.armCorruption(d, offset, xorMask);
    }

    /**
     * While {@code refuse} is true, each newly accepted connection is closed at once with a RST (it still
     * counts in {@link #connectionsAccepted()}); the target is not contacted. Existing connections are
     * unaffected.
     */
    public void refuseNew(boolean refuse) {
        faults.setRefusing(refuse);
    }

    /**
     * Clears every fault: both directions back to {@link #passThrough}, resumed, armed resets and corruptions
     * disarmed, and new connections no longer refused. Counters are kept.
     */
    public void clearFaults() {
        faults.clear();
    }

    // ------------------------------------------------------------------ counters

    /** Bytes written to destinations in direction {@code d}, over all connections, since the start. */
    public long bytesForwarded(Direction d) {
        return faults.forwarded(Objects.requireNonNull(d));
    }

    /**
     * Write calls made to destinations in direction {@code d}, over all connections, since the start: one per
     * byte when byte-by-byte, one per gathered chunk when coalescing.
     */
    public long writeCount(Direction d) {
        return faults.writes(Objects.requireNonNull(d));
    }

    /** Client connections accepted since the start, including refused ones. */
    public int connectionsAccepted() {
        return faults.accepted();
    }

    /**
     * Waits until at least {@code n} client connections have been accepted (the target leg of the last one
     * may still be connecting).
     *
     * @return true if reached, false on timeout
     */
    public boolean awaitConnections(int n, Duration timeout) throws InterruptedException {
        return faults.awaitAccepted(n, timeout);
    }

    /**
     * Waits until at least {@code bytes} bytes in total have been forwarded in direction {@code d}.
     *
     * @return true if reached, false on timeout
     */
    public boolean awaitForwarded(Direction d, long bytes, Duration timeout) throws InterruptedException {
        return faults.awaitForwarded(Objects.requireNonNull(d), bytes, timeout);
    }

    // ------------------------------------------------------------------ life cycle

    /**
     * Stops listening, resets every open connection (RST on both legs) and waits (at most about two seconds)
     * for the proxy's threads to end. Idempotent.
     */
    @Override
    public void close() {
        if (!faults.markClosed()) {
            return;
        }
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        connections.forEach(ProxiedConnection::abort);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                t.join(Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "FaultProxy[127.0.0.1:" + port() + " -> " + target + "]";
    }

    private void acceptLoop() {
        while (!faults.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                continue; // closed (the loop ends) or a transient accept failure
            }
            if (faults.acceptOne()) {
                ProxiedConnection.close(client, true);
                continue;
            }
            int id = connectionIds.incrementAndGet();
            startThread("fault-proxy-" + port() + "-conn" + id + "-c2s", () -> forward(client, id));
        }
    }

    /** Connects the target leg for {@code client}, then pumps client to server on this thread. */
    private void forward(Socket client, int id) {
        Socket server = new Socket();
        try {
            client.setTcpNoDelay(true);
            server.setTcpNoDelay(true);
            server.connect(target, CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            ProxiedConnection.close(client, true);
            ProxiedConnection.close(server, true);
            return;
        }
        ProxiedConnection connection = new ProxiedConnection(client, server, faults, connections::remove);
        connections.add(connection);
        if (faults.isClosed()) { // close() may have swept the set before the add
            connection.abort();
            return;
        }
        startThread("fault-proxy-" + port() + "-conn" + id + "-s2c",
                new Pump(connection, Direction.SERVER_TO_CLIENT, faults));
        new Pump(connection, Direction.CLIENT_TO_SERVER, faults).run();
    }

    private void startThread(String name, Runnable body) {
        Thread t = Thread.ofPlatform().name(name).daemon().unstarted(() -> {
            try {
                body.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        });
        threads.add(t);
        t.start();
    }
}
