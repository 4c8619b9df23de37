package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.spi.PassiveHandler;
import io.jdat.spi.Transport;
import io.jdat.transport.StreamRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A passive handshake that ends in an {@link Error} (a class that cannot be loaded while the fds are exhausted:
 * {@code ListenerFailureTest}) drops its request at once: the requester reads the closed stream within a
 * second instead of waiting out its connect timeout, the request leaves the transport's incoming set, and no
 * later answer takes effect.
 */
class StreamRequestErrorTest {
    /** A request whose answers only count themselves. */
    private static final class Request extends StreamRequest<TcpTransport, Transport.Listener> {
        int answers;

        Request(TcpTransport transport, SocketChannel ch) {
            super(transport, null, ch);
        }

        @Override
        public void accept(PassiveHandler passive, byte[] privateData, int rdmaReadIn, int rdmaReadOut) {
            if (claimAnswer()) {
                answers++;
            }
        }

        @Override
        public void reject() {
            accept(null, null, 0, 0);
        }

        @Override
        public void refuse() {
            accept(null, null, 0, 0);
        }
    }

    @Test
    @DisplayName("an Error in the passive handshake closes the requester's stream at once; later answers do nothing")
    void errorDropsTheRequestAtOnce() throws Exception {
        TcpTransport transport = new TcpTransport("stream-request-error", TcpConfig.parse("127.0.0.1"));
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (Socket requester = new Socket()) {
                requester.connect(server.getLocalAddress());
                requester.setSoTimeout(5_000);
                Request r = new Request(transport, server.accept());
                r.launch("error-handshake", () -> {
                    throw new NoClassDefFoundError("io/jdat/NotLoadable (Too many open files)");
                });
                long start = System.nanoTime();
                assertEquals(-1, requester.getInputStream().read(), "the requester reads the closed stream");
                assertTrue(System.nanoTime() - start < 2_000_000_000L, "at once, not after a timeout");
                long deadline = System.nanoTime() + 2_000_000_000L;
                while (!transport.incoming.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertFalse(transport.incoming.contains(r), "the request left the incoming set");
                r.accept(null, null, 0, 0);
                assertEquals(0, r.answers, "the dropped request takes no later answer");
            }
        } finally {
            transport.close();
        }
    }
}
