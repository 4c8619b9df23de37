package io.jdat.shm;

import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The progress thread's decision to leave a connection (cold) or to sleep never waits for a lock of the connection
 * that another thread holds (issue 18): queued on a polling consumer's receive lock, it made every unlock of that
 * consumer's poll a futex wake-up, and the two-process ping-pong fell into a ~50 µs mode. Here the test thread
 * plays the consumer that holds the lock (the receive lock of a poll, the transmit lock of a post) for longer than
 * the progress thread needs to want the connection cold and to sleep; the lock must see no waiter. Released, the
 * thread must still go to sleep (the board's sleeping word), and a Send must still reach a consumer that waits in
 * {@code dat_evd_wait} (no lost wake-up). Counted, not timed: the waits only bound a hang.
 */
@ExtendWith(ShmTesting.KeepConnectionFiles.class)
class ShmSleepDecisionTest {
    private static final long HOLD_NANOS = 300_000_000L;

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    @Test
    @DisplayName("SND-01, EVW-05: while another thread holds a connection's receive or transmit lock, the progress"
            + " thread does not queue on it; released, the thread sleeps and a Send still wakes a waiting consumer")
    void theProgressThreadDoesNotQueueOnAHeldLock() throws Exception {
        List<ShmConnection> started = new CopyOnWriteArrayList<>();
        ShmConnection.startHook = started::add;
        try (Pair p = new Pair(ShmTesting.SHM, null, 64).connect(); Arena arena = Arena.ofShared()) {
            ShmConnection server = passiveOf(started);
            ShmConnection.startHook = null;
            MemorySegment sleeping = ShmTesting.serverSleepingWord(p, arena);
            long cookie = 1;
            for (ReentrantLock lock : List.of(server.rxLock, server.txLock)) {
                String name = lock == server.rxLock ? "receive lock" : "transmit lock";
                cookie = exchange(p, cookie);
                p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), cookie, CompletionFlags.DEFAULT);
                int queued = 0;
                lock.lock();
                try {
                    // A Send wakes the server's sleeping progress thread (its connection went cold after the
                    // exchange) and makes the connection hot; then, past its spin and the passes without traffic,
                    // the thread wants the connection cold and to sleep, while this thread holds the lock.
                    p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), cookie, CompletionFlags.DEFAULT);
                    long until = System.nanoTime() + HOLD_NANOS;
                    while (System.nanoTime() < until) {
                        if (lock.hasQueuedThreads()) {
                            queued++;
                        }
                        Thread.sleep(1);
                    }
                } finally {
                    lock.unlock();
                }
                assertEquals(0, queued, "looks (one a millisecond) that found a thread queued on the held " + name);
                p.server.expectDto(p.server.recvEvd, cookie);
                p.client.expectDto(p.client.reqEvd, cookie);
                cookie++;
                ShmTesting.awaitWord(sleeping, 1, "the server's progress thread sleeps once the " + name + " is free");
                cookie = exchange(p, cookie); // both consumers wait in dat_evd_wait: the progress threads deliver
            }
        } finally {
            ShmConnection.startHook = null;
        }
    }

    /**
     * The passive connection the hook saw. The passive side delivers ESTABLISHED and then starts its connection
     * ({@code ShmPassive}), so the start may come a moment after {@code connect()} returned on both sides.
     */
    private static ShmConnection passiveOf(List<ShmConnection> started) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            for (ShmConnection c : started) {
                if (!c.activeSide) {
                    return c;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no passive connection started within 10 s of ESTABLISHED");
            }
            Thread.sleep(1);
        }
    }

    /** One Send from the client, received by a server consumer that waits ({@code dat_evd_wait}). */
    private static long exchange(Pair p, long cookie) {
        p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), cookie, CompletionFlags.DEFAULT);
        p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), cookie, CompletionFlags.DEFAULT);
        p.server.expectDto(p.server.recvEvd, cookie);
        p.client.expectDto(p.client.reqEvd, cookie);
        return cookie + 1;
    }
}
