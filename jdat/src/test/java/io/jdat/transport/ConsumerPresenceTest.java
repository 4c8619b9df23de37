package io.jdat.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A progress thread's idea of a polling consumer (issue 18 item 2, 1024 connections): a consumer that polled once
 * and then keeps dequeuing ({@link ProgressThread#eventDequeued}) without polling counts as present, so the thread
 * neither makes passes of its own nor blocks (for {@code shm}, blocking is the decision that makes every hot
 * connection cold); once the dequeues stop, the thread expects the consumer back for
 * {@link ProgressThread#CONSUMER_RETURN_MICROS} (one pass per slice, no block), then blocks; a consumer that
 * hands over ({@link ProgressThread#pollerIdle}) ends that at once. A thread with the poller grace and park
 * slice whose pass and block only count; counted, not timed (the waits bound a hang; a loaded machine only makes
 * the consumer look absent more often, which the bounds below allow for).
 */
class ConsumerPresenceTest {
    private static final long SLICE_NANOS = ProgressThread.POLLER_PARK_MILLIS * 1_000_000L;

    /** Records its passes and blocks; spins 0 ns (blocks whenever a pass finds nothing). */
    static final class Recorder extends ProgressThread<ProgressThread.Polled> {
        final AtomicInteger passes = new AtomicInteger();
        final AtomicInteger blocks = new AtomicInteger();
        final AtomicLong firstBlock = new AtomicLong();
        /**
         * Counting starts once the test's consumer has been present for a while (the thread's first loops, before
         * the consumer's first poll, find nobody and block: not what is checked).
         */
        volatile boolean armed;
        /** The passes made when {@link #blocked} was counted down. */
        volatile int passesAtBlock;
        volatile CountDownLatch blocked = new CountDownLatch(1);

        Recorder() {
            super("jdat-presence-test", 0, new ProgressThread.Polled[0]);
            start();
        }

        void polled() {
            polledAt(System.nanoTime());
        }

        /** The consumer polls, then dequeues for 20 ms (the thread's decisions from before are over), then arms. */
        void presentThenArm() {
            polled();
            long end = System.nanoTime() + 20_000_000L;
            while (System.nanoTime() < end) {
                eventDequeued();
                LockSupport.parkNanos(50_000);
            }
            armed = true;
        }

        @Override
        public boolean poll() {
            polled();
            return false;
        }

        @Override
        protected void periodic(long now) {
        }

        @Override
        protected void whilePolled() {
        }

        @Override
        protected boolean pass() {
            if (armed) {
                passes.incrementAndGet();
            }
            return false;
        }

        @Override
        protected void block() {
            if (!armed) {
                LockSupport.parkNanos(200_000);
                return;
            }
            blocks.incrementAndGet();
            firstBlock.compareAndSet(0, System.nanoTime());
            if (blocked.getCount() > 0) {
                passesAtBlock = passes.get();
                blocked.countDown();
            }
            LockSupport.parkNanos(200_000);
        }

        void close() {
            stop();
            join(1000);
        }
    }

    @Test
    @DisplayName("A consumer that polled once and then only dequeues for 200 ms (1000 times the grace) keeps the"
            + " thread from blocking; after its last dequeue the thread blocks only once the return window is over")
    void dequeuesCountAsPresence() throws Exception {
        Recorder r = new Recorder();
        try {
            r.presentThenArm();
            long end = System.nanoTime() + 200_000_000L;
            int calls = 0;
            while (System.nanoTime() < end) {
                r.eventDequeued(); // a busy consumer: dequeues and handles events, no poll
                calls++;
                LockSupport.parkNanos(50_000);
            }
            long last = System.nanoTime();
            r.eventDequeued();
            int passesWhileDequeuing = r.passes.get();
            assertEquals(0, r.blocks.get(), "blocks while the consumer dequeued (" + calls + " dequeues)");
            // one pass per slice at most, and only when the machine kept the consumer off a core for a slice
            assertTrue(passesWhileDequeuing <= 100, passesWhileDequeuing + " passes while the consumer dequeued");
            assertTrue(r.blocked.await(10, TimeUnit.SECONDS), "the thread took over and blocked");
            long after = r.firstBlock.get() - last;
            assertTrue(after >= ProgressThread.CONSUMER_RETURN_MICROS * 1000 - SLICE_NANOS,
                    "blocked " + after / 1000 + " µs after the last dequeue, inside the return window");
        } finally {
            r.close();
        }
    }

    @Test
    @DisplayName("A consumer that hands over (pollerIdle, it parks in a wait) lets the thread work and block at once,"
            + " without the return window; dequeues after a hand-over do not bring the presence back")
    void handOverEndsPresence() throws Exception {
        Recorder r = new Recorder();
        try {
            r.presentThenArm();
            for (int i = 0; i < 100; i++) {
                r.eventDequeued();
                LockSupport.parkNanos(50_000);
            }
            int blocksBefore = r.blocks.get();
            r.blocked = new CountDownLatch(1);
            int passesBefore = r.passes.get();
            r.pollerIdle();
            r.eventDequeued(); // the waiter's own dequeue after its wait is no poll
            assertTrue(r.blocked.await(10, TimeUnit.SECONDS), "the thread blocked after the hand-over");
            assertEquals(0, blocksBefore, "blocked while the consumer was present");
            // at once: one pass that finds nothing, then the block (the return window would make one pass per
            // 2 ms slice for 20 ms first)
            int passes = r.passesAtBlock - passesBefore;
            assertTrue(passes <= 2, passes + " passes between the hand-over and the block");
        } finally {
            r.close();
        }
    }
}
