package io.jdat.core;

import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.EvdParam;
import io.jdat.HandleType;
import io.jdat.ConnectionRequest;
import io.jdat.Rmr;
import java.net.SocketAddress;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code DAT_EVD_HANDLE}: an {@link EventRing} plus the EVD's waiting, notification and bookkeeping.
 *
 * <p><b>Producers</b> (any thread) claim, fill and publish a ring slot without locks, then wake the owner
 * of the EVD when the event notifies: the thread blocked in {@link #waitFor} if there is one, else the CNO
 * when the EVD is enabled. <b>Consumers</b> take the head slot without locks; an empty poll reads one
 * slot's sequence number and allocates nothing.
 *
 * <p><b>Waiting</b> installs the thread in {@link #waiter} with a CAS (a second waiter fails, EVW-11),
 * spins for {@link #SPIN_NANOS} re-checking the ring, then parks. A producer publishes its slot, then a
 * full fence, then reads {@link #waiter}; the waiter installs itself with a CAS (a full fence) before it
 * reads the ring: at least one of them sees the other, so no wake-up is lost. {@link #lock} guards only the rare operations:
 * stream bookkeeping, resize, CNO changes and free.
 */
public final class CoreEvd extends CoreObject implements EventDispatcher {
    /** How long {@link #waitFor} spins before parking (system property {@code jdat.wait.spinNanos}). */
    static final long SPIN_NANOS = Long.getLong("jdat.wait.spinNanos", 20_000L);
    private static final java.lang.invoke.VarHandle WAITER = FieldHandles.find(
            java.lang.invoke.MethodHandles.lookup(), CoreEvd.class, "waiter", Thread.class);

    final int flags;
    private final ReentrantLock lock = new ReentrantLock();
    /** The queue; replaced (never mutated in place) by {@link #resize}. */
    private volatile EventRing ring;
    /** The thread blocked in waitFor, which owns the EVD (EVW-11). */
    private volatile Thread waiter;
    private volatile boolean enabled = true;
    private volatile boolean waitable = true;
    private volatile CoreCno cno;
    /** Set when the EVD dropped an event for lack of room; reported once until the next dequeue. */
    private volatile boolean overflowReported;

    // Stream bookkeeping (guarded by lock): who feeds this EVD.
    private int epRecvStreams;
    private int epRequestStreams;
    private volatile int epStreamFlags = -1;
    private int otherStreams;

    CoreEvd(CoreIa ia, int qlen, CoreCno cno, int flags) {
        super(ia, HandleType.EVD, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC);
        this.flags = flags;
        this.ring = new EventRing(qlen);
        this.cno = cno;
        if (cno != null) {
            cno.attach();
        }
    }

    // ------------------------------------------------------------------ producers

    /** Claims a slot of the current ring, following a resize; {@code null} when full. */
    private EventRing.Slot claim() {
        for (;;) {
            EventRing r = ring;
            EventRing.Slot s = r.claim();
            if (s != EventRing.FROZEN_SLOT) {
                return s;
            }
            Thread.onSpinWait();
        }
    }

    /** Publishes a claimed slot and wakes the owner. */
    private void commit(EventRing.Slot s, boolean notify) {
        EventRing.publish(s, notify);
        if (notify) {
            signal();
        }
    }

    /** Wakes the owner after a notifying enqueue. */
    private void signal() {
        // The slot was published with a release store; a waiter installs itself with a CAS and then reads
        // the ring. Without a full fence here the read of waiter below could be ordered before the
        // publication (store-load), both sides would miss the other, and the waiter would park for good.
        java.lang.invoke.VarHandle.fullFence();
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
            return;
        }
        CoreCno c = cno;
        if (c != null && enabled) {
            c.trigger(this);
        }
    }

    private void overflow() {
        if (overflowReported) {
            return;
        }
        overflowReported = true;
        ia.asyncError(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, this, io.jdat.AsyncReason.EVD_OVERFLOW_ERROR, this);
    }

    /**
     * Claims a slot for an event other than a DTO completion, with every field cleared but its number;
     * {@code null} when full. The caller fills what its kind of event carries and commits.
     */
    private EventRing.Slot claimFor(EventNumber number) {
        EventRing.Slot s = claim();
        if (s != null) {
            s.number = number;
            s.ep = null;
            s.cookie = 0;
            s.status = null;
            s.length = 0;
            s.rareCleared();
        }
        return s;
    }

    /** Enqueues a DTO completion; on overflow the event is lost and the async EVD is told (EVD-12). */
    void postDto(Endpoint ep, long cookie, DtoCompletionStatus status, long length, boolean notify) {
        EventRing.Slot s = claim();
        if (s == null) {
            overflow();
            return;
        }
        s.number = EventNumber.DTO_COMPLETION_EVENT;
        s.ep = ep;
        s.cookie = cookie;
        s.status = status;
        s.length = length;
        commit(s, notify);
    }

    /**
     * Enqueues the receive completion of an SRQ entry, which carries {@code reap} so that its SRQ learns when
     * the consumer dequeues it ({@code outstanding_dto_count}, SRQ-10) or the EVD discards it.
     *
     * @return {@code false} when the event was lost (overflow): the caller tells the SRQ itself
     */
    boolean postSrqRecv(Endpoint ep, long cookie, DtoCompletionStatus status, long length, boolean notify,
            EventRing.Reap reap) {
        EventRing.Slot s = claim();
        if (s == null) {
            overflow();
            return false;
        }
        s.number = EventNumber.DTO_COMPLETION_EVENT;
        s.ep = ep;
        s.cookie = cookie;
        s.status = status;
        s.length = length;
        s.rare.reap = reap;
        EventRing.publishReaping(s, notify);
        if (notify) {
            signal();
        }
        return true;
    }

    /**
     * The EVD is gone (lock held): SRQ receive completions still queued are discarded, so their SRQs are told.
     * A ring with events is frozen and replaced by an empty one that late producers may fill and nobody reads.
     * (No field records whether SRQ completions ever came here: a new field would change the EVD object's
     * size, and with it where the objects allocated after it fall, which the ping-pong measures.)
     */
    private void discardSrqCompletions() {
        EventRing old = ring;
        if (old.size() == 0) {
            return;
        }
        old.freeze();
        ring = new EventRing(2);
        old.discardReaps();
    }

    /** Enqueues an RMR bind completion. */
    void postRmrBind(Rmr rmr, long cookie, DtoCompletionStatus status, boolean notify) {
        EventRing.Slot s = claimFor(EventNumber.RMR_BIND_COMPLETION_EVENT);
        if (s == null) {
            overflow();
            return;
        }
        s.rare.rmr = rmr;
        s.cookie = cookie;
        s.status = status;
        commit(s, notify);
    }

    /**
     * Enqueues a connection request.
     *
     * @return {@code false} when the queue (the backlog, PSP-03) is full or the EVD is gone; nothing is queued
     */
    boolean postCr(DatHandle sp, SocketAddress local, long connQual, ConnectionRequest cr) {
        if (freed) {
            return false;
        }
        EventRing.Slot s = claimFor(EventNumber.CONNECTION_REQUEST_EVENT);
        if (s == null) {
            return false;
        }
        EventRing.Rare r = s.rare;
        r.sp = sp;
        r.localAddress = local;
        r.connQual = connQual;
        r.cr = cr;
        commit(s, true);
        return true;
    }

    /** Enqueues a connection event. */
    void postConnection(EventNumber number, Endpoint ep, byte[] privateData) {
        EventRing.Slot s = claimFor(number);
        if (s == null) {
            overflow();
            return;
        }
        s.ep = ep;
        s.rare.privateData = privateData;
        commit(s, true);
    }

    /**
     * Enqueues an asynchronous error.
     *
     * @return {@code false} when full (the event is lost; an async EVD cannot report its own overflow)
     */
    boolean postAsync(EventNumber number, DatHandle handle, int reason) {
        EventRing.Slot s = claimFor(number);
        if (s == null) {
            return false;
        }
        EventRing.Rare r = s.rare;
        r.handle = handle;
        r.reason = reason;
        commit(s, true);
        return true;
    }

    @Override
    public void postSe(DatEvent event) {
        checkAlive();
        if (event == null || event.eventNumber() != EventNumber.SOFTWARE_EVENT) {
            throw Fail.param(2, "not a DAT_SOFTWARE_EVENT");
        }
        if ((flags & EvdFlags.SOFTWARE) == 0) {
            throw Fail.param(1, "EVD was created without DAT_EVD_SOFTWARE_FLAG");
        }
        EventRing.Slot s = claimFor(EventNumber.SOFTWARE_EVENT);
        if (s == null) {
            throw Fail.of(DatReturnType.QUEUE_FULL, "EVD full (EVD-04)");
        }
        s.rare.pointer = event.softwarePointer();
        commit(s, true);
    }

    // ------------------------------------------------------------------ consumers

    /** Takes the head event from the current ring, following a resize. */
    private boolean poll(DatEvent event) {
        for (;;) {
            int r = ring.poll(event, this);
            if (r == EventRing.OK) {
                if (overflowReported) {
                    overflowReported = false;
                }
                return true;
            }
            if (r == EventRing.EMPTY) {
                return false;
            }
            Thread.onSpinWait();
        }
    }

    /** Checks the ring for {@code threshold}, first letting the transport move bytes on this thread. */
    private boolean readyPolling(int threshold) {
        return ready(threshold) || (ia.transport.progress() && ready(threshold));
    }

    @Override
    public boolean dequeue(DatEvent event) {
        if (freed) {
            checkAlive();
        }
        if (event == null) {
            throw Fail.param(2, "no event to fill");
        }
        if (waiter != null) {
            throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_WAITER, "a thread waits on this EVD (EVQ-03)");
        }
        if (poll(event)) {
            ia.transport.eventDequeued(); // presence: a busy consumer, though it does not poll now
            return true;
        }
        return ia.transport.progress() && poll(event);
    }

    /** True when the waiter may return: a notifying event is queued and at least {@code threshold} are. */
    private boolean ready(int threshold) {
        long scan = ring.scan(threshold);
        return (int) scan > 0 && (int) (scan >>> 32) >= threshold;
    }

    @Override
    public boolean waitFor(int timeout, int threshold, DatEvent event) {
        checkAlive();
        if (event == null) {
            throw Fail.param(4, "no event to fill");
        }
        if (threshold <= 0 || threshold > ring.capacity) {
            throw Fail.param(3, "threshold " + threshold + " outside 1.." + ring.capacity + " (EVW-03/04)");
        }
        if (!waitable) {
            throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "EVD is unwaitable");
        }
        if (threshold > 1 && consumerNotified()) {
            throw Fail.state(epStreamFlags == CompletionFlags.SOLICITED_WAIT
                    ? DatReturnSubtype.INVALID_STATE_EVD_CONFIG_SOLICITED
                    : DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                    "threshold > 1 on an EVD fed by UNSIGNALLED or SOLICITED_WAIT streams (EVW-13)");
        }
        Thread me = Thread.currentThread();
        if (!WAITER.compareAndSet(this, null, me)) {
            throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_WAITER, "another thread waits on this EVD (EVW-11)");
        }
        boolean infinite = timeout == io.jdat.Dat.TIMEOUT_INFINITE;
        long start = System.nanoTime();
        long limit = infinite ? Long.MAX_VALUE : Integer.toUnsignedLong(timeout) * 1000L;
        boolean interrupted = false;
        try {
            if (timeout != 0) {
                long spinEnd = Math.min(SPIN_NANOS, limit);
                while (!readyPolling(threshold) && !freed && waitable && System.nanoTime() - start < spinEnd) {
                    Thread.onSpinWait();
                }
                if (!ready(threshold)) {
                    ia.transport.pollerIdle(); // parking: the transport's own progress takes over
                }
                while (!ready(threshold) && !freed && waitable) {
                    long left = limit - (System.nanoTime() - start);
                    if (left <= 0) {
                        break;
                    }
                    LockSupport.parkNanos(this, left);
                    if (Thread.currentThread().isInterrupted()) {
                        interrupted = true;
                        break;
                    }
                }
            }
            if (freed) {
                throw Fail.of(DatReturnType.ABORT, DatReturnSubtype.SUB_INTERRUPTED, "EVD destroyed during the wait (EVW-16)");
            }
            if (!waitable) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "EVD set unwaitable during the wait (EVW-15)");
            }
            if (readyPolling(threshold) && poll(event)) {
                event.nmore(ring.size());
                return true;
            }
            event.nmore(ring.size());
            if (interrupted) {
                throw Fail.of(DatReturnType.INTERRUPTED_CALL, DatReturnSubtype.SUB_INTERRUPTED, "thread interrupted (EVW-17)");
            }
            return false;
        } finally {
            waiter = null;
        }
    }

    /** True when an EP stream with consumer-controlled notification feeds this EVD. */
    private boolean consumerNotified() {
        int f = epStreamFlags;
        return f == CompletionFlags.UNSIGNALLED || f == CompletionFlags.SOLICITED_WAIT;
    }

    // ------------------------------------------------------------------ streams

    /**
     * Attaches an EP completion stream, enforcing the sharing rules of {@code dat_ep_create} (EPC-23..26,
     * AMB-10): every EP stream on one EVD uses the same completion flags; an EVD that also takes
     * non-DTO/RMR streams accepts only {@code EVD_THRESHOLD}; a SOLICITED_WAIT receive stream needs an EVD
     * that takes nothing but DTO completions and no request streams.
     */
    void attachEpStream(boolean recv, int completionFlags, int arg) {
        lock.lock();
        try {
            checkCompatible(recv, completionFlags, arg);
            if (recv) {
                epRecvStreams++;
            } else {
                epRequestStreams++;
            }
            epStreamFlags = completionFlags;
        } finally {
            lock.unlock();
        }
    }

    /** Throws {@code DAT_INVALID_PARAMETER} when a stream could not be attached. */
    void checkCompatible(boolean recv, int completionFlags, int arg) {
        lock.lock();
        try {
            int streams = epRecvStreams + epRequestStreams;
            if (streams > 0 && epStreamFlags != completionFlags) {
                throw Fail.param(arg, "completion flags 0x" + Integer.toHexString(completionFlags)
                        + " differ from the other EP streams on this EVD (EPC-23/25)");
            }
            int others = flags & (EvdFlags.CR | EvdFlags.CONNECTION | EvdFlags.ASYNC | EvdFlags.SOFTWARE);
            if (others != 0 && completionFlags != CompletionFlags.EVD_THRESHOLD) {
                throw Fail.param(arg, "an EVD that also takes non-DTO streams needs EVD_THRESHOLD (EPC-24)");
            }
            if (completionFlags == CompletionFlags.SOLICITED_WAIT && (!recv || epRequestStreams > 0)) {
                throw Fail.param(arg, "a SOLICITED_WAIT receive EVD carries no other stream (EPC-26)");
            }
            if (streams > 0 && epStreamFlags == CompletionFlags.SOLICITED_WAIT && !recv) {
                throw Fail.param(arg, "EVD serves SOLICITED_WAIT receive streams only (EPC-26)");
            }
        } finally {
            lock.unlock();
        }
    }

    /** Detaches an EP completion stream. */
    void detachEpStream(boolean recv) {
        lock.lock();
        try {
            if (recv) {
                epRecvStreams--;
            } else {
                epRequestStreams--;
            }
            if (epRecvStreams + epRequestStreams == 0) {
                epStreamFlags = -1;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Counts another feeder (service point, EP connection stream, IA async use). */
    void attachOther() {
        lock.lock();
        try {
            otherStreams++;
        } finally {
            lock.unlock();
        }
    }

    /** Releases another feeder. */
    void detachOther() {
        lock.lock();
        try {
            otherStreams--;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ management

    @Override
    public EvdParam query(long mask) {
        checkAliveAndMask(mask, EvdParam.FIELD_ALL);
        lock.lock();
        try {
            EventRing r = ring;
            int state = (enabled ? EvdParam.STATE_ENABLED : EvdParam.STATE_DISABLED)
                    | (waitable ? EvdParam.STATE_WAITABLE : EvdParam.STATE_UNWAITABLE);
            if (epStreamFlags == CompletionFlags.SOLICITED_WAIT) {
                state |= EvdParam.STATE_CONFIG_SOLICITED;
            } else if (epStreamFlags == CompletionFlags.EVD_THRESHOLD) {
                state |= EvdParam.STATE_CONFIG_THRESHOLD;
            } else {
                state |= EvdParam.STATE_CONFIG_NOTIFY;
            }
            return new EvdParam(ia, r.capacity, state, cno, flags);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void modifyCno(Cno cnoHandle) {
        checkAlive();
        CoreCno c = Core.cnoArg(cnoHandle, ia);
        CoreCno old;
        lock.lock();
        try {
            old = cno;
            if (old == c) {
                return;
            }
            if (c != null) {
                c.attach();
            }
            cno = c;
        } finally {
            lock.unlock();
        }
        if (old != null) {
            old.detach();
        }
    }

    @Override
    public void enable() {
        checkAlive();
        enabled = true;
    }

    @Override
    public void disable() {
        checkAlive();
        enabled = false;
    }

    @Override
    public void setUnwaitable() {
        checkAlive();
        waitable = false;
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public void clearUnwaitable() {
        checkAlive();
        waitable = true;
    }

    @Override
    public void resize(int evdMinQlen) {
        checkAlive();
        if (evdMinQlen <= 0) {
            throw Fail.param(2, "queue length must be positive");
        }
        if (evdMinQlen > CoreIa.MAX_EVD_QLEN) {
            throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEVD, "queue too long");
        }
        lock.lock();
        try {
            if (waiter != null) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_WAITER, "a thread waits on this EVD");
            }
            EventRing old = ring;
            if (old.size() > evdMinQlen) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, old.size() + " events queued (EVD-06)");
            }
            EventRing next = new EventRing(evdMinQlen); // before the freeze: nothing may fail after it
            int queued = old.freeze();
            boolean fits = queued <= evdMinQlen;
            if (!fits) {
                next = new EventRing(old.capacity); // producers raced in: keep the old length
            }
            old.drainInto(next);
            ring = next;
            if (!fits) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, queued + " events queued (EVD-06)");
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void free() {
        CoreCno c;
        lock.lock();
        try {
            checkAlive();
            if (epRecvStreams + epRequestStreams + otherStreams > 0) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                        "EPs, service points or the IA still feed this EVD (EVD-07)");
            }
            markFreed();
            c = detachCnoLocked();
        } finally {
            lock.unlock();
        }
        wakeOnDestroy(c);
        ia.unregister(this);
    }

    @Override
    void destroy() {
        CoreCno c;
        lock.lock();
        try {
            if (!markFreedOnce()) {
                return;
            }
            c = detachCnoLocked();
        } finally {
            lock.unlock();
        }
        wakeOnDestroy(c);
    }

    /** The freed EVD lets go of its CNO and its SRQ completions (lock held); {@return the CNO to wake} */
    private CoreCno detachCnoLocked() {
        CoreCno c = cno;
        cno = null;
        discardSrqCompletions();
        return c;
    }

    private void wakeOnDestroy(CoreCno c) {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
        if (c != null) {
            c.detach();
        }
    }

    /** True when this EVD accepts the given {@link EvdFlags} stream. */
    boolean accepts(int streamFlag) {
        return (flags & streamFlag) != 0;
    }

    /** Current queue size (tests, diagnostics). */
    int size() {
        return ring.size();
    }
}
