package io.jdat.core;

import io.jdat.spi.RecvBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An EP's receive queue: a ring of pre-allocated {@link Slot}s, posted by the consumer and taken and
 * completed, in order, by the transport's receive path.
 *
 * <p><b>Single writers.</b> Posters hold the EP's lock, so {@link #tail} has one writer at a time; the
 * transport delivers for one connection from one thread at a time, so {@link #take} and {@link #head}
 * have one writer too. A flush runs under the EP's lock once the transport has stopped.
 *
 * <p><b>Publication through the slot.</b> Each slot carries a sequence number: a poster fills the slot
 * for index {@code i} and stores {@code seq = i + 1} with release semantics; the receive path takes index
 * {@code i} when it reads exactly that with acquire semantics. The receive path never writes a slot: it
 * frees slots by moving {@link #head}, which posters read only when their cached copy says the queue is
 * full. So a posted receive crosses between threads once, as the slot's own cache lines, and each counter
 * stays with its writer (they are padded apart).
 */
final class ReceiveQueue {
    private static final VarHandle SEQ = FieldHandles.find(MethodHandles.lookup(), Slot.class, "seq", long.class);
    private static final VarHandle HEAD = FieldHandles.find(MethodHandles.lookup(), ReceiveQueue.class, "head",
            long.class);

    /** A receive buffer with the core's bookkeeping: sequence, cookie and post flags. */
    static final class Slot extends RecvBuffer {
        long seq;
        long cookie;
        int postFlags;

        Slot(int iov, long seq) {
            super(iov);
            this.seq = seq;
        }
    }

    private final Slot[] slots;
    final int capacity;
    final int iov;
    /** Next post index (posters, under the EP lock). */
    private long tail;
    /** The posters' last reading of {@link #head}. */
    private long headCache;
    long p01, p02, p03, p04, p05, p06, p07;
    /** Next index the transport takes (receive path). */
    private long take;
    /** Oldest index not completed (receive path, flush); volatile for status queries. */
    private volatile long head;
    long p11, p12, p13, p14, p15, p16, p17;

    ReceiveQueue(int capacity, int iov) {
        this.capacity = capacity;
        this.iov = iov;
        slots = new Slot[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = new Slot(iov, i); // seq != i + 1: nothing posted
        }
    }

    private Slot slot(long index) {
        return slots[(int) (index % capacity)];
    }

    // ------------------------------------------------------------------ posting (EP lock held)

    /** The slot the next post fills, or {@code null} when every slot is posted or not yet reaped. */
    Slot next() {
        if (capacity == 0) {
            return null;
        }
        long t = tail;
        if (t - headCache >= capacity) {
            headCache = head;
            if (t - headCache >= capacity) {
                return null;
            }
        }
        return slot(t);
    }

    /** Publishes the slot returned by {@link #next}, filled by the caller. */
    void publish(Slot s, long cookie, int postFlags) {
        s.cookie = cookie;
        s.postFlags = postFlags;
        long t = tail;
        tail = t + 1;
        SEQ.setRelease(s, t + 1);
    }

    /** Buffers posted and not yet completed. */
    long held() {
        return tail - head;
    }

    /** True once any receive was posted since the queue was created. */
    boolean everPosted() {
        return tail != 0;
    }

    // ------------------------------------------------------------------ receive path (one thread at a time)

    /** Takes the next posted buffer for an incoming message, or {@code null}. */
    Slot take() {
        if (capacity == 0) {
            return null;
        }
        long t = take;
        Slot s = slot(t);
        if ((long) SEQ.getAcquire(s) != t + 1) {
            return null;
        }
        take = t + 1;
        return s;
    }

    /**
     * The oldest taken buffer if it is {@code buffer}; {@code null} when it was flushed meanwhile. Read its
     * cookie and flags, then {@link #release} it.
     */
    Slot completing(RecvBuffer buffer) {
        long h = head;
        if (h == take || capacity == 0) {
            return null;
        }
        Slot s = slot(h);
        return s == buffer ? s : null;
    }

    /** Frees the head slot returned by {@link #completing}; the caller has read what it needs of it. */
    void release() {
        // release, not volatile: the slot was read before posters, which read head (volatile), may refill it; no
        // load of this thread waits for the store (no Dekker pair reads head), so no full fence per receive on x86
        HEAD.setRelease(this, head + 1);
    }

    // ------------------------------------------------------------------ flush, copy (EP lock held, transport stopped)

    /** What a flush does with each buffer. */
    @FunctionalInterface
    interface Visitor {
        void visit(Slot s);
    }

    /** Completes every posted buffer, oldest first, through {@code visitor}, and empties the queue. */
    void flush(Visitor visitor) {
        for (long i = head; i < tail; i++) {
            visitor.visit(slot(i));
        }
        take = tail;
        head = tail;
    }

    /**
     * A new queue holding the posted buffers that {@code keep} accepts, oldest first (for a resize or a PZ
     * change; the transport is not running).
     *
     * @return the new queue, or {@code null} when they do not fit
     */
    ReceiveQueue copy(int newCapacity, int newIov, java.util.function.Predicate<Slot> keep) {
        ReceiveQueue q = new ReceiveQueue(newCapacity, newIov);
        for (long i = head; i < tail; i++) {
            Slot s = slot(i);
            if (!keep.test(s)) {
                continue;
            }
            Slot d = q.next();
            if (d == null || s.count() > newIov) {
                return null;
            }
            for (int k = 0; k < s.count(); k++) {
                d.add(s.segment(k), s.offset(k), s.length(k), s.key(k));
            }
            q.publish(d, s.cookie, s.postFlags);
        }
        return q;
    }

    /** Posted buffers, oldest first (diagnostics and checks; transport not running). */
    void forEachPosted(Visitor visitor) {
        for (long i = head; i < tail; i++) {
            visitor.visit(slot(i));
        }
    }
}
