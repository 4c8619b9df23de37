package io.jdat.tcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A one-connection TCP proxy on loopback for the {@code tcp} tests that look at the byte streams: it records
 * both directions, can read the client's stream at a trickle (a slow reader: the client's socket buffers fill
 * and stay full), passes a half-close on as a half-close, and notes how each side's stream ended: {@code FIN}
 * (end of stream) or {@code RST} (connection reset).
 */
final class RecordingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    /** Client-to-server bytes per read and the pause after each read; 0: as fast as the client sends. */
    private final int trickleBytes;
    private final long tricklePauseMillis;
    private final ByteArrayOutputStream up = new ByteArrayOutputStream();
    private final ByteArrayOutputStream down = new ByteArrayOutputStream();
    private final CountDownLatch ended = new CountDownLatch(2);
    private final Thread acceptor;
    private volatile Socket client;
    private volatile Socket server;
    private volatile String clientEnd;
    private volatile String serverEnd;

    /** A proxy to {@code target} that reads the client's bytes {@code trickleBytes} at a time (0: at once). */
    RecordingProxy(InetSocketAddress target, int trickleBytes, long tricklePauseMillis) throws IOException {
        this.listener = new ServerSocket();
        if (trickleBytes > 0) {
            listener.setReceiveBufferSize(16 * 1024); // a small window: the client's bytes wait in its own socket
        }
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        this.target = target;
        this.trickleBytes = trickleBytes;
        this.tricklePauseMillis = tricklePauseMillis;
        this.acceptor = Thread.ofPlatform().daemon().name("recording-proxy").start(this::run);
    }

    int port() {
        return listener.getLocalPort();
    }

    /** The proxy's client-side socket (its MSS is the client connection's). */
    Socket clientLeg() {
        return client;
    }

    /** The proxy's server-side socket. */
    Socket serverLeg() {
        return server;
    }

    private void run() {
        try {
            Socket c = listener.accept();
            c.setTcpNoDelay(true);
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(target, 5000);
            client = c;
            server = s;
            Thread.ofPlatform().daemon().name("proxy-up").start(() -> pump(c, s, up, true));
            Thread.ofPlatform().daemon().name("proxy-down").start(() -> pump(s, c, down, false));
        } catch (IOException e) {
            ended.countDown();
            ended.countDown();
        }
    }

    private void pump(Socket from, Socket to, ByteArrayOutputStream record, boolean fromClient) {
        String end;
        byte[] buf = new byte[64 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (;;) {
                int max = fromClient && trickleBytes > 0 ? trickleBytes : buf.length;
                int n = in.read(buf, 0, max);
                if (n < 0) {
                    end = "FIN";
                    to.shutdownOutput();
                    break;
                }
                synchronized (record) {
                    record.write(buf, 0, n);
                }
                out.write(buf, 0, n);
                if (fromClient && trickleBytes > 0) {
                    Thread.sleep(tricklePauseMillis);
                }
            }
        } catch (SocketException e) {
            end = "RST (" + e.getMessage() + ")";
            try { // pass the reset on
                to.setSoLinger(true, 0);
                to.close();
            } catch (IOException ignored) {
                // closed already
            }
        } catch (IOException | InterruptedException e) {
            end = "error " + e;
        }
        if (fromClient) {
            clientEnd = end;
        } else {
            serverEnd = end;
        }
        ended.countDown();
    }

    /** Waits for both streams to end. */
    boolean awaitEnd(long millis) throws InterruptedException {
        return ended.await(millis, TimeUnit.MILLISECONDS);
    }

    /** How the client's stream ended: {@code FIN}, {@code RST (...)}, or null while it runs. */
    String clientEnd() {
        return clientEnd;
    }

    /** How the server's stream ended. */
    String serverEnd() {
        return serverEnd;
    }

    /** Bytes the client sent so far. */
    byte[] upstream() {
        synchronized (up) {
            return up.toByteArray();
        }
    }

    /** Bytes the server sent so far. */
    byte[] downstream() {
        synchronized (down) {
            return down.toByteArray();
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        Socket c = client;
        Socket s = server;
        if (c != null) {
            c.close();
        }
        if (s != null) {
            s.close();
        }
    }
}
