package io.jdat.tools.perf;

import io.jdat.tools.cli.Aborted;
import io.jdat.tools.cli.ToolFailure;
import java.net.SocketAddress;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The control plane between the server and the client side of one run: phase barriers (some carry the
 * client's decision, such as the size of the next round), the server's address, and the first failure,
 * which aborts the other side's barriers and busy-wait loops. Everything the test data needs (region
 * addresses, payloads) goes through DAT. In one JVM the barriers are a
 * {@link Phaser}; in two processes ({@code jdat perf --server} / {@code --client}) a {@link Barrier} over a
 * second DAT connection ({@link PerfControl}), and a failure aborts only this process's side.
 */
final class Sync {
    private static final long SLICE_NANOS = 100_000_000L;

    private final Phaser phaser = new Phaser(2);
    /** The numbers {@link #decide} passes to {@link #learn} in one JVM, by phase parity. */
    private final java.util.concurrent.atomic.AtomicLongArray shared =
            new java.util.concurrent.atomic.AtomicLongArray(2);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean aborted;
    private volatile SocketAddress serverAddress;
    /** The server's address must go to the peer process with the next barrier. */
    private volatile boolean publishAddress;
    private final Barrier barrier;
    /** The server process's CPU time in nanoseconds, as of the last {@link #decide} (two processes), or -1. */
    private volatile long peerCpuNanos = -1;

    /** A barrier with the peer process: returns once the peer reached the same phase. */
    interface Barrier {
        /**
         * Meets the peer, exchanging a note.
         *
         * @param phase the phase name, for messages
         * @param note  what this side tells the peer (may be empty)
         * @return the peer's note (may be empty)
         */
        String await(String phase, String note);
    }

    /** Creates the control plane of a server and a client in this JVM. */
    Sync() {
        this(null);
    }

    /**
     * Creates the control plane of one side, meeting the peer process through {@code barrier}.
     *
     * @param barrier the barrier, or {@code null} for two threads of this JVM
     */
    Sync(Barrier barrier) {
        this.barrier = barrier;
    }

    /**
     * Waits until the other side reaches the same phase. There is no time limit here: a side that makes no
     * progress fails its own bounded waits, which aborts this one.
     *
     * @param phase the phase name, for messages
     * @throws Aborted when the other side failed
     */
    void await(String phase) {
        checkAborted();
        if (barrier != null) {
            // An address that only names something on this host (a Unix domain socket path: shm) travels with
            // the barrier; an IP transport's server is reached at the address the client was given.
            String note = publishAddress && serverAddress instanceof java.net.UnixDomainSocketAddress u
                    ? u.getPath().toString() : "";
            String theirs = barrier.await(phase, note);
            publishAddress = false;
            if (!theirs.isEmpty()) {
                serverAddress = java.net.UnixDomainSocketAddress.of(theirs);
            }
            return;
        }
        meet(phase);
    }

    /**
     * The client's side of a barrier that carries a number to the server (the size of the next round).
     *
     * @param phase the phase name, for messages
     * @param value what the server's {@link #learn} returns
     * @return {@code value}
     * @throws Aborted when the other side failed
     */
    long decide(String phase, long value) {
        checkAborted();
        if (barrier != null) {
            String theirs = barrier.await(phase, Long.toString(value));
            peerCpuNanos = parseCpu(theirs);
            return value;
        }
        // The phase cannot advance before this side arrives; the server reads the slot before it can reach the
        // barrier after next, which is when this slot is written again.
        shared.set(phaser.getPhase() & 1, value);
        meet(phase);
        return value;
    }

    /**
     * The server's side of a {@link #decide} barrier.
     *
     * @param phase the phase name, for messages
     * @return the client's number
     * @throws Aborted when the other side failed
     */
    long learn(String phase) {
        checkAborted();
        if (barrier != null) {
            // tells the client this process's CPU time, for the CPU per message (CpuMeter)
            String theirs = barrier.await(phase, Long.toString(ProcessCpu.nanos()));
            try {
                return Long.parseLong(theirs);
            } catch (NumberFormatException e) {
                throw new ToolFailure("server: phase '" + phase + "': the client sent '" + theirs + "' instead of a "
                        + "count: do both sides run the same jdat version?");
            }
        }
        return shared.get(meet(phase) & 1);
    }

    /** The server's CPU time from a {@link #learn} note, or -1 (none: an older server, or unknown). */
    private static long parseCpu(String note) {
        try {
            return note.isEmpty() ? -1 : Long.parseLong(note);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The server process's CPU time as it told it at the last {@link #decide} (two processes only).
     *
     * @return nanoseconds, or -1 when unknown or in one JVM
     */
    long peerCpuNanos() {
        return peerCpuNanos;
    }

    /** Whether the server is another process (its CPU time is not in this process's). */
    boolean twoProcess() {
        return barrier != null;
    }

    /** Arrives at the phaser and waits for the other side; returns the arrival phase. */
    private int meet(String phase) {
        int p = phaser.arrive();
        while (true) {
            try {
                if (phaser.awaitAdvanceInterruptibly(p, SLICE_NANOS, TimeUnit.NANOSECONDS) < 0) {
                    checkAborted();
                    throw new ToolFailure("run terminated in phase '" + phase + "'");
                }
                return p;
            } catch (TimeoutException e) {
                checkAborted();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ToolFailure("interrupted in phase '" + phase + "'");
            }
        }
    }

    /**
     * Records a failure and aborts the other side. The first failure wins, except that a real cause replaces
     * a {@linkplain ToolFailure#isConsequence() consequence} (a flushed completion) seen first.
     *
     * @param t the failure
     */
    void fail(Throwable t) {
        failure.accumulateAndGet(t, (cur, nu) -> cur == null || consequence(cur) && !(nu instanceof Aborted)
                && !consequence(nu) ? nu : cur);
        aborted = true;
        phaser.forceTermination();
    }

    private static boolean consequence(Throwable t) {
        return t instanceof ToolFailure f && f.isConsequence();
    }

    /** The first failure, or {@code null}. */
    Throwable failure() {
        return failure.get();
    }

    /**
     * Throws {@link Aborted} when the other side failed; cheap enough for busy-wait loops.
     */
    void checkAborted() {
        if (aborted) {
            throw new Aborted();
        }
    }

    /** Publishes the server's IA address (before the "listening" barrier). */
    void serverAddress(SocketAddress a) {
        serverAddress = a;
        publishAddress = true;
    }

    /** The server's address as the client was given it (two processes: not published back). */
    void knownServerAddress(SocketAddress a) {
        serverAddress = a;
    }

    /** The server's IA address (after the "listening" barrier). */
    SocketAddress serverAddress() {
        return serverAddress;
    }
}
