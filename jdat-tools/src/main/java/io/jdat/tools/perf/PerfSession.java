package io.jdat.tools.perf;

import io.jdat.Endpoint;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.session.CompletionText;
import java.lang.foreign.MemorySegment;

/**
 * What a {@link Measurement} works with on one side: the side's DAT objects and memory, the peer's region
 * (learnt from the connection private data), the poller and the control plane.
 */
final class PerfSession {
    final PerfConfig config;
    final PerfSide side;
    final BufferLayout layout;
    final Sync sync;
    final Poller poller;
    private PeerInfo peer;
    /** End-of-round marks used so far (both sides count them in step). */
    private long marks;
    /** The client's end-mark source word and the server's end-mark word, once connected. */
    private LmrTriplet[] markSource;
    private RmrTriplet markTarget;

    /**
     * Creates the session of one side.
     *
     * @param config the run settings
     * @param side   the side's DAT objects
     * @param layout the region layout (both sides)
     * @param sync   the control plane
     */
    PerfSession(PerfConfig config, PerfSide side, BufferLayout layout, Sync sync) {
        this.config = config;
        this.side = side;
        this.layout = layout;
        this.sync = sync;
        this.poller = new Poller(side.role, sync, config.timeoutNanos(), config.waitMode());
    }

    /** Sets the peer's region once connected. */
    void peer(PeerInfo p) {
        peer = p;
        markSource = iov(layout.small(CONTROL_SLOT) + MARK_SOURCE, 8);
        markTarget = remote(layout.small(CONTROL_SLOT) + MARK_TARGET, 8);
    }

    /** The small slot of the control words: the end mark, its source, the stream fence. */
    static final int CONTROL_SLOT = 4;
    /** Offsets in the control slot. */
    private static final long MARK_TARGET = 0;
    private static final long MARK_SOURCE = 64;
    /** The word an RDMA Write stream's closing RDMA Read reads (server) into (client). */
    static final long FENCE = 128;

    /** The offset of the server's end-of-round word in this side's region. */
    long endMarkOffset() {
        return layout.small(CONTROL_SLOT) + MARK_TARGET;
    }

    /**
     * The next end-of-round mark. Both sides call it once per round of the measurements that use marks, so
     * they agree on its value without exchanging it.
     *
     * @return a value the server's end word has not held yet
     */
    long nextMark() {
        return ++marks;
    }

    /**
     * The client's end of a round the server serves by polling: RDMA-writes {@code mark} into the server's end
     * word (suppressed; it is placed after every transfer posted before it on this connection).
     *
     * @param mark the value of {@link #nextMark()}
     */
    void sendEndMark(long mark) {
        side.mem.set(java.lang.foreign.ValueLayout.JAVA_LONG, layout.small(CONTROL_SLOT) + MARK_SOURCE, mark);
        side.ep.postRdmaWrite(1, markSource, mark, markTarget, io.jdat.CompletionFlags.SUPPRESS);
    }

    /**
     * The server's side of a round it serves, polling as {@code ucx_perftest}'s and {@code fi_pingpong}'s responders
     * do: dequeues its request EVD (where nothing is expected: that is what lets a software transport place the
     * client's transfers on this thread) until the client's end mark {@code mark} arrives, however long the round
     * takes (the client's own waits are bounded; its failure aborts this one). With {@code --server-idle park}
     * ({@link PerfConfig#serverParks()}) it parks between its looks: a passive target.
     *
     * @param mark the value of {@link #nextMark()}
     * @param what the measurement, for messages
     */
    void serveUntilMark(long mark, String what) {
        poller.serveUntil(side.mem, endMarkOffset(), mark, what + " (serving)", side.reqEvd, config.serverParks());
    }

    /** This side's registered memory. */
    MemorySegment mem() {
        return side.mem;
    }

    /** This side's Endpoint. */
    Endpoint ep() {
        return side.ep;
    }

    /** A one-segment local I/O vector for {@code length} bytes at {@code offset} of this side's region. */
    LmrTriplet[] iov(long offset, long length) {
        return new LmrTriplet[] {side.lmr.triplet(offset, length)};
    }

    /** The peer's {@code length} bytes at {@code offset} of its region, as an RDMA target or source. */
    RmrTriplet remote(long offset, long length) {
        if (offset < 0 || offset + length > peer.length()) {
            throw new ToolFailure(side.role + ": peer region too small for " + length + " bytes at " + offset);
        }
        return new RmrTriplet(peer.rmrContext(), peer.address() + offset, length);
    }

    /**
     * Checks that nothing of an earlier measurement is still posted: a stale receive would swallow the next
     * measurement's messages.
     *
     * @param next the measurement about to start
     * @throws ToolFailure when a receive or request is still outstanding
     */
    void checkIdle(String next) {
        Endpoint.Status st = side.ep.getStatus();
        // A suppressed request completes unseen; a transport whose requests complete when the peer has handled
        // them (shm) may still count the last one outstanding, and on verbs unsignalled work requests at the tail
        // complete with the idle marker the IA's progress thread posts after two idle looks (seconds in an
        // emulated guest): drive progress (dequeue; no event is expected) for up to 10 s (at most --timeout)
        // before calling the EP busy. An idle EP returns at once.
        long deadline = System.nanoTime() + Math.max(1_000_000_000L, Math.min(config.timeoutNanos(), 10_000_000_000L));
        io.jdat.DatEvent e = new io.jdat.DatEvent();
        while ((!st.recvIdle() || !st.requestIdle()) && System.nanoTime() < deadline) {
            if (side.reqEvd.dequeue(e) || side.recvEvd.dequeue(e)) {
                throw new ToolFailure(side.role + ": before " + next + ": unexpected " + e.eventNumber() + " "
                        + CompletionText.statusName(e.status()) + " (cookie " + e.userCookie() + ")");
            }
            Thread.onSpinWait();
            st = side.ep.getStatus();
        }
        if (!st.recvIdle() || !st.requestIdle()) {
            throw new ToolFailure(side.role + ": before " + next + ": Endpoint not idle (" + st + ")");
        }
    }
}
