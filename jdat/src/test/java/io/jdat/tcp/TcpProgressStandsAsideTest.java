package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DtoCompletionStatus;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.RemoteRegion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The IA's progress thread stays out of the way of a consumer that is moving a connection's bytes (issue 18):
 * when it finds the socket ready but the receive (or send) lock held by another thread, which only a polling
 * consumer in a long pass does, it parks as if that consumer had just polled, instead of selecting again at
 * once on a socket that stays ready. Before, in a two-process 1 MiB RDMA Write stream, both processes'
 * progress threads spun on {@code epoll_wait} (37 000 calls in 4 s on the serving side) beside the busy
 * consumers, on a 2-core machine. Counted with {@link TcpProgress#selects}, not timed: a spinning thread
 * selects many thousand times in the window, a parked one about once per park slice (2 ms).
 */
class TcpProgressStandsAsideTest {
    /** The window the selects are counted in. */
    private static final long WINDOW_MILLIS = 300;
    /** Selects allowed in the window: one per 2 ms park slice, doubled, plus slack for the first look. */
    private static final long MAX_SELECTS = 2 * WINDOW_MILLIS / 2 + 20;

    @Test
    @DisplayName("a readable socket whose receive lock a consumer holds: the progress thread parks, it does not spin")
    void progressThreadParksWhileAConsumerReceives() throws Exception {
        try (Rig r = new Rig()) {
            long selects = r.selectsWhileHeld(r.conn.rx.lock, () -> r.peer.write(ByteBuffer.wrap(new byte[64])));
            assertTrue(selects <= MAX_SELECTS, "the progress thread selected " + selects + " times in "
                    + WINDOW_MILLIS + " ms while a consumer held the receive lock of a readable socket");
        }
    }

    @Test
    @DisplayName("a writable socket whose send lock a consumer holds: the progress thread parks, it does not spin")
    void progressThreadParksWhileAConsumerSends() throws Exception {
        try (Rig r = new Rig()) {
            long selects = r.selectsWhileHeld(r.conn.tx.lock, () -> r.conn.writeInterest(true));
            assertTrue(selects <= MAX_SELECTS, "the progress thread selected " + selects + " times in "
                    + WINDOW_MILLIS + " ms while a consumer held the send lock of a writable socket");
        }
    }

    /** An action that may throw. */
    private interface Action {
        void run() throws Exception;
    }

    /** A TCP connection wrapped as a {@link TcpConnection} of a transport (no IA, no MPA), and its raw peer. */
    private static final class Rig implements AutoCloseable {
        final TcpTransport transport = new TcpTransport("stands-aside", TcpConfig.parse("127.0.0.1"));
        final ServerSocketChannel server = ServerSocketChannel.open();
        final SocketChannel peer;
        final TcpConnection conn;

        Rig() throws Exception {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            peer = SocketChannel.open(server.getLocalAddress());
            SocketChannel mine = server.accept();
            conn = new TcpConnection(transport, mine, false, 1024, 4, 4, false, false);
            transport.connections.add(conn);
            conn.start(new IdleSink());
        }

        /**
         * Holds {@code lock} on another thread (a consumer in a pass), makes the socket ready with
         * {@code ready}, and counts the progress thread's selects over the window.
         */
        long selectsWhileHeld(ReentrantLock lock, Action ready) throws Exception {
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread consumer = Thread.ofPlatform().start(() -> {
                lock.lock();
                try {
                    held.countDown();
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    lock.unlock();
                }
            });
            held.await();
            Thread.sleep(20); // the connection is registered and the thread blocks in its select
            ready.run();
            Thread.sleep(20); // the thread saw the ready socket
            long before = transport.progress.selects;
            Thread.sleep(WINDOW_MILLIS);
            long selects = transport.progress.selects - before;
            release.countDown();
            consumer.join();
            return selects;
        }

        @Override
        public void close() throws Exception {
            transport.close();
            peer.close();
            server.close();
        }
    }

    /** A sink with no receive buffers and no memory: nothing in these tests reaches it but completions. */
    private static final class IdleSink implements ChannelSink {
        @Override
        public RecvBuffer takeRecv() {
            return null;
        }

        @Override
        public void completeRecv(RecvBuffer buffer, long length, boolean solicited) {
        }

        @Override
        public boolean isAccepting() {
            return true;
        }

        @Override
        public int resolveRemote(int rmrContext, long address, long length, int privilege, RemoteRegion out) {
            return RemoteRegion.CLOSED;
        }

        @Override
        public void requestCompleted(DtoCompletionStatus status, long length) {
        }

        @Override
        public void remoteDisconnected() {
        }

        @Override
        public void broken() {
        }
    }
}
