package io.jdat.core;

import io.jdat.DtoCompletionStatus;
import io.jdat.spi.WorkRequest;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An EP's request queue, beside its {@link ReceiveQueue}: a ring of pre-allocated {@link WorkRequest}s
 * {@code [head, tail)} that were submitted to the transport and complete in order (send, RDMA Read, RDMA
 * Write and RMR bind; API.md §7.5). Slots are allocated when the EP is created or resized, so posting,
 * completing and flushing allocate nothing.
 *
 * <p><b>Single writers.</b> Posters fill the slot at {@code tail} and then move {@code tail} under the EP's
 * posting lock ({@link CoreEp#txLock}); the transport completes in order from one thread at a time and
 * moves {@code head} without locks ({@link #complete}); a {@link #flush} moves {@code head} under txLock
 * once the transport has stopped. Both counters are volatile: a completer sees a slot's contents once it
 * sees the {@code tail} that covers it, and a poster reuses a slot only after it sees the {@code head} that
 * freed it. The counters live in their own padded object: the peer's receive path reads the EP's state on
 * every message, and these change on every post.
 */
final class RequestQueue {
    private final CoreEp ep;
    private final WorkRequest[] ring;
    private final long[] cookie;
    /** {@link System#nanoTime()} of each request's post while a JFR recording runs, else 0 (the DtoCompletion duration). */
    private final long[] posted;
    /** The RMR of each bind request, else {@code null}. */
    private final CoreRmr[] rmr;
    private final Counters counters = new Counters();
    private static final VarHandle TAIL = FieldHandles.find(MethodHandles.lookup(),
            Counters.class, "tail", long.class);
    /** Validation target of a post that is flushed at once or refused (txLock). */
    private final WorkRequest scratch;

    /** The ring's counters, padded away from everything else. */
    private static final class Counters {
        long p01, p02, p03, p04, p05, p06, p07;
        /** Oldest request not completed; moved by the transport's completions and by flushes. */
        volatile long head;
        /** Next request slot; moved by posters under txLock. */
        volatile long tail;
        long p11, p12, p13, p14, p15, p16, p17;
    }

    /** A queue of {@code capacity} ({@code max_request_dtos}) slots of {@code iov} segments each. */
    RequestQueue(CoreEp ep, int capacity, int iov) {
        this.ep = ep;
        ring = new WorkRequest[capacity];
        for (int i = 0; i < capacity; i++) {
            ring[i] = new WorkRequest(iov);
        }
        cookie = new long[capacity];
        posted = new long[capacity];
        rmr = new CoreRmr[capacity];
        scratch = new WorkRequest(iov);
    }

    /** {@return {@code max_request_dtos}} */
    int capacity() {
        return ring.length;
    }

    /** {@return whether {@code max_request_dtos} requests are outstanding} */
    boolean full() {
        return counters.tail - counters.head >= ring.length;
    }

    /** {@return whether no request is outstanding} */
    boolean empty() {
        return counters.tail == counters.head;
    }

    /** {@return the slot the next request is built in (txLock held; the queue is not full)} */
    WorkRequest next() {
        return ring[(int) (counters.tail % ring.length)];
    }

    /** {@return a request to validate a post in that will not be queued} */
    WorkRequest scratch() {
        return scratch;
    }

    /**
     * Publishes {@link #next()} with its cookie (txLock held: single writer); the caller then submits it to
     * the transport.
     */
    void publish(long requestCookie, CoreRmr bound) {
        long t = counters.tail;
        int idx = (int) (t % ring.length);
        cookie[idx] = requestCookie;
        posted[idx] = JfrEvents.recording ? System.nanoTime() : 0L;
        rmr[idx] = bound;
        // release, not volatile: the slot is complete before a completer that reads this tail (volatile) sees it. No
        // load of this thread has to wait for it (nothing reads the queue in a Dekker pair with the tail: posts and
        // the transitions that read it hold txLock), so it needs no full fence (one per post on x86)
        TAIL.setRelease(counters, t + 1);
    }

    /**
     * The transport completed the oldest request (its thread, no lock): counts it, reports it per its
     * completion flags and frees its slot. {@return false when nothing was outstanding}
     */
    boolean complete(DtoCompletionStatus status, long length) {
        long head = counters.head;
        if (head == counters.tail) {
            return false;
        }
        int idx = (int) (head % ring.length);
        WorkRequest wr = ring[idx];
        CoreRmr bound = rmr[idx];
        rmr[idx] = null;
        long c = cookie[idx];
        WorkRequest.Op op = wr.op();
        int flags = wr.completionFlags();
        if (bound != null && status != DtoCompletionStatus.SUCCESS) {
            bound.bindFailed(wr.remoteContext()); // RMB-05: a failed bind binds nothing
        }
        if (op != WorkRequest.Op.RMR_BIND) {
            ep.counters.requestCompleted(status, length);
            if (JfrEvents.wanted(status, length)) {
                JfrEvents.dto(ep, op.name(), status, length, c, posted[idx]);
            }
        }
        counters.head = head + 1; // volatile: the slot may be reused; pairs with the DP check in disconnect
        ep.reportRequest(op, bound, c, flags, status, length);
        return true;
    }

    /** Completes every outstanding request as FLUSHED, oldest first (txLock and the EP lock held, transport stopped). */
    void flush() {
        while (counters.head != counters.tail) {
            int idx = (int) (counters.head % ring.length);
            WorkRequest wr = ring[idx];
            CoreRmr bound = rmr[idx];
            rmr[idx] = null;
            counters.head++;
            if (bound != null) {
                bound.bindFailed(wr.remoteContext()); // a flushed bind binds nothing
            } else {
                ep.counters.reqFlushed++;
            }
            ep.reportRequest(wr.op(), bound, cookie[idx], wr.completionFlags(), DtoCompletionStatus.ERR_FLUSHED, 0);
        }
    }

    /** {@code dat_ep_reset}: forgets every request (txLock and the EP lock held; nothing is outstanding after a flush). */
    void clear() {
        counters.head = 0;
        counters.tail = 0;
    }
}
