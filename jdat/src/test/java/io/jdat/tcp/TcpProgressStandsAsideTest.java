package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
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

    /** A {@link TcpRig} that counts the progress thread's selects while a consumer holds a lock. */
    private static final class Rig implements AutoCloseable {
        final TcpRig rig = new TcpRig("stands-aside");
        final TcpTransport transport = rig.transport;
        final SocketChannel peer = rig.peer;
        final TcpConnection conn = rig.conn;

        Rig() throws Exception {
            // the fields above
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
            rig.close();
        }
    }
}
