package io.jdat.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The verbs IA's poll lock (no device): exclusion between threads, reentrancy (the progress thread dispatches an
 * rdma_cm event under it and the handler takes it again), and that a holder's writes are seen by the next one.
 */
class PollLockTest {
    @Test
    @DisplayName("another thread's tryLock fails while the lock is held, and succeeds once it is freed")
    void excludesOtherThreads() throws Exception {
        PollLock l = new PollLock();
        assertTrue(l.tryLock());
        assertTrue(l.isHeldByCurrentThread());
        assertFalse(CompletableFuture.supplyAsync(l::tryLock).get(10, TimeUnit.SECONDS), "held by the test thread");
        l.unlock();
        assertFalse(l.isHeldByCurrentThread());
        assertTrue(CompletableFuture.supplyAsync(() -> {
            boolean got = l.tryLock();
            if (got) {
                l.unlock();
            }
            return got;
        }).get(10, TimeUnit.SECONDS), "free again");
    }

    @Test
    @DisplayName("reentrant: the owner takes it again, and only its last unlock frees it")
    void reentrant() throws Exception {
        PollLock l = new PollLock();
        l.lock();
        assertTrue(l.tryLock());
        l.lock();
        l.unlock();
        l.unlock();
        assertFalse(CompletableFuture.supplyAsync(l::tryLock).get(10, TimeUnit.SECONDS), "one hold left");
        l.unlock();
        assertThrows(IllegalMonitorStateException.class, l::unlock, "no hold left");
    }

    @Test
    @DisplayName("unlock by a thread that does not hold it is refused and leaves the holder's lock alone")
    void unlockByOtherThreadRefused() throws Exception {
        PollLock l = new PollLock();
        l.lock();
        Throwable t = CompletableFuture.supplyAsync(() -> {
            try {
                l.unlock();
                return null;
            } catch (IllegalMonitorStateException e) {
                return e;
            }
        }).get(10, TimeUnit.SECONDS);
        assertTrue(t instanceof IllegalMonitorStateException);
        assertTrue(l.isHeldByCurrentThread());
        l.unlock();
    }

    @Test
    @DisplayName("lock() waits while a busy poller keeps taking the lock with tryLock, and gets it")
    void lockWaitsForABusyPoller() throws Exception {
        PollLock l = new PollLock();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch polling = new CountDownLatch(1);
        Thread poller = Thread.ofPlatform().start(() -> {
            polling.countDown();
            while (!stop.get()) {
                if (l.tryLock()) {
                    l.unlock();
                }
            }
        });
        try {
            assertTrue(polling.await(10, TimeUnit.SECONDS));
            for (int i = 0; i < 100; i++) {
                l.lock();
                assertTrue(l.isHeldByCurrentThread());
                l.unlock();
            }
        } finally {
            stop.set(true);
            poller.join(10_000);
        }
    }

    /** Plain counters, written only under the lock. */
    private long a;
    private long b;

    @Test
    @DisplayName("mutual exclusion and visibility: two threads increment plain fields under the lock, none is lost")
    void excludesAndPublishes() throws Exception {
        PollLock l = new PollLock();
        int n = 200_000;
        Runnable body = () -> {
            for (int i = 0; i < n; i++) {
                if ((i & 1) == 0) {
                    l.lock();
                } else {
                    while (!l.tryLock()) {
                        Thread.onSpinWait();
                    }
                }
                try {
                    a++;
                    b = a;
                } finally {
                    l.unlock();
                }
            }
        };
        Thread t1 = Thread.ofPlatform().start(body);
        Thread t2 = Thread.ofPlatform().start(body);
        t1.join(60_000);
        t2.join(60_000);
        l.lock();
        try {
            assertEquals(2L * n, a);
            assertEquals(a, b);
        } finally {
            l.unlock();
        }
    }
}
