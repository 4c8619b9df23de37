package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventDispatcher;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;

/**
 * Test helper: a call running on its own (platform or virtual) thread, with its result or failure, plus
 * probes that tell when a thread is blocked in a wait and an assertion for {@link DatException}s.
 *
 * <p>Every join is bounded (5 s), so a lost wake-up fails the test instead of hanging the build.
 *
 * @param <T> the result type of the call
 */
public final class Background<T> {
    /** The bound on every wait for another thread. */
    public static final long LIMIT_MS = 5_000;

    private final Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile T result;
    private volatile Throwable failure;

    private Background(Callable<T> call, boolean virtual) {
        Runnable r = () -> {
            try {
                result = call.call();
            } catch (Throwable t) {
                failure = t;
            } finally {
                done.countDown();
            }
        };
        thread = virtual ? Thread.ofVirtual().name("bg-virtual").unstarted(r)
                : Thread.ofPlatform().name("bg-platform").daemon().unstarted(r);
        thread.start();
    }

    /** Runs {@code call} on a new platform thread. */
    public static <T> Background<T> start(Callable<T> call) {
        return new Background<>(call, false);
    }

    /** Runs {@code call} on a new virtual thread. */
    public static <T> Background<T> startVirtual(Callable<T> call) {
        return new Background<>(call, true);
    }

    /** The thread running the call. */
    public Thread thread() {
        return thread;
    }

    /** True once the call has returned or thrown. */
    public boolean isDone() {
        return done.getCount() == 0;
    }

    private void await() {
        try {
            if (!done.await(LIMIT_MS, TimeUnit.MILLISECONDS)) {
                fail("background call did not finish within " + LIMIT_MS + " ms (state " + thread.getState() + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
    }

    /** Waits (bounded) for the call and returns its result; fails if it threw. */
    public T join() {
        await();
        if (failure != null) {
            throw new AssertionError("background call failed: " + failure, failure);
        }
        return result;
    }

    /** Waits (bounded) for the call and returns the {@link DatException} it threw; fails otherwise. */
    public DatException joinFailure() {
        await();
        assertNotNull(failure, "background call returned " + result + " instead of failing");
        return assertInstanceOf(DatException.class, failure, "background call failed with " + failure);
    }

    /**
     * Asserts that the call is still running after {@code millis}: a deliberately short, bounded wait used
     * only to show that something did NOT happen (no wake-up).
     */
    public void assertStillRunning(long millis) {
        try {
            assertFalse(done.await(millis, TimeUnit.MILLISECONDS),
                    () -> "background call finished early: " + (failure != null ? failure : result));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
    }

    // ------------------------------------------------------------------ probes

    /**
     * Returns once another thread is blocked in {@code evd.waitFor}: probes with {@code dequeue}, which fails
     * with {@code DAT_INVALID_STATE} while a waiter owns the EVD (EVW-11). Call only while the EVD holds no
     * event (the probe would take it).
     */
    public static void awaitEvdWaiter(EventDispatcher evd) {
        DatEvent probe = new DatEvent();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LIMIT_MS);
        while (System.nanoTime() < end) {
            try {
                if (evd.dequeue(probe)) {
                    fail("probe dequeued an event: " + probe);
                }
            } catch (DatException e) {
                assertEquals(DatReturnType.INVALID_STATE, e.type(), e.getMessage());
                return;
            }
            Thread.yield();
        }
        fail("no thread started waiting on " + evd + " within " + LIMIT_MS + " ms");
    }

    /** Returns once {@code t} is parked (WAITING or TIMED_WAITING); fails after {@link #LIMIT_MS}. */
    public static void awaitParked(Thread t) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LIMIT_MS);
        while (System.nanoTime() < end) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                return;
            }
            assertTrue(s != Thread.State.TERMINATED, "thread ended instead of parking");
            Thread.yield();
        }
        fail("thread did not park within " + LIMIT_MS + " ms (state " + t.getState() + ")");
    }

    /**
     * Asserts that {@code call} throws a {@link DatException} of {@code type} and {@code subtype}.
     *
     * @return the exception
     */
    public static DatException fails(DatReturnType type, DatReturnSubtype subtype, Executable call) {
        DatException e = assertThrows(DatException.class, call);
        assertEquals(type, e.type(), e::getMessage);
        assertEquals(subtype, e.subtype(), e::getMessage);
        return e;
    }
}
