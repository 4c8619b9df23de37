package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The data path's direct {@code recv}/{@code send} ({@link DirectSocket}, issue 18): what they answer (bytes,
 * nothing now, end of stream, a reset as an {@link IOException}, no {@code SIGPIPE}), that a connection uses
 * them, and that no path uses the descriptor once the connection closed its socket (the kernel gives the
 * number to the next socket opened). And the consumer's poll, which reads the clock on one poll in
 * {@link TcpProgress#STAMP_EVERY}: the progress thread still stands aside while a consumer polls.
 */
class TcpDirectSocketTest {

    @Test
    @DisplayName("recv answers 0 when nothing is there, the bytes when they are, -1 at the peer's FIN")
    void receiveAnswersNothingBytesAndEnd() throws Exception {
        try (Pair p = new Pair()) {
            DirectSocket d = DirectSocket.of(p.mine());
            assumeTrue(d != null, "no native access here: the channel is used");
            MemorySegment buf = Arena.ofAuto().allocate(64);
            assertEquals(0, d.rx.receive(buf, 0, 64));
            p.peer().write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}));
            long n = awaitReceive(d, buf, 8, 64 - 8);
            assertEquals(5, n);
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, buf.asSlice(8, 5).toArray(ValueLayout.JAVA_BYTE));
            p.peer().shutdownOutput();
            assertEquals(-1, awaitReceive(d, buf, 0, 64));
        }
    }

    @Test
    @DisplayName("send writes what the socket takes; after the peer's reset it throws, and no SIGPIPE ends the JVM")
    void sendThenResetThrows() throws Exception {
        try (Pair p = new Pair()) {
            DirectSocket d = DirectSocket.of(p.mine());
            assumeTrue(d != null, "no native access here: the channel is used");
            MemorySegment buf = Arena.ofAuto().allocate(4096);
            buf.fill((byte) 7);
            assertEquals(16, d.tx.send(buf, 100, 16));
            ByteBuffer got = ByteBuffer.allocate(16);
            while (got.hasRemaining()) {
                p.peer().read(got);
            }
            p.peer().setOption(StandardSocketOptions.SO_LINGER, 0);
            p.peer().close(); // a reset
            IOException e = assertThrows(IOException.class, () -> {
                for (int i = 0; i < 1000; i++) {
                    d.tx.send(buf, 0, 4096);
                    Thread.sleep(1);
                }
            });
            assertTrue(e.getMessage().contains("reset") || e.getMessage().contains("pipe"), e.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> d.tx.send(buf, 4000, 100));
        }
    }

    @Test
    @DisplayName("a connection sends and receives through recv/send when native access is granted")
    void connectionUsesDirectCalls() throws Exception {
        assumeTrue(SocketFd.available(), "no native access here");
        try (TcpRig r = new TcpRig("direct")) {
            assertNotNull(r.conn.direct, "the connection's socket descriptor was not found");
        }
    }

    @Test
    @DisplayName("after abort neither path touches the descriptor, whose number the next socket takes")
    void abortStopsBothPathsBeforeTheNumberIsReused() throws Exception {
        assumeTrue(SocketFd.available(), "no native access here");
        try (TcpRig r = new TcpRig("direct")) {
            int fd = SocketFd.descriptor(r.mine);
            assumeTrue(fd >= 0);
            r.conn.abort();
            // NIO closes a channel registered with a selector at the selector's next select: wake it
            r.transport.progress.wake();
            Thread.sleep(50);
            // The next sockets: one of them most likely takes the number just freed.
            SocketChannel a = SocketChannel.open(r.server.getLocalAddress());
            SocketChannel b = r.server.accept();
            try {
                boolean aTook = SocketFd.descriptor(a) == fd;
                assumeTrue(aTook || SocketFd.descriptor(b) == fd, "the number was not reused");
                SocketChannel victim = aTook ? a : b;
                SocketChannel other = aTook ? b : a;
                other.write(ByteBuffer.wrap(new byte[16]));
                Thread.sleep(20);
                assertFalse(r.conn.rx.poll(), "the closed connection's receive path ran");
                r.conn.tx.probe(); // a liveness probe: an RDMA Read Request if the path still ran
                victim.configureBlocking(false);
                other.configureBlocking(false);
                ByteBuffer got = ByteBuffer.allocate(64);
                long deadline = System.nanoTime() + 2_000_000_000L;
                while (got.position() < 16 && System.nanoTime() < deadline) {
                    victim.read(got);
                }
                assertEquals(16, got.position(), "the new socket's bytes were taken by the closed connection");
                Thread.sleep(20);
                assertEquals(0, other.read(ByteBuffer.allocate(64)), "the closed connection wrote on the new socket");
            } finally {
                a.close();
                b.close();
            }
        }
    }

    @Test
    @DisplayName("a consumer's first poll after it parked stamps its poll; polling keeps the progress thread parked")
    void pollingStampsAndKeepsTheThreadParked() throws Exception {
        try (TcpRig r = new TcpRig("direct")) {
            TcpProgress progress = r.transport.progress;
            Thread.sleep(20); // registered; the thread blocks in its select
            progress.pollerIdle();
            assertEquals(0, progress.lastPollNanos());
            progress.poll();
            assertNotEquals(0, progress.lastPollNanos(), "the first poll after pollerIdle did not stamp");
            // A consumer polling for 300 ms: the stamp stays fresh, the thread parks in 2 ms slices (about 150
            // looks), it does not select on every pass.
            long before = progress.selects;
            long end = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < end) {
                progress.poll();
            }
            long selects = progress.selects - before;
            assertTrue(selects <= 2 * 300 / 2 + 20, "the progress thread selected " + selects
                    + " times in 300 ms while a consumer polled");
        }
    }

    /** Polls {@code d} until it answers something other than "nothing now" (2 s at most). */
    private static long awaitReceive(DirectSocket d, MemorySegment buf, long offset, long length) throws IOException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        long n;
        while ((n = d.rx.receive(buf, offset, length)) == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return n;
    }

    /** A connected pair of sockets over loopback, no connection on them: ours non-blocking, the peer's blocking. */
    private record Pair(ServerSocketChannel server, SocketChannel peer, SocketChannel mine) implements AutoCloseable {
        Pair() throws IOException {
            this(ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
        }

        private Pair(ServerSocketChannel s) throws IOException {
            this(s, SocketChannel.open(s.getLocalAddress()), s.accept());
            mine.configureBlocking(false);
        }

        @Override
        public void close() throws IOException {
            try (server; peer; mine) {
                // all three closed
            }
        }
    }
}
