package io.jdat.tools.perf;

import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.session.CompletionText;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for one side of a perf run: busy-polls Event Dispatchers with {@link EventDispatcher#dequeue} (or,
 * in wait mode, waits in {@link EventDispatcher#waitFor}) into one reused {@link DatEvent} (no allocation),
 * spins on words of registered memory, and blocks on connection events. Every wait fails after the run's
 * timeout without progress, and stops at once when the other side failed. One instance per thread.
 *
 * <p>The busy polls look again at once, as perftest's, {@code ucx_perftest}'s and {@code fi_pingpong}'s do: no
 * {@link Thread#onSpinWait} between looks. A spin-wait hint delays the look after the event by up to its own
 * length (about 40 ns on a current x86 core; in the siw-vm guest under qemu's TCG, where {@code pause} leaves the
 * vCPU's translated code, about a µs: in an async-profiler CPU profile of a send ping-pong's client there, the
 * poll loop's own frame, hint included, had three times the samples of the dequeues it calls).
 */
final class Poller {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final int CHECK_EVERY = 1024;
    private static final int BLOCK_SLICE_MICROS = 100_000;
    /** A parking server's looks without a pause before it parks ({@link #serveUntil}). */
    static final int PARK_AFTER_LOOKS = 1_000;
    /** A parking server's pause between looks, µs. */
    static final int PARK_MICROS = 1_000;
    /** A parking server looks whether the other side failed every this many looks (about a tenth of a second). */
    private static final int PARKED_CHECK_EVERY = 100;

    private final DatEvent event = new DatEvent();
    private final Sync sync;
    private final long timeoutNanos;
    private final String side;
    private final boolean wait;

    /**
     * Creates a poller that busy-polls for completions.
     *
     * @param side         "client" or "server", for messages
     * @param sync         the run's control plane
     * @param timeoutNanos the longest wait without progress
     */
    Poller(String side, Sync sync, long timeoutNanos) {
        this(side, sync, timeoutNanos, false);
    }

    /**
     * Creates a poller.
     *
     * @param side         "client" or "server", for messages
     * @param sync         the run's control plane
     * @param timeoutNanos the longest wait without progress
     * @param wait         reap DTO completions with {@code dat_evd_wait} (spin, then park) instead of
     *                     busy-polling {@code dat_evd_dequeue}
     */
    Poller(String side, Sync sync, long timeoutNanos, boolean wait) {
        this.side = side;
        this.sync = sync;
        this.timeoutNanos = timeoutNanos;
        this.wait = wait;
    }

    /**
     * Busy-polls (or waits) for the next DTO completion and checks it: success, the expected cookie (completions
     * arrive in posting order) and length.
     *
     * @param evd    the EVD
     * @param cookie the expected user cookie
     * @param length the expected transferred length
     * @param what   the operation, for messages (e.g. "send/recv 64 B receive")
     * @return the event (valid until the next call)
     * @throws ToolFailure on a wrong completion or a timeout
     */
    DatEvent dto(EventDispatcher evd, long cookie, long length, String what) {
        DatEvent e = event;
        if (wait) {
            if (!evd.waitFor(BLOCK_SLICE_MICROS, 1, e)) {
                long start = System.nanoTime();
                do {
                    sync.checkAborted();
                    if (System.nanoTime() - start > timeoutNanos) {
                        throw timeout(what + " #" + cookie);
                    }
                } while (!evd.waitFor(BLOCK_SLICE_MICROS, 1, e));
            }
        } else if (!evd.dequeue(e)) {
            long spins = 0;
            long start = 0;
            do {
                if (++spins % CHECK_EVERY == 0) {
                    start = idle(start, what, cookie);
                }
            } while (!evd.dequeue(e));
        }
        if (e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT || e.status() != DtoCompletionStatus.SUCCESS
                || e.userCookie() != cookie || e.transferredLength() != length) {
            throw badCompletion(e, cookie, length, what);
        }
        return e;
    }

    /**
     * Spins until the 8-byte word at {@code offset} equals {@code expected} (read with acquire semantics,
     * so the bytes an RDMA Write placed before it are visible too).
     *
     * @param seg      the memory
     * @param offset   the word's offset (8-byte aligned)
     * @param expected the awaited value
     * @param what     the operation, for messages
     * @throws ToolFailure on a timeout
     */
    void awaitWord(MemorySegment seg, long offset, long expected, String what) {
        if ((long) LONG.getAcquire(seg, offset) == expected) {
            return;
        }
        long spins = 0;
        long start = 0;
        do {
            if (++spins % CHECK_EVERY == 0) {
                start = idle(start, what, expected);
            }
        } while ((long) LONG.getAcquire(seg, offset) != expected);
    }

    /**
     * Like {@link #awaitWord(MemorySegment, long, long, String)}, dequeuing {@code quiet} between looks: an EVD on
     * which nothing is expected (the side's writes are {@code SUPPRESS}ed), polled because polling an EVD is
     * what lets a software transport place the peer's RDMA Write on this thread (DAT has no other progress
     * call) instead of waking its progress thread. An event there is a failed write.
     *
     * @throws ToolFailure on an event on {@code quiet}, or a timeout
     */
    void awaitWord(MemorySegment seg, long offset, long expected, String what, EventDispatcher quiet) {
        long spins = 0;
        long start = 0;
        while ((long) LONG.getAcquire(seg, offset) != expected) {
            if (quiet.dequeue(event)) {
                throw new ToolFailure(side + ": " + what + ": unexpected " + event.eventNumber() + " "
                        + CompletionText.statusName(event.status()) + " (cookie " + event.userCookie() + ")");
            }
            if (++spins % CHECK_EVERY == 0) {
                start = idle(start, what, expected);
            }
        }
    }

    /**
     * Drives progress on {@code quiet} for a while after a post failed for want of a request slot: {@code
     * CHECK_EVERY} dequeues (an event there is a failure), then the run's abort and timeout checks.
     *
     * @param quiet the side's request EVD, on which nothing is expected (its requests are {@code SUPPRESS}ed)
     * @param start the wait's start from the last call (0 at the first)
     * @param what  the operation, for messages
     * @param id    the request's number, for messages
     * @return the wait's start, for the next call
     * @throws ToolFailure on an event on {@code quiet}, or when no slot came free within the timeout
     */
    long awaitRequestSlot(EventDispatcher quiet, long start, String what, long id) {
        for (int i = 0; i < CHECK_EVERY; i++) {
            if (quiet.dequeue(event)) {
                throw new ToolFailure(side + ": " + what + ": unexpected " + event.eventNumber() + " "
                        + CompletionText.statusName(event.status()) + " (cookie " + event.userCookie() + ")");
            }
        }
        return idle(start, what + " (every request slot taken)", id);
    }

    /**
     * The serving side's wait for the client's end of a round: like
     * {@link #awaitWord(MemorySegment, long, long, String, EventDispatcher)}, dequeuing {@code quiet} between looks,
     * but with no time limit of its own, like a phase barrier: a round may take longer than the timeout while the
     * client is making progress; the client's waits are bounded, and its failure aborts this wait.
     *
     * <p>With {@code park} the server leaves its CPU to the others: after {@value #PARK_AFTER_LOOKS} looks it parks
     * {@value #PARK_MICROS} µs between looks ({@code jdat perf --server-idle park}), as a passive target does
     * nothing while one-sided operations reach it (perftest's servers of one-sided tests block in a socket read
     * without {@code -R}; with {@code -R} they busy-poll the rdma_cm control connection's CQ). On a two-core
     * machine with a software RDMA device (rxe, siw), a third busy thread beside the client's poll and the device's
     * kernel work costs a stream about a third of its rate (measured with {@code ib_write_bw} and a shell busy loop
     * in the siw-vm guest: docs/verbs-performance.md).
     *
     * @param seg      the memory
     * @param offset   the word's offset (8-byte aligned)
     * @param expected the awaited value
     * @param what     the operation, for messages
     * @param quiet    an EVD on which nothing is expected (an event there is a failure)
     * @param park     park between looks once the first ones found nothing
     * @throws ToolFailure on an event on {@code quiet}
     * @throws io.jdat.tools.cli.Aborted when the other side failed
     */
    void serveUntil(MemorySegment seg, long offset, long expected, String what, EventDispatcher quiet, boolean park) {
        long looks = 0;
        while ((long) LONG.getAcquire(seg, offset) != expected) {
            if (quiet.dequeue(event)) {
                throw new ToolFailure(side + ": " + what + ": unexpected " + event.eventNumber() + " "
                        + CompletionText.statusName(event.status()) + " (cookie " + event.userCookie() + ")");
            }
            looks++;
            if (park && looks > PARK_AFTER_LOOKS) {
                LockSupport.parkNanos(PARK_MICROS * 1000L);
                if (looks % PARKED_CHECK_EVERY == 0) {
                    sync.checkAborted();
                }
            } else if (looks % CHECK_EVERY == 0) {
                Thread.yield();
                sync.checkAborted();
            }
        }
    }

    /**
     * Spins until the 8-byte word at {@code offset} is at least {@code min} (a counter the peer RDMA-writes).
     *
     * @param seg    the memory
     * @param offset the word's offset (8-byte aligned)
     * @param min    the awaited minimum
     * @param what   the operation, for messages
     * @return the word's value
     * @throws ToolFailure on a timeout
     */
    long awaitAtLeast(MemorySegment seg, long offset, long min, String what) {
        long v;
        long spins = 0;
        long start = 0;
        while ((v = readAcquire(seg, offset)) < min) {
            if (++spins % CHECK_EVERY == 0) {
                start = idle(start, what, min);
            }
        }
        return v;
    }

    /**
     * Reads a word of memory that the peer may RDMA-write, with acquire semantics.
     *
     * @param seg    the memory
     * @param offset the word's offset (8-byte aligned)
     * @return its value
     */
    static long readAcquire(MemorySegment seg, long offset) {
        return (long) LONG.getAcquire(seg, offset);
    }

    /**
     * Blocks (no spinning) for the next event of any kind, e.g. a connection event.
     *
     * @param evd  the EVD
     * @param what what is awaited, for the timeout message
     * @return the event (valid until the next call)
     * @throws ToolFailure on a timeout
     */
    DatEvent next(EventDispatcher evd, String what) {
        long start = System.nanoTime();
        while (!evd.waitFor(BLOCK_SLICE_MICROS, 1, event)) {
            sync.checkAborted();
            if (System.nanoTime() - start > timeoutNanos) {
                throw timeout(what);
            }
        }
        return event;
    }

    /**
     * Called every {@value #CHECK_EVERY} spins of a wait: yields the core (the peer may need it on a loaded
     * machine), checks for abort and timeout; returns the wait's start.
     */
    private long idle(long start, String what, long id) {
        Thread.yield();
        sync.checkAborted();
        long now = System.nanoTime();
        if (start == 0) {
            return now;
        }
        if (now - start > timeoutNanos) {
            throw timeout(what + " #" + id);
        }
        return start;
    }

    private ToolFailure timeout(String what) {
        return new ToolFailure(side + ": " + what + ": nothing arrived within " + timeoutNanos / 1_000_000_000L
                + " s");
    }

    private ToolFailure badCompletion(DatEvent e, long cookie, long length, String what) {
        if (e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT) {
            return new ToolFailure(side + ": " + what + " #" + cookie + ": unexpected " + e.eventNumber());
        }
        if (e.status() == DtoCompletionStatus.ERR_FLUSHED) {
            return new ToolFailure(side + ": " + what + " #" + e.userCookie() + " completed with "
                    + CompletionText.statusName(e.status()) + CompletionText.BROKE, true);
        }
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            return new ToolFailure(side + ": " + what + " #" + e.userCookie() + " completed with "
                    + CompletionText.statusName(e.status()));
        }
        if (e.userCookie() != cookie) {
            return new ToolFailure(side + ": " + what + ": completion #" + e.userCookie() + " arrived, expected #"
                    + cookie);
        }
        return new ToolFailure(side + ": " + what + " #" + cookie + ": " + e.transferredLength()
                + " bytes transferred, expected " + length);
    }
}
