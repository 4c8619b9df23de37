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
 * {@code DAT_EVD_HANDLE}: a bounded ring of pre-allocated event slots.
 *
 * <p><b>Producers</b> (any thread) fill a slot under {@link #lock}, then publish the new size with a
 * volatile write of {@link #count}; after unlocking they wake the owner of the EVD — the blocked waiter,
 * or else the CNO — when the event notifies. <b>Consumers</b> read {@link #count} first (a volatile read:
 * an empty poll takes no lock and allocates nothing), then copy the head slot into their
 * {@link DatEvent} under the lock.
 *
 * <p><b>Waiting</b> registers the thread in {@link #waiter} under the lock, spins for
 * {@link #SPIN_NANOS} re-reading {@link #count} and {@link #notifying}, then parks. A producer publishes
 * before it reads {@link #waiter}, and the waiter registers before it reads {@link #count}: with volatile
 * ordering at least one of them sees the other, so no wake-up is lost.
 */
final class CoreEvd extends CoreObject implements EventDispatcher {
    /** How long {@link #waitFor} spins before parking (system property {@code jdat.wait.spinNanos}). */
    static final long SPIN_NANOS = Long.getLong("jdat.wait.spinNanos", 20_000L);

    /** One queued event; fields mirror {@link DatEvent}. */
    private static final class Slot {
        EventNumber number;
        boolean notify;
        Endpoint ep;
        long cookie;
        DtoCompletionStatus status;
        long length;
        Rmr rmr;
        DatHandle sp;
        SocketAddress localAddress;
        long connQual;
        ConnectionRequest cr;
        byte[] privateData;
        DatHandle handle;
        int reason;
        Object pointer;

        void clearRefs() {
            ep = null;
            rmr = null;
            sp = null;
            localAddress = null;
            cr = null;
            privateData = null;
            handle = null;
            pointer = null;
        }
    }

    final int flags;
    private final ReentrantLock lock = new ReentrantLock();
    private Slot[] ring;
    private int head;
    private int size;
    /** The queue size, published after each change (release) for lock-free polling. */
    private volatile int count;
    /** Queued events that notify; a waiter wakes only for these. */
    private volatile int notifying;
    /** The thread blocked in waitFor, which owns the EVD (EVW-11). */
    private volatile Thread waiter;
    private volatile int waitThreshold;
    private volatile boolean enabled = true;
    private volatile boolean waitable = true;
    private volatile CoreCno cno;
    /** Set when the EVD dropped an event for lack of room; reported once per overflow. */
    private boolean overflowReported;

    // Stream bookkeeping (guarded by lock): who feeds this EVD.
    private int epRecvStreams;
    private int epRequestStreams;
    private int epStreamFlags = -1;
    private int otherStreams;

    CoreEvd(CoreIa ia, int qlen, CoreCno cno, int flags) {
        super(ia, HandleType.EVD, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC);
        this.flags = flags;
        this.ring = newRing(qlen);
        this.cno = cno;
        if (cno != null) {
            cno.attach();
        }
    }

    private static Slot[] newRing(int qlen) {
        Slot[] r = new Slot[qlen];
        for (int i = 0; i < qlen; i++) {
            r[i] = new Slot();
        }
        return r;
    }

    // ------------------------------------------------------------------ producers

    /** Claims the tail slot under the lock; {@code null} when full. */
    private Slot claim() {
        if (size == ring.length) {
            return null;
        }
        int i = head + size;
        if (i >= ring.length) {
            i -= ring.length;
        }
        return ring[i];
    }

    /** Publishes the claimed slot; call with the lock held. */
    private void commit(Slot s, boolean notify) {
        s.notify = notify;
        size++;
        if (notify) {
            notifying++;
        }
        count = size;
    }

    /** Wakes the owner after an enqueue; call without the lock. */
    private void signal(boolean notify) {
        if (!notify) {
            return;
        }
        Thread w = waiter;
        if (w != null) {
            if (count >= waitThreshold) {
                LockSupport.unpark(w);
            }
            return;
        }
        CoreCno c = cno;
        if (c != null && enabled) {
            c.trigger(this);
        }
    }

    private void overflow() {
        boolean report;
        lock.lock();
        try {
            report = !overflowReported;
            overflowReported = true;
        } finally {
            lock.unlock();
        }
        if (report) {
            ia.asyncError(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, this, io.jdat.AsyncReason.EVD_OVERFLOW_ERROR, this);
        }
    }

    /** Enqueues a DTO completion; on overflow the event is lost and the async EVD is told (EVD-12). */
    void postDto(Endpoint ep, long cookie, DtoCompletionStatus status, long length, boolean notify) {
        lock.lock();
        Slot s;
        try {
            s = claim();
            if (s != null) {
                s.number = EventNumber.DTO_COMPLETION_EVENT;
                s.ep = ep;
                s.cookie = cookie;
                s.status = status;
                s.length = length;
                commit(s, notify);
            }
        } finally {
            lock.unlock();
        }
        if (s == null) {
            overflow();
        } else {
            signal(notify);
        }
    }

    /** Enqueues an RMR bind completion. */
    void postRmrBind(Rmr rmr, long cookie, DtoCompletionStatus status, boolean notify) {
        lock.lock();
        Slot s;
        try {
            s = claim();
            if (s != null) {
                s.number = EventNumber.RMR_BIND_COMPLETION_EVENT;
                s.rmr = rmr;
                s.cookie = cookie;
                s.status = status;
                commit(s, notify);
            }
        } finally {
            lock.unlock();
        }
        if (s == null) {
            overflow();
        } else {
            signal(notify);
        }
    }

    /**
     * Enqueues a connection request.
     *
     * @return {@code false} when the queue (the backlog, PSP-03) is full; nothing is queued
     */
    boolean postCr(DatHandle sp, SocketAddress local, long connQual, ConnectionRequest cr) {
        lock.lock();
        Slot s;
        try {
            if (freed) {
                return false;
            }
            s = claim();
            if (s != null) {
                s.number = EventNumber.CONNECTION_REQUEST_EVENT;
                s.sp = sp;
                s.localAddress = local;
                s.connQual = connQual;
                s.cr = cr;
                commit(s, true);
            }
        } finally {
            lock.unlock();
        }
        if (s == null) {
            return false;
        }
        signal(true);
        return true;
    }

    /** Enqueues a connection event. */
    void postConnection(EventNumber number, Endpoint ep, byte[] privateData) {
        lock.lock();
        Slot s;
        try {
            s = claim();
            if (s != null) {
                s.number = number;
                s.ep = ep;
                s.privateData = privateData;
                commit(s, true);
            }
        } finally {
            lock.unlock();
        }
        if (s == null) {
            overflow();
        } else {
            signal(true);
        }
    }

    /**
     * Enqueues an asynchronous error.
     *
     * @return {@code false} when full (the event is lost; an async EVD cannot report its own overflow)
     */
    boolean postAsync(EventNumber number, DatHandle handle, int reason) {
        lock.lock();
        Slot s;
        try {
            s = claim();
            if (s != null) {
                s.number = number;
                s.handle = handle;
                s.reason = reason;
                commit(s, true);
            }
        } finally {
            lock.unlock();
        }
        if (s != null) {
            signal(true);
        }
        return s != null;
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
        Object pointer = event.softwarePointer();
        lock.lock();
        Slot s;
        try {
            s = claim();
            if (s == null) {
                throw Fail.of(DatReturnType.QUEUE_FULL, "EVD full");
            }
            s.number = EventNumber.SOFTWARE_EVENT;
            s.pointer = pointer;
            commit(s, true);
        } finally {
            lock.unlock();
        }
        signal(true);
    }

    // ------------------------------------------------------------------ consumers

    /** Copies the head slot out and removes it; call with the lock held and size &gt; 0. */
    private void take(DatEvent e) {
        Slot s = ring[head];
        e.clear();
        e.eventNumber(s.number).evd(this).ep(s.ep).userCookie(s.cookie).status(s.status).transferredLength(s.length)
                .rmr(s.rmr).spHandle(s.sp).localIaAddress(s.localAddress).connQual(s.connQual).cr(s.cr)
                .privateData(s.privateData).asyncHandle(s.handle).reason(s.reason).softwarePointer(s.pointer);
        if (s.notify) {
            notifying--;
        }
        s.clearRefs();
        if (++head == ring.length) {
            head = 0;
        }
        size--;
        count = size;
        overflowReported = false;
    }

    @Override
    public boolean dequeue(DatEvent event) {
        if (freed) {
            checkAlive();
        }
        if (waiter != null) {
            throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_WAITER, "a thread waits on this EVD");
        }
        if (count == 0) {
            return false;
        }
        lock.lock();
        try {
            checkAlive();
            if (waiter != null) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_WAITER, "a thread waits on this EVD");
            }
            if (size == 0) {
                return false;
            }
            take(event);
            return true;
        } finally {
            lock.unlock();
        }
    }

    private boolean ready(int threshold) {
        return notifying > 0 && count >= threshold;
    }

    @Override
    public boolean waitFor(int timeout, int threshold, DatEvent event) {
        checkAlive();
        if (event == null) {
            throw Fail.param(4, "no event to fill");
        }
        if (threshold <= 0 || threshold > ring.length) {
            throw Fail.param(3, "threshold " + threshold + " outside 1.." + ring.length + " (EVW-03/04)");
        }
        if (!waitable) {
            throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "EVD is unwaitable");
        }
        Thread me = Thread.currentThread();
        lock.lock();
        try {
            if (threshold > 1 && consumerNotified()) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                        "threshold > 1 on an EVD fed by UNSIGNALLED or SOLICITED_WAIT streams (EVW-13)");
            }
            if (waiter != null) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_WAITER, "another thread waits on this EVD");
            }
            if (notifying > 0 && size >= threshold) {
                take(event);
                event.nmore(size);
                return true;
            }
            if (timeout == 0) {
                event.nmore(size);
                return false;
            }
            waitThreshold = threshold;
            waiter = me;
        } finally {
            lock.unlock();
        }
        boolean infinite = timeout == io.jdat.Dat.TIMEOUT_INFINITE;
        long start = System.nanoTime();
        long limit = infinite ? Long.MAX_VALUE : Integer.toUnsignedLong(timeout) * 1000L;
        boolean interrupted = false;
        try {
            long spinEnd = Math.min(SPIN_NANOS, limit);
            while (!ready(threshold) && !freed && waitable && System.nanoTime() - start < spinEnd) {
                Thread.onSpinWait();
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
        } finally {
            lock.lock();
            try {
                waiter = null;
                if (freed) {
                    throw Fail.of(DatReturnType.ABORT, DatReturnSubtype.SUB_INTERRUPTED, "EVD destroyed during the wait");
                }
                if (!waitable) {
                    throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, "EVD set unwaitable during the wait");
                }
                if (notifying > 0 && size >= threshold) {
                    take(event);
                    event.nmore(size);
                    return true;
                }
                event.nmore(size);
                if (interrupted) {
                    throw Fail.of(DatReturnType.INTERRUPTED_CALL, DatReturnSubtype.SUB_INTERRUPTED, "thread interrupted");
                }
            } finally {
                lock.unlock();
            }
        }
        return false;
    }

    /** True when an EP stream with consumer-controlled notification feeds this EVD. */
    private boolean consumerNotified() {
        return epStreamFlags == CompletionFlags.UNSIGNALLED || epStreamFlags == CompletionFlags.SOLICITED_WAIT;
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
        checkAlive();
        Fail.checkMask(mask, EvdParam.FIELD_ALL, 2);
        lock.lock();
        try {
            int state = (enabled ? EvdParam.STATE_ENABLED : EvdParam.STATE_DISABLED)
                    | (waitable ? EvdParam.STATE_WAITABLE : EvdParam.STATE_UNWAITABLE);
            if (epStreamFlags == CompletionFlags.SOLICITED_WAIT) {
                state |= EvdParam.STATE_CONFIG_SOLICITED;
            } else if (epStreamFlags == CompletionFlags.EVD_THRESHOLD) {
                state |= EvdParam.STATE_CONFIG_THRESHOLD;
            } else {
                state |= EvdParam.STATE_CONFIG_NOTIFY;
            }
            return new EvdParam(ia, ring.length, state, cno, flags);
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
            if (size > evdMinQlen) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, size + " events queued (EVD-06)");
            }
            Slot[] n = newRing(evdMinQlen);
            for (int i = 0; i < size; i++) {
                Slot from = ring[(head + i) % ring.length];
                n[i] = from;
                ring[(head + i) % ring.length] = new Slot();
            }
            ring = n;
            head = 0;
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
            freed = true;
            c = cno;
            cno = null;
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
            if (freed) {
                return;
            }
            freed = true;
            c = cno;
            cno = null;
        } finally {
            lock.unlock();
        }
        wakeOnDestroy(c);
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
        return count;
    }
}
