package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link SocketFd}'s descriptor lookup costs a few probes per connection, not one per open descriptor (issue 18
 * item 2): it walked {@code /proc/self/fd} for every connection, so a burst of N connections cost O(N²) system
 * calls (the {@code tcp} set-up rate fell to 6-57 connections/s at 256-1024 connections). Counted with
 * {@link SocketFd#probes}, not timed.
 */
class SocketFdLookupTest {
    private static final int CONNECTIONS = 200;
    /** Probes allowed per lookup on average: the socket is a number or two from the last one found. */
    private static final int PROBES_PER_LOOKUP = 8;

    @Test
    @DisplayName("200 connections, each looked up as it comes (both ends): a few probes each, every MSS read")
    void burstLookupsProbeNearTheLastDescriptor() throws Exception {
        assertTrue(SocketFd.available(), "getsockopt is bound (the tests run with native access)");
        List<SocketChannel> open = new ArrayList<>();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), CONNECTIONS);
            lookUp(connect(server, open)); // primes the hint, wherever earlier tests left it
            long before = SocketFd.probes;
            int lookups = 0;
            for (int i = 0; i < CONNECTIONS; i++) {
                SocketChannel active = SocketChannel.open(server.getLocalAddress());
                open.add(active);
                SocketChannel passive = server.accept();
                open.add(passive);
                lookUp(active);
                lookUp(passive);
                lookups += 2;
            }
            long probes = SocketFd.probes - before;
            assertTrue(probes <= (long) PROBES_PER_LOOKUP * lookups, probes + " probes for " + lookups
                    + " lookups with " + open.size() + " sockets open (a walk of /proc/self/fd probes each)");
        } finally {
            for (SocketChannel c : open) {
                c.close();
            }
        }
    }

    @Test
    @DisplayName("with the hint forgotten the lookup walks /proc/self/fd and still finds the socket")
    void walkFindsTheSocketWithoutAHint() throws Exception {
        List<SocketChannel> open = new ArrayList<>();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel ch = connect(server, open);
            SocketFd.forgetHint();
            long before = SocketFd.probes;
            lookUp(ch);
            assertTrue(SocketFd.probes - before >= 1, "the walk probed");
        } finally {
            for (SocketChannel c : open) {
                c.close();
            }
        }
    }

    private static SocketChannel connect(ServerSocketChannel server, List<SocketChannel> open) throws Exception {
        SocketChannel ch = SocketChannel.open(server.getLocalAddress());
        open.add(ch);
        open.add(server.accept());
        return ch;
    }

    /** Reads {@code ch}'s TCP_MAXSEG through the lookup; it is found (a loopback MSS, never the estimate's -1). */
    private static void lookUp(SocketChannel ch) throws Exception {
        int mss = SocketFd.readMaxSegment((InetSocketAddress) ch.getLocalAddress(),
                (InetSocketAddress) ch.getRemoteAddress());
        assertTrue(mss > 0, "TCP_MAXSEG of " + ch + " read: " + mss);
        assertEquals(mss, SocketFd.maxSegment(ch), "the MULPDU is sized from it");
    }
}
