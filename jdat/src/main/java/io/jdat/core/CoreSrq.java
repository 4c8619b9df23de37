package io.jdat.core;

import io.jdat.AsyncReason;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.ProtectionZone;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.SrqParam;
import io.jdat.SrqState;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.ConnectionSet;
import io.jdat.spi.DeviceSrq;
import io.jdat.spi.RecvBuffer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code DAT_SRQ_HANDLE}: receive buffers shared by the EPs created with {@code dat_ep_create_with_srq}.
 *
 * <p><b>Entries.</b> Every posted buffer is an {@link Entry}, taken from a pool of {@code max_recv_dtos}
 * entries allocated when the SRQ is created or resized, so posting allocates nothing. An entry is
 * <em>available</em> while it sits on the SRQ ({@link #avail}, oldest first) and <em>held</em> once an EP
 * took it for an incoming message ({@link Held}, one list per EP). When the EP completes it (or flushes or
 * discards it) the entry object goes back to the pool at once, but the SRQ entry stays
 * <em>outstanding</em> until the consumer dequeues the completion: the event slot carries this SRQ
 * ({@link EventRing.Reap}) and the dequeue, or the loss of the event, calls {@link #reaped()}. So
 * {@code outstanding} counts posted entries that are on the SRQ, held by EPs, or completed and not reaped
 * (the {@code dat_srq_query} example), and a post needs {@code outstanding < max_recv_dtos}; since entry
 * objects return to the pool no later than their entries stop being outstanding, the pool is never empty
 * then.
 *
 * <p><b>Locking.</b> {@link #lock} guards the queue, the pool, the watermark and the EP set; posts (any
 * thread) and takes (the receive paths of several connections at once) hold it briefly. It sits between an
 * EP's state lock and the EVD locks in the core's order; nothing calls out while holding it: the watermark
 * event and the wake-up of the attached EPs' transports happen after it is released. {@link #outstanding}
 * is decremented without the lock by the consumers that dequeue completions, so only posts (under the lock)
 * increase it and a check under the lock stays true.
 *
 * <p><b>On a device</b> ({@link #device}, a transport with {@link io.jdat.spi.DeviceMemory}): the device keeps
 * the posted buffers ({@code ibv_srq}) and picks one per incoming message, so an entry leaves {@link #avail}
 * when the device takes it ({@link DeviceSide#takeForDevice()}) and stays <em>available</em> (counted in
 * {@link #onDevice}) until the device reports a message in it; the core then hands exactly that entry to the
 * receiving EP ({@link DeviceSide#completed}: the EP's ordinary take, which finds it in {@link #designated},
 * then its completion), so EPs see the same rules as on a software transport. The low watermark is the
 * device's limit event ({@code IBV_EVENT_SRQ_LIMIT_REACHED}), armed by {@link #setLw}.
 */
public final class CoreSrq extends CoreObject implements SharedReceiveQueue, EventRing.Reap {
    /** {@code max_recv_per_srq}. */
    static final int MAX_RECV = 1 << 16;
    private static final CoreEp[] NO_EPS = new CoreEp[0];
    private static final VarHandle OUTSTANDING = FieldHandles.find(MethodHandles.lookup(), CoreSrq.class,
            "outstanding", int.class);

    /** A posted buffer: the validated scatter list and the consumer's cookie. */
    static final class Entry extends RecvBuffer {
        long cookie;
        /** The next entry held by the same EP (see {@link Held}). */
        Entry next;

        Entry(int iov) {
            super(iov);
        }
    }

    /**
     * The entries one EP has taken and not completed, oldest first: appended by its transport's receive path,
     * removed by it on completion and by a flush or discard under the EP's lock once the transport stopped
     * (the same single-writer discipline as {@link ReceiveQueue}). No allocation: entries link themselves.
     */
    static final class Held {
        /** The SRQ. */
        final CoreSrq queue;
        private Entry first;
        private Entry last;
        /** Entries held: written by the receive path, read by queries. */
        private volatile int count;

        Held(CoreSrq queue) {
            this.queue = queue;
        }

        void add(Entry e) {
            e.next = null;
            if (last == null) {
                first = e;
            } else {
                last.next = e;
            }
            last = e;
            count = count + 1;
        }

        /** Removes {@code buffer} (normally the oldest) and returns it, or {@code null} when it is not held. */
        Entry remove(RecvBuffer buffer) {
            Entry prev = null;
            for (Entry e = first; e != null; prev = e, e = e.next) {
                if (e == buffer) {
                    if (prev == null) {
                        first = e.next;
                    } else {
                        prev.next = e.next;
                    }
                    if (last == e) {
                        last = prev;
                    }
                    e.next = null;
                    count = count - 1;
                    return e;
                }
            }
            return null;
        }

        int held() {
            return count;
        }

        /** What a flush or discard does with each entry, oldest first. */
        @FunctionalInterface
        interface Visitor {
            void visit(Entry e);
        }

        /** Empties the list through {@code visitor}, oldest first. */
        void drain(Visitor visitor) {
            Entry e = first;
            first = null;
            last = null;
            count = 0;
            while (e != null) {
                Entry n = e.next;
                e.next = null;
                visitor.visit(e);
                e = n;
            }
        }
    }

    final CorePz pz;
    private final int maxIov;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private int capacity;
    private int lowWatermark;
    private boolean lwArmed;
    /** Available entries, a ring of {@link #capacity} slots from {@link #availHead}. */
    private Entry[] avail;
    private int availHead;
    private int availCount;
    /**
     * Unused entry objects: a stack. The SRQ owns exactly {@link #capacity} entry objects: these, the
     * available ones and the ones EPs hold.
     */
    private Entry[] pool;
    private int poolCount;
    /** Validation target of a post that is refused. */
    private final Entry scratch;
    /** The attached EPs, woken after each post; changed under {@code lock}, read without it. */
    private final ConnectionSet<CoreEp> eps = new ConnectionSet<>(NO_EPS);
    /** Where the next post starts waking EPs (lock): each EP held back gets the first chance in turn. */
    private int wakeFrom;
    /** Posted entries not yet reaped; decremented without the lock by {@link #reaped()}. */
    private volatile int outstanding;
    /** The device's queue, or {@code null} when the core keeps the entries itself. */
    final DeviceSrq device;
    /** Entries the device holds, not yet reported (lock). */
    private int onDevice;
    /** The entry {@link #take()} gives the EP that {@link DeviceSide#completed} completes it on (lock). */
    private Entry designated;
    /** One device completion handed to an EP at a time. */
    private final ReentrantLock handoff = new ReentrantLock();

    private CoreSrq(CoreIa ia, CorePz pz, int capacity, int maxIov, int lowWatermark) {
        super(ia, HandleType.SRQ, DatReturnSubtype.INVALID_HANDLE_SRQ);
        this.pz = pz;
        this.device = pz.domain == null ? null : pz.domain.createSrq(capacity, maxIov, new DeviceSide());
        this.maxIov = maxIov;
        this.capacity = capacity;
        this.lowWatermark = lowWatermark;
        avail = new Entry[capacity];
        pool = new Entry[capacity];
        for (int i = 0; i < capacity; i++) {
            pool[i] = new Entry(maxIov);
        }
        poolCount = capacity;
        scratch = new Entry(maxIov);
    }

    /** {@code dat_srq_create} (SRQ-13..20, AMB-26): validates, then creates; the caller registers it. */
    static CoreSrq create(CoreIa ia, ProtectionZone pzh, SrqAttr a) {
        CorePz pz = Core.pzArg(pzh, ia, false);
        if (a == null) {
            throw Fail.param(3, "no SRQ attributes");
        }
        if (a.maxRecvDtos() <= 0 || a.maxRecvDtos() > MAX_RECV) {
            throw Fail.param(3, "max_recv_dtos " + a.maxRecvDtos() + " outside 1.." + MAX_RECV);
        }
        if (a.maxRecvIov() < 0 || a.maxRecvIov() > CoreIa.MAX_IOV) {
            throw Fail.param(3, "max_recv_iov " + a.maxRecvIov() + " outside 0.." + CoreIa.MAX_IOV);
        }
        if (a.lowWatermark() < 0 || a.lowWatermark() > a.maxRecvDtos()) {
            throw Fail.param(3, "low_watermark " + a.lowWatermark() + " outside 0..max_recv_dtos (AMB-26)");
        }
        CoreSrq srq = new CoreSrq(ia, pz, a.maxRecvDtos(), a.maxRecvIov(), a.lowWatermark());
        pz.addUser();
        return srq;
    }

    // ================================================================== consumer calls

    @Override
    public void postRecv(int n, LmrTriplet[] iov, long cookie) {
        if (freed) {
            checkAlive();
        }
        int from;
        lock.lock();
        try {
            checkAlive();
            boolean full = outstanding >= capacity || poolCount == 0;
            Entry e = full ? scratch : pool[poolCount - 1];
            // SPR-09: receive buffers are checked against the SRQ's PZ, with local write access (AMB-11).
            ia.memory.resolveLocal(e, n, iov, MemPriv.LOCAL_WRITE, maxIov, 3, pz);
            if (full) {
                throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                        "max_recv_dtos " + capacity + " entries outstanding");
            }
            pool[--poolCount] = null;
            e.cookie = cookie;
            avail[(availHead + availCount) % capacity] = e;
            availCount++;
            OUTSTANDING.getAndAdd(this, 1);
            from = wakeFrom++;
        } finally {
            lock.unlock();
        }
        if (device != null) {
            device.recvPosted(); // the device takes the entry (outside the lock: it calls takeForDevice)
            return;
        }
        // Senders held back for lack of a buffer may go on (outside the lock: the transport takes its own).
        // Starting at a different EP each time keeps one busy connection from starving the others.
        CoreEp[] a = eps.snapshot();
        int count = a.length;
        if (count > 0) {
            int first = Math.floorMod(from, count);
            for (int i = 0; i < count; i++) {
                a[(first + i) % count].srqRecvPosted();
            }
        }
    }

    @Override
    public SrqParam query(long mask) {
        checkAliveAndMask(mask, SrqParam.FIELD_ALL);
        lock.lock();
        try {
            return new SrqParam(ia, SrqState.OPERATIONAL, pz, capacity, maxIov, lowWatermark, availCount + onDevice,
                    outstanding);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resize(int size) {
        checkAlive();
        if (size <= 0 || size > MAX_RECV) {
            throw Fail.param(2, "srq_max_recv_dto " + size + " outside 1.." + MAX_RECV + " (SRZ-05)");
        }
        if (device != null) {
            int cap;
            lock.lock();
            try {
                cap = capacity;
            } finally {
                lock.unlock();
            }
            if (size > cap) {
                device.resize(size); // the device's queue first (a larger one is harmless if the core refuses)
            }
        }
        lock.lock();
        try {
            checkAlive();
            int out = outstanding;
            if (size < out) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, out + " entries are outstanding (SRZ-02)");
            }
            if (size < lowWatermark) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_SRQ_OPERATIONAL, "below the low watermark "
                        + lowWatermark + " (SRZ-03, AMB-25)");
            }
            if (size == capacity) {
                return;
            }
            // SRZ-01: the available entries move in order; held ones stay with their EPs.
            Entry[] a = new Entry[size];
            for (int i = 0; i < availCount; i++) {
                a[i] = avail[(availHead + i) % capacity];
            }
            // Entry objects in use (available or held) <= outstanding <= size: the pool keeps the rest.
            int inUse = capacity - poolCount;
            int want = size - inUse;
            Entry[] p = new Entry[size];
            int keep = Math.min(poolCount, want);
            System.arraycopy(pool, 0, p, 0, keep);
            for (int i = keep; i < want; i++) {
                p[i] = new Entry(maxIov);
            }
            pool = p;
            poolCount = want;
            avail = a;
            availHead = 0;
            capacity = size;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setLw(int lw) {
        checkAlive();
        boolean fire;
        lock.lock();
        try {
            checkAlive();
            if (lw < 0 || lw > capacity) {
                throw Fail.param(2, "low_watermark " + lw + " outside 0.." + capacity + " (SLW-04)");
            }
            lowWatermark = lw;
            lwArmed = lw != io.jdat.Dat.SRQ_LW_DEFAULT;
            // SLW-03, AMB-24: fires at once only when the available count is already below the new mark.
            fire = lwArmed && availCount + onDevice < lw;
            if (fire) {
                lwArmed = false;
            }
            if (device != null) {
                // Under the lock, so that arms are applied in order; the device calls nothing back here.
                device.armLowWatermark(lwArmed ? lw : 0);
            }
        } finally {
            lock.unlock();
        }
        if (fire) {
            fireLowWatermark();
        }
    }

    /** SLW-05, AMB-23: the one-shot low watermark event on the IA's async EVD (no lock held). */
    private void fireLowWatermark() {
        ia.asyncError(EventNumber.ASYNC_WATERMARK_EVENT, this, AsyncReason.SRQ_LOW_WATERMARK_EVENT, null);
    }

    @Override
    public void free() {
        lock.lock();
        try {
            markFreedUnlessUsed(eps.snapshot().length, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                    " EP(s) use this SRQ (SRF-01)");
        } finally {
            lock.unlock();
        }
        if (device != null) {
            device.close();
        }
        pz.removeUser();
        ia.unregister(this);
    }

    @Override
    void destroy() {
        lock.lock();
        try {
            if (!markFreedOnce()) {
                return;
            }
        } finally {
            lock.unlock();
        }
        if (device != null) {
            device.close();
        }
        pz.removeUser();
    }

    // ================================================================== EPs

    /** {@code dat_ep_create_with_srq}: counts the EP as a user; fails when the SRQ was freed meanwhile. */
    void attach(CoreEp ep) {
        lock.lock();
        try {
            checkAlive();
            eps.add(ep);
        } finally {
            lock.unlock();
        }
    }

    /** The EP was freed: it no longer uses the SRQ. */
    void detach(CoreEp ep) {
        lock.lock();
        try {
            eps.remove(ep);
        } finally {
            lock.unlock();
        }
    }

    /**
     * An attached EP's receive path takes the oldest available entry for an incoming message (SPR-02), or
     * {@code null} when none is available (SRQ-19). Fires the armed low watermark the first time the
     * available count drops below it (SLW-01).
     */
    Entry take() {
        Entry e;
        boolean fire = false;
        lock.lock();
        try {
            if (device != null) {
                e = designated; // only the entry the device filled for this EP (DeviceSide.completed)
                designated = null;
                return e;
            }
            if (availCount == 0) {
                return null;
            }
            e = avail[availHead];
            avail[availHead] = null;
            availHead = (availHead + 1) % capacity;
            availCount--;
            if (lwArmed && availCount < lowWatermark) {
                lwArmed = false;
                fire = true;
            }
        } finally {
            lock.unlock();
        }
        if (fire) {
            fireLowWatermark();
        }
        return e;
    }

    /** Returns an entry object that an EP completed, flushed or discarded to the pool; the entry stays outstanding. */
    void recycle(Entry e) {
        lock.lock();
        try {
            pool[poolCount++] = e;
        } finally {
            lock.unlock();
        }
    }

    /** The completion of one of this SRQ's entries was dequeued or lost: the entry is free for a new post. */
    @Override
    public void reaped() {
        OUTSTANDING.getAndAdd(this, -1);
    }

    // ================================================================== the device's side

    /** What the device's queue calls: the core keeps the entries' order, the EPs' view and the watermark. */
    private final class DeviceSide implements DeviceSrq.Sink {
        @Override
        public RecvBuffer takeForDevice() {
            lock.lock();
            try {
                if (availCount == 0 || freed) {
                    return null;
                }
                Entry e = avail[availHead];
                avail[availHead] = null;
                availHead = (availHead + 1) % capacity;
                availCount--;
                onDevice++;
                return e;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void completed(RecvBuffer buffer, ChannelSink endpoint, long length) {
            Entry e = (Entry) buffer;
            boolean again = false;
            handoff.lock();
            try {
                lock.lock();
                try {
                    onDevice--;
                    designated = e;
                } finally {
                    lock.unlock();
                }
                // The EP takes it as any SRQ buffer (its watermarks, its held list), then completes it.
                if (endpoint.takeRecv() == e) {
                    endpoint.completeRecv(e, length, false);
                } else {
                    // The EP stopped taking messages: the entry stays posted, first in line.
                    lock.lock();
                    try {
                        designated = null;
                        availHead = (availHead - 1 + capacity) % capacity;
                        avail[availHead] = e;
                        availCount++;
                        again = true;
                    } finally {
                        lock.unlock();
                    }
                }
            } finally {
                handoff.unlock();
            }
            if (again) {
                device.recvPosted();
            }
        }

        @Override
        public void lowWatermark() {
            boolean fire;
            lock.lock();
            try {
                fire = lwArmed;
                lwArmed = false;
            } finally {
                lock.unlock();
            }
            if (fire) {
                fireLowWatermark();
            }
        }
    }
}
