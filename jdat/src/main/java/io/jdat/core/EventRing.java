package io.jdat.core;

import io.jdat.ConnectionRequest;
import io.jdat.DatEvent;
import io.jdat.DatHandle;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.Rmr;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;

/**
 * The bounded multi-producer, multi-consumer event queue behind an EVD: an array of slots with a sequence
 * number each (after Dmitry Vyukov's queue), so that producers and consumers never take a lock and an
 * event crosses between threads as one slot's cache lines, once.
 *
 * <p><b>Ordering.</b> A producer claims index {@code t} with a CAS on {@link #tail} once it knows the slot
 * is free ({@code t - head < capacity}, read from {@link #headCache} and refreshed from {@link #head} only
 * when that looks full), fills it with plain writes and publishes it with a release store of
 * {@code seq = t + 1}. A consumer that reads {@code seq == h + 1} with an acquire load copies the slot and
 * then claims it with a CAS on {@link #head}; a failed CAS discards the copy. Consumers never write a
 * slot, so a slot's lines travel from producer to consumer only. {@link #tail} (with the producers'
 * {@link #headCache}) and {@link #head} sit on their own cache lines, so in a ping-pong each stays with
 * the one thread that moves it. A slot keeps its references until it is reused; the ring is bounded, so
 * this holds at most one ring's worth of old events.
 *
 * <p><b>SRQ receive completions</b> carry a {@link Reap}: every publication sets the slot's
 * {@code reaps} flag (false but for them, so a hook from an earlier lap is never taken for a new event) and
 * the hook itself lives in {@link Rare}, which other DTO completions never touch; the flag fits in the
 * slot's padding, so a DTO slot stays one cache line's worth. The consumer whose CAS claims the event calls
 * the hook; a freed EVD calls it for the events it discards ({@link #discardReaps}).
 *
 * <p><b>Freezing.</b> {@link #freeze()} sets {@link #FROZEN} in both counters: later claims fail with
 * {@link #FROZEN_RESULT} and their callers retry on the replacement ring that {@code dat_evd_resize}
 * installs. It then waits until every slot claimed before the freeze is published, so nothing is lost.
 */
final class EventRing {
    /** Set in {@link #head} and {@link #tail} once the ring is frozen. */
    static final long FROZEN = 1L << 62;
    /** {@link #poll} result: an event was taken. */
    static final int OK = 0;
    /** {@link #poll} result: the ring was replaced; retry on the new one. */
    static final int FROZEN_RESULT = 2;
    /** {@link #poll} result: nothing queued. */
    static final int EMPTY = 3;

    private static final VarHandle HEAD = FieldHandles.find(MethodHandles.lookup(), EventRing.class, "head",
            long.class);
    private static final VarHandle TAIL = FieldHandles.find(MethodHandles.lookup(), EventRing.class, "tail",
            long.class);
    private static final VarHandle SEQ = FieldHandles.find(MethodHandles.lookup(), Slot.class, "seq", long.class);

    /** Told when an event that carries it is dequeued or discarded (an SRQ, for its receive completions). */
    interface Reap {
        /** The event was dequeued or discarded. */
        void reaped();
    }

    /**
     * One event. The fields of a DTO completion live in the slot itself, which then fits in about one cache
     * line; the other event kinds use {@link #rare}, allocated once per slot.
     */
    static final class Slot {
        long seq;
        /** The index this slot was last claimed for (producer side). */
        long index;
        long cookie;
        long length;
        EventNumber number;
        Endpoint ep;
        DtoCompletionStatus status;
        boolean notify;
        /** This event is an SRQ receive completion whose hook is {@code rare.reap}; written by every publish. */
        boolean reaps;
        final Rare rare;

        Slot(Rare rare) {
            this.rare = rare;
        }

        void copyTo(DatEvent e, EventDispatcher evd) {
            e.eventNumber(number).evd(evd).ep(ep).userCookie(cookie).status(status).transferredLength(length);
            if (number == EventNumber.DTO_COMPLETION_EVENT) {
                e.rmr(null).spHandle(null).localIaAddress(null).connQual(0).cr(null).privateData(null)
                        .asyncHandle(null).reason(0).softwarePointer(null);
            } else {
                Rare r = rare;
                e.rmr(r.rmr).spHandle(r.sp).localIaAddress(r.localAddress).connQual(r.connQual).cr(r.cr)
                        .privateData(r.privateData).asyncHandle(r.handle).reason(r.reason).softwarePointer(r.pointer);
            }
        }

        /** Clears the rare fields before a non-DTO event fills some of them (producer side). */
        Rare rareCleared() {
            Rare r = rare;
            r.rmr = null;
            r.sp = null;
            r.localAddress = null;
            r.connQual = 0;
            r.cr = null;
            r.privateData = null;
            r.handle = null;
            r.reason = 0;
            r.pointer = null;
            r.reap = null;
            return r;
        }
    }

    /** The fields of the events other than DTO completions. */
    static final class Rare {
        Rmr rmr;
        DatHandle sp;
        SocketAddress localAddress;
        long connQual;
        ConnectionRequest cr;
        byte[] privateData;
        DatHandle handle;
        int reason;
        Object pointer;
        /** The hook of an SRQ receive completion (read only when the slot's {@code reaps} is set). */
        Reap reap;
    }

    private final Slot[] slots;
    final int capacity;
    // Padding keeps head and tail on separate cache lines from each other and from the fields above.
    long p01, p02, p03, p04, p05, p06, p07;
    private volatile long head;
    long p11, p12, p13, p14, p15, p16, p17;
    private volatile long tail;
    /** The producers' last reading of {@link #head}: a lower bound, refreshed when the ring looks full. */
    private long headCache;
    long p21, p22, p23, p24, p25, p26, p27;

    EventRing(int capacity) {
        // Exactly the requested length: producers learn that a slot is free from head, not from its
        // sequence number, so even a one-slot ring is sound (a queue of one is a backlog of one).
        this.capacity = capacity;
        // Layout: the rare parts first, then the slots one after the other, so that consecutive slots are
        // adjacent in the heap (as allocated, and kept in that order by a compacting collection): a consumer
        // walking the ring, or a producer filling it, moves through one dense run of lines (a DTO slot is about
        // one line) instead of a line per slot with an untouched Rare between every two. With a ring sized for
        // thousands of connections the ring no longer fits the caches, and this halves its lines per event.
        Rare[] rares = new Rare[capacity];
        for (int i = 0; i < capacity; i++) {
            rares[i] = new Rare();
        }
        slots = new Slot[this.capacity];
        for (int i = 0; i < this.capacity; i++) {
            slots[i] = new Slot(rares[i]);
            slots[i].seq = i; // != i + 1: not published
        }
    }

    private Slot slot(long index) {
        return slots[(int) (index % capacity)];
    }

    /** Returned by {@link #claim} when the ring is frozen. */
    static final Slot FROZEN_SLOT = new Slot(new Rare());

    /**
     * Claims the next free slot.
     *
     * @return the slot to fill and then {@link #publish}; {@code null} when full; {@link #FROZEN_SLOT}
     *         when the ring was frozen (retry on its replacement)
     */
    Slot claim() {
        for (;;) {
            long t = (long) TAIL.getOpaque(this);
            if ((t & FROZEN) != 0) {
                return FROZEN_SLOT;
            }
            if (t - headCache >= capacity) {
                long h = head & ~FROZEN;
                headCache = h;
                if (t - h >= capacity) {
                    return null;
                }
            }
            if (TAIL.weakCompareAndSet(this, t, t + 1)) {
                Slot s = slot(t);
                s.index = t;
                return s;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Publishes a slot returned by {@link #claim}: consumers may now take it. A frozen ring waits for the
     * slots claimed before the freeze, so the slot alone is enough to publish.
     */
    static void publish(Slot s, boolean notify) {
        s.notify = notify;
        s.reaps = false;
        SEQ.setRelease(s, s.index + 1);
    }

    /** {@link #publish} for an SRQ receive completion whose {@code rare.reap} the caller has set. */
    static void publishReaping(Slot s, boolean notify) {
        s.notify = notify;
        s.reaps = true;
        SEQ.setRelease(s, s.index + 1);
    }

    /**
     * Takes the head event.
     *
     * @param e   receives it
     * @param evd the EVD to report in the event
     * @return {@link #OK}, {@link #EMPTY} or {@link #FROZEN_RESULT}
     */
    int poll(DatEvent e, EventDispatcher evd) {
        for (;;) {
            long h = (long) HEAD.getOpaque(this);
            if ((h & FROZEN) != 0) {
                return FROZEN_RESULT;
            }
            Slot s = slot(h);
            if ((long) SEQ.getAcquire(s) != h + 1) {
                return EMPTY;
            }
            s.copyTo(e, evd);
            Reap reap = s.reaps ? s.rare.reap : null;
            // The copy is valid only if the slot was still ours: the CAS fails when another consumer took
            // it (and a producer may since be refilling it), and then the copy is discarded.
            if (HEAD.compareAndSet(this, h, h + 1)) {
                if (reap != null) {
                    reap.reaped();
                }
                return OK;
            }
            Thread.onSpinWait();
        }
    }

    /** Events queued: a snapshot. */
    int size() {
        long h = head & ~FROZEN;
        long t = tail & ~FROZEN;
        long n = t - h;
        return (int) Math.max(0, Math.min(n, capacity));
    }

    /**
     * Counts queued events and notifying ones from the head (a snapshot for waiters), stopping as soon as
     * {@code limit} events including a notifying one are counted, so a wait costs O(threshold), not
     * O(queue length).
     *
     * @param limit the count that satisfies the caller (a wait threshold)
     * @return {@code size << 32 | notifying}
     */
    long scan(int limit) {
        long h = head & ~FROZEN;
        long t = tail & ~FROZEN;
        int size = 0;
        int notifying = 0;
        for (long i = h; i < t && (size < limit || notifying == 0); i++) {
            Slot s = slot(i);
            if ((long) SEQ.getAcquire(s) != i + 1) {
                break;
            }
            size++;
            if (s.notify) {
                notifying++;
            }
        }
        return (long) size << 32 | notifying;
    }

    /**
     * Stops the ring: later claims and polls return {@link #FROZEN_RESULT}. Waits until every slot claimed
     * before the freeze is published.
     *
     * @return the number of events left in the ring, to move with {@link #drainInto}
     */
    int freeze() {
        long t;
        do {
            t = tail;
        } while (!TAIL.compareAndSet(this, t, t | FROZEN));
        long h;
        do {
            h = head;
        } while (!HEAD.compareAndSet(this, h, h | FROZEN));
        for (long i = h; i < t; i++) {
            Slot s = slot(i);
            while ((long) SEQ.getAcquire(s) != i + 1) {
                Thread.onSpinWait();
            }
        }
        return (int) (t - h);
    }

    /** Moves the events of a frozen ring, oldest first, into {@code target} (single-threaded). */
    void drainInto(EventRing target) {
        long h = head & ~FROZEN;
        long t = tail & ~FROZEN;
        for (long i = h; i < t; i++) {
            Slot from = slot(i);
            Slot to = target.claim();
            to.number = from.number;
            to.ep = from.ep;
            to.cookie = from.cookie;
            to.status = from.status;
            to.length = from.length;
            Rare r = to.rareCleared();
            r.rmr = from.rare.rmr;
            r.sp = from.rare.sp;
            r.localAddress = from.rare.localAddress;
            r.connQual = from.rare.connQual;
            r.cr = from.rare.cr;
            r.privateData = from.rare.privateData;
            r.handle = from.rare.handle;
            r.reason = from.rare.reason;
            r.pointer = from.rare.pointer;
            r.reap = from.rare.reap;
            if (from.reaps) {
                publishReaping(to, from.notify);
            } else {
                publish(to, from.notify);
            }
        }
    }

    /** Calls the {@link Reap} of every event left in a frozen ring: they are discarded (single-threaded). */
    void discardReaps() {
        long h = head & ~FROZEN;
        long t = tail & ~FROZEN;
        for (long i = h; i < t; i++) {
            Slot s = slot(i);
            if (s.reaps) {
                s.rare.reap.reaped();
            }
        }
    }
}
