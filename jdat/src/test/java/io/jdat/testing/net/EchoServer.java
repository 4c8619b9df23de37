package io.jdat.testing.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test server for {@link FaultProxyTest}: on 127.0.0.1, echoes every byte of every connection back until the
 * client half-closes, then half-closes too. One daemon thread per connection.
 */
final class EchoServer implements AutoCloseable {
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    EchoServer() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().name("echo-accept").daemon().start(this::acceptLoop);
    }

    /** Where the server listens. */
    InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket s = listener.accept();
                open.add(s);
                Thread.ofPlatform().name("echo-conn").daemon().start(() -> echo(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void echo(Socket s) {
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
            }
            s.shutdownOutput();
        } catch (IOException e) {
            // peer reset or server closed: the connection is over
        } finally {
            open.remove(s);
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
