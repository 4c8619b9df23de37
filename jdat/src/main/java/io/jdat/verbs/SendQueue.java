package io.jdat.verbs;

import io.jdat.DtoCompletionStatus;
import java.util.Arrays;

/**
 * The bookkeeping of one QP's send queue: which work request each slot holds, which of them the device signals,
 * and how the device's completions become the core's in-order request completions ({@code requestCompleted}).
 * Allocates nothing after construction.
 *
 * <p>Slots {@code [done, posted)} are at the device; sequence number {@code n} is slot {@code n % depth} and the
 * work request's {@code wr_id}. A DAT request takes one slot, or several when an RDMA Read or Write is split
 * into parts (only its last completes it in DAT).
 *
 * <p><b>Selective signalling.</b> A request the consumer posted with {@code DAT_COMPLETION_SUPPRESS_FLAG} may go
 * to the device unsignalled ({@link #signals}): it makes no work completion when it succeeds. A send queue
 * completes in order, so the completion of a later work request (its {@code wr_id} beyond {@link #done}) means
 * every unsignalled one before it succeeded: their DAT requests complete then, freeing their
 * {@code max_request_dtos} slots (EPM-23). A failed or flushed work request makes a completion whether it was
 * signalled or not (InfiniBand and iWARP alike), so an error is reported at its own request. Two rules keep an
 * unsignalled request from holding its slot: every {@link #every}-th request in a row is signalled, and a queue
 * that stays idle with unsignalled requests at its tail gets a signalled zero-length RDMA Write behind them
 * ({@link #markerDue}: the IA's progress thread posts it). RDMA Reads, binds and split requests are always
 * signalled: siw completes a Send or Write ahead of an earlier Read that waits for its response, which an
 * unsignalled Read could not tell apart from its success.
 *
 * <p>Threads: {@link #signals}, {@link #slot}, {@link #posted(long)} and {@link #markerDue} run under the
 * connection's send lock; {@link #complete} under the IA's poll lock. {@link #posted} is volatile and written
 * after the slots: a completion's reader loads it before it reads a slot (the range check), which orders the
 * slot writes before the reads.
 */
final class SendQueue {
    /** {@link #slot} length of a part that is not the last of its request: it completes nothing in DAT. */
    static final long PART = -1;
    /** {@link #slot} length of an idle tail's zero-length RDMA Write: it completes nothing in DAT. */
    static final long MARKER = -2;
    private static final int NOT_EARLY = -1;

    /** Where the completions go: the connection's core sink. */
    interface Completions {
        /**
         * The oldest outstanding DAT request completed ({@code ChannelSink.requestCompleted}).
         *
         * @param status its DAT status
         * @param length bytes transferred
         */
        void requestCompleted(DtoCompletionStatus status, long length);

        /** A failed request, or a completion that fits no slot: the connection breaks. */
        void broken();

        /** {@return whether completions still count (the connection is up)} */
        boolean up();
    }

    /** Device slots. */
    final int depth;
    /** Requests in a row that may go unsignalled before one is signalled; at most 1: every request is signalled. */
    final int every;
    private final long[] lengths;
    private final boolean[] signalled;
    /**
     * Per slot: the status of a completion that came before those of earlier slots ({@link #NOT_EARLY}: none). siw
     * completes a Send or RDMA Write when it is sent, ahead of an earlier RDMA Read that still waits for its
     * response; DAT reports a request EVD's completions in posting order, so it is held until the slots before it
     * completed.
     */
    private final int[] earlyStatus;
    private volatile long posted;
    /** Poll lock: the oldest slot still at the device. */
    private long done;
    /** Poll lock: the newest slot with an early completion (-1: none). */
    private long earlyMax = -1;
    /** Poll lock: a leading part failed and was reported: the rest of that request's completions report nothing. */
    private boolean partFailed;
    /** Send lock: the sequence number after the newest signalled work request. */
    private long signalledEnd;
    /** Send lock: {@link #posted} at the last idle look that found an unsignalled tail (-1: none). */
    private long idleLook = -1;
    /** A marker is at the device (written under the send lock, cleared under the poll lock). */
    private volatile boolean markerOut;

    /**
     * @param depth device send-queue slots
     * @param every requests in a row that may go unsignalled (at most 1: none); a positive value needs one slot
     *              beyond the core's requests for the idle marker
     */
    SendQueue(int depth, int every) {
        this.depth = depth;
        this.every = every;
        lengths = new long[depth];
        signalled = new boolean[depth];
        earlyStatus = new int[depth];
        Arrays.fill(earlyStatus, NOT_EARLY);
    }

    /** {@return the sequence number of the next work request} */
    long posted() {
        return posted;
    }

    /** {@return work requests at the device, as the poll side last saw them (for messages)} */
    long outstanding() {
        return posted - done;
    }

    /**
     * Whether the work request {@code n} is signalled (send lock).
     *
     * @param n            its sequence number
     * @param suppressible a Send or RDMA Write of one part whose DAT request suppresses its successful completion
     * @return whether to post it {@code IBV_SEND_SIGNALED}
     */
    boolean signals(long n, boolean suppressible) {
        return !suppressible || every <= 1 || n - signalledEnd + 1 >= every;
    }

    /**
     * Records work request {@code n} before it is posted (send lock).
     *
     * @param n      its sequence number
     * @param length the DAT length its completion reports, or {@link #PART} or {@link #MARKER}
     * @param signal whether it is posted signalled
     */
    void slot(long n, long length, boolean signal) {
        int s = (int) (n % depth);
        lengths[s] = length;
        signalled[s] = signal;
        if (signal) {
            signalledEnd = n + 1;
        }
    }

    /**
     * The slots up to {@code next} are filled: they go to the device now (send lock). Volatile: orders the slot
     * writes before a completion's reads.
     *
     * @param next the sequence number after the last one posted
     */
    void posted(long next) {
        posted = next;
    }

    /**
     * An idle look of the progress thread (send lock): whether the queue ends in unsignalled work requests and
     * did so at the previous look too, with nothing posted in between and no marker at the device. Then the caller
     * posts the marker (a signalled zero-length RDMA Write, {@link #MARKER}) at {@link #posted()}.
     *
     * @return whether to post the marker now
     */
    boolean markerDue() {
        long p = posted;
        if (every <= 1 || signalledEnd >= p) {
            idleLook = -1;
            return false;
        }
        if (idleLook != p) {
            idleLook = p;
            return false;
        }
        if (markerOut) {
            return false;
        }
        markerOut = true;
        idleLook = -1;
        return true;
    }

    /** The marker could not be posted (send lock). */
    void markerFailed() {
        markerOut = false;
    }

    /**
     * A send-queue work completion (poll lock).
     *
     * @param c      where the completions go
     * @param status its {@code ibv_wc_status}
     * @param wrId   its {@code wr_id}: the work request's sequence number
     */
    void complete(Completions c, int status, long wrId) {
        if (wrId < done || wrId >= posted) {
            c.broken();
            return;
        }
        // Unsignalled work requests before it succeeded: the queue completes in order, and a failed or flushed
        // one has its own completion. A signalled one still outstanding before it (siw: a Read waiting for its
        // response) makes this completion early.
        while (done < wrId && c.up()) {
            int h = (int) (done % depth);
            if (earlyStatus[h] != NOT_EARLY) {
                int st = earlyStatus[h];
                earlyStatus[h] = NOT_EARLY;
                completeHead(c, st);
            } else if (!signalled[h]) {
                completeHead(c, VerbsStatus.SUCCESS);
            } else {
                break;
            }
        }
        if (!c.up()) {
            return;
        }
        if (wrId != done) {
            int slot = (int) (wrId % depth);
            if (earlyStatus[slot] != NOT_EARLY) {
                c.broken();
                return;
            }
            earlyStatus[slot] = status;
            earlyMax = Math.max(earlyMax, wrId);
            return;
        }
        completeHead(c, status);
        // Then what completed early behind it, and the unsignalled requests before the newest early completion.
        while (c.up() && done < posted) {
            int h = (int) (done % depth);
            int next = earlyStatus[h];
            if (next != NOT_EARLY) {
                earlyStatus[h] = NOT_EARLY;
                completeHead(c, next);
            } else if (!signalled[h] && earlyMax > done) {
                completeHead(c, VerbsStatus.SUCCESS);
            } else {
                break;
            }
        }
    }

    /** The oldest outstanding slot completed with {@code status}. */
    private void completeHead(Completions c, int status) {
        long len = lengths[(int) (done % depth)];
        done++;
        boolean failed = status != VerbsStatus.SUCCESS && status != VerbsStatus.WR_FLUSH_ERR;
        if (len == MARKER) {
            markerOut = false;
            if (failed) {
                c.broken();
            }
            return;
        }
        if (len == PART || partFailed) { // a part of a split request: only its last completes it in DAT
            if (len != PART) {
                partFailed = false;
            } else if (failed) {
                partFailed = true;
                c.requestCompleted(VerbsStatus.of(status), 0);
                c.broken();
            }
            return;
        }
        if (status == VerbsStatus.SUCCESS) {
            c.requestCompleted(DtoCompletionStatus.SUCCESS, len);
        } else if (failed) { // a flush: as for receives, the CM event decides
            c.requestCompleted(VerbsStatus.of(status), 0);
            c.broken();
        }
    }
}
