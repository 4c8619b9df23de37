package io.jdat.verbs;

import static io.jdat.verbs.VerbsLayouts.RECV_WR;
import static io.jdat.verbs.VerbsLayouts.RWR_NUM_SGE;
import static io.jdat.verbs.VerbsLayouts.RWR_SG_LIST;
import static io.jdat.verbs.VerbsLayouts.RWR_WR_ID;
import static io.jdat.verbs.VerbsLayouts.SGE;
import static io.jdat.verbs.VerbsLayouts.SRQ_ATTR;
import static io.jdat.verbs.VerbsLayouts.SRQ_INIT_ATTR;
import static io.jdat.verbs.VerbsLayouts.offset;
import static io.jdat.verbs.VerbsTransport.call;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.DeviceSrq;
import io.jdat.spi.RecvBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A DAT SRQ's device queue: an {@code ibv_srq} ({@code ibv_create_srq}) in the SRQ's PZ, shared by the queue
 * pairs of the EPs created with it ({@code ibv_qp_init_attr.srq}). Posted buffers go to it through the context's
 * {@code post_srq_recv} function pointer (the static inline {@code ibv_post_srq_recv} of {@code verbs.h}), one
 * pre-allocated native work request and SGE array per slot, so posting allocates nothing. A receive completion
 * on any of those queue pairs names the slot in its {@code wr_id} ({@link #SRQ_BIT}); the buffer goes back to
 * the core on the connection it arrived on ({@link DeviceSrq.Sink#completed}). DAT's low watermark is the
 * device's limit ({@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}, then {@code IBV_EVENT_SRQ_LIMIT_REACHED}).
 *
 * <p>{@link #lock} guards the slots; it is taken before the core's SRQ lock ({@link DeviceSrq.Sink#takeForDevice}
 * is called under it), and the core never calls in here while holding its own, except
 * {@link #armLowWatermark}, which takes no lock.
 */
final class VerbsSrq implements DeviceSrq {
    /** Set in the wr_id of an SRQ receive; the low bits are the slot. */
    static final long SRQ_BIT = 1L << 62;

    /** A receiver that takes nothing: a buffer completed through it goes back to the SRQ. */
    private static final ChannelSink NOT_TAKING = new ChannelSink() {
        @Override
        public RecvBuffer takeRecv() {
            return null;
        }

        @Override
        public void completeRecv(RecvBuffer buffer, long length, boolean solicited) {
        }

        @Override
        public boolean isAccepting() {
            return false;
        }

        @Override
        public int resolveRemote(int rmrContext, long address, long length, int privilege,
                io.jdat.spi.RemoteRegion out) {
            return io.jdat.spi.RemoteRegion.CLOSED;
        }

        @Override
        public void placed() {
        }

        @Override
        public int holdSource(int rmrContext, long address, long length, io.jdat.spi.RemoteRegion out) {
            return io.jdat.spi.RemoteRegion.ACCESS_ERROR;
        }

        @Override
        public void sourced() {
        }

        @Override
        public void requestCompleted(DtoCompletionStatus status, long length) {
        }

        @Override
        public void remoteDisconnected() {
        }

        @Override
        public void broken() {
        }
    };

    private final VerbsTransport t;
    private final DeviceSrq.Sink sink;
    private final Arena arena = Arena.ofShared();
    /** The {@code struct ibv_srq}. */
    final MemorySegment srq;
    private final int sge;
    private final MemorySegment bad;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private int depth;
    private MemorySegment wrs;
    private MemorySegment sges;
    private RecvBuffer[] bufs;
    private int[] free;
    private int freeCount;
    private volatile boolean closed;
    private boolean destroyed;
    /** A refused post is handing its buffer back (lock): no post until it returns. */
    private boolean refused;

    private VerbsSrq(VerbsTransport t, DeviceSrq.Sink sink, MemorySegment srq, int depth, int sge) {
        this.t = t;
        this.sink = sink;
        this.srq = srq;
        this.sge = sge;
        this.bad = arena.allocate(ADDRESS);
        grow(depth);
    }

    /** {@code dat_srq_create}: {@code ibv_create_srq} in {@code pd}, then {@code ibv_query_srq} for its real size. */
    static VerbsSrq create(VerbsTransport t, MemorySegment pd, int maxRecvs, int maxRecvIov, DeviceSrq.Sink sink) {
        if (t.maxSrq <= 0) {
            throw new DatException(DatReturnType.MODEL_NOT_SUPPORTED, "the device " + t.deviceName
                    + " has no shared receive queues (max_srq 0)");
        }
        int sge = Math.max(1, maxRecvIov);
        if (maxRecvs > t.maxSrqWr || sge > t.maxSrqSge) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                    "max_recv_dtos " + maxRecvs + " / max_recv_iov " + maxRecvIov + " exceed " + t.deviceName
                            + "'s max_srq_wr " + t.maxSrqWr + " / max_srq_sge " + t.maxSrqSge);
        }
        MemorySegment s;
        int depth;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = a.allocate(SRQ_INIT_ATTR);
            long at = offset(SRQ_INIT_ATTR, "attr");
            init.set(JAVA_INT, at + offset(SRQ_ATTR, "max_wr"), maxRecvs);
            init.set(JAVA_INT, at + offset(SRQ_ATTR, "max_sge"), sge);
            s = call(() -> (MemorySegment) t.v.createSrq.invokeExact(pd, init));
            if (s.equals(MemorySegment.NULL)) {
                throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                        "ibv_create_srq of " + maxRecvs + " entries failed on " + t.deviceName + " (errno "
                                + t.v.errno() + ")");
            }
            MemorySegment attr = a.allocate(SRQ_ATTR);
            MemorySegment sf = s;
            int rc = call(() -> (int) t.v.querySrq.invokeExact(sf, attr));
            depth = rc == 0 ? Math.max(maxRecvs, attr.get(JAVA_INT, offset(SRQ_ATTR, "max_wr"))) : maxRecvs;
        }
        VerbsSrq q = new VerbsSrq(t, sink, s, depth, sge);
        t.srqs.put(s.address(), q);
        return q;
    }

    /** Adds slots up to {@code n} (lock held, or the constructor). */
    private void grow(int n) {
        MemorySegment w = arena.allocate(RECV_WR, n);
        MemorySegment g = arena.allocate(SGE, (long) n * sge);
        for (int i = 0; i < n; i++) {
            w.set(ADDRESS, i * RECV_WR.byteSize() + RWR_SG_LIST, g.asSlice((long) i * sge * SGE.byteSize()));
            w.set(JAVA_LONG, i * RECV_WR.byteSize() + RWR_WR_ID, SRQ_BIT | i);
        }
        RecvBuffer[] b = new RecvBuffer[n];
        int[] f = new int[n];
        int count = 0;
        for (int i = n - 1; i >= depth; i--) {
            f[count++] = i;
        }
        if (bufs != null) {
            System.arraycopy(bufs, 0, b, 0, depth);
            System.arraycopy(free, 0, f, count, freeCount);
            count += freeCount;
        }
        wrs = w;
        sges = g;
        bufs = b;
        free = f;
        freeCount = count;
        depth = n;
    }

    @Override
    public void recvPosted() {
        pump();
    }

    /** Posts every buffer the core has waiting, while slots are free. */
    private void pump() {
        lock.lock();
        try {
            while (freeCount > 0 && !closed && !refused) {
                RecvBuffer b = sink.takeForDevice();
                if (b == null) {
                    return;
                }
                int slot = free[--freeCount];
                bufs[slot] = b;
                // The core admits at most max_recv_iov <= sge entries.
                int count = Math.max(0, VerbsSges.fill(sges, (long) slot * sge * SGE.byteSize(), b, sge,
                        Long.MAX_VALUE));
                long base = slot * RECV_WR.byteSize();
                wrs.set(JAVA_INT, base + RWR_NUM_SGE, count);
                int rc;
                try {
                    rc = (int) Verbs.POST_SRQ_RECV.invokeExact(t.postSrqRecvFn, srq.address(), wrs.address() + base,
                            bad.address());
                } catch (Throwable e) {
                    rc = -1;
                }
                if (rc != 0) {
                    // Not posted: the buffer stays with the core (posted, first in line) and no more go now.
                    bufs[slot] = null;
                    free[freeCount++] = slot;
                    refused = true;
                    lock.unlock();
                    try {
                        sink.completed(b, NOT_TAKING, 0);
                    } finally {
                        lock.lock();
                        refused = false;
                    }
                    System.getLogger("io.jdat.verbs").log(System.Logger.Level.WARNING,
                            "ibv_post_srq_recv failed on " + t.deviceName + ": " + rc);
                    return;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A receive completion of one of this queue's work requests on the connection of {@code ep} (the IA's poll
     * lock held).
     *
     * @param wrId   the completion's wr_id
     * @param status its {@code ibv_wc_status}
     * @param length its byte_len
     * @param ep     the receiving connection's EP, or {@code null} when the connection is gone
     * @return false when {@code wrId} names no slot of this queue holding a buffer
     */
    boolean completed(long wrId, int status, long length, ChannelSink ep) {
        long slot = wrId & ~SRQ_BIT;
        RecvBuffer b;
        lock.lock();
        try {
            if ((wrId & SRQ_BIT) == 0 || slot < 0 || slot >= depth || bufs[(int) slot] == null) {
                return false;
            }
            b = bufs[(int) slot];
            bufs[(int) slot] = null;
            free[freeCount++] = (int) slot;
        } finally {
            lock.unlock();
        }
        if (ep == null || status == VerbsStatus.WR_FLUSH_ERR) {
            sink.completed(b, NOT_TAKING, 0); // stays posted on the DAT SRQ
        } else if (status == VerbsStatus.SUCCESS) {
            sink.completed(b, ep, length);
        } else {
            // A message too long for the buffer (see VerbsConnection.completeRecv); the caller breaks the connection.
            sink.completed(b, ep, b.totalLength() + 1);
        }
        pump();
        return true;
    }

    @Override
    public void resize(int size) {
        if (size > t.maxSrqWr) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                    size + " entries exceed " + t.deviceName + "'s max_srq_wr " + t.maxSrqWr);
        }
        lock.lock();
        try {
            if (size <= depth) {
                return;
            }
            if (modify("max_wr", VerbsLayouts.IBV_SRQ_MAX_WR, size) != 0) {
                throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                        "ibv_modify_srq(IBV_SRQ_MAX_WR " + size + ") failed on " + t.deviceName + " (errno "
                                + t.v.errno() + "; siw cannot resize an SRQ)");
            }
            grow(size);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void armLowWatermark(int lw) {
        if (closed) {
            return;
        }
        if (modify("srq_limit", VerbsLayouts.IBV_SRQ_LIMIT, lw) != 0) {
            System.getLogger("io.jdat.verbs").log(System.Logger.Level.WARNING, "ibv_modify_srq(IBV_SRQ_LIMIT "
                    + lw + ") failed on " + t.deviceName + " (errno " + t.v.errno() + ")");
        }
    }

    /**
     * {@code ibv_modify_srq} of one field of {@code struct ibv_srq_attr}.
     *
     * @param field the field's name in {@code SRQ_ATTR}
     * @param mask  its {@code enum ibv_srq_attr_mask} bit
     * @param value the new value
     * @return the call's result: 0, or an errno value ({@code t.v.errno()} has it too)
     */
    private int modify(String field, int mask, int value) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = a.allocate(SRQ_ATTR);
            attr.set(JAVA_INT, offset(SRQ_ATTR, field), value);
            return call(() -> (int) t.v.modifySrq.invokeExact(srq, attr, mask));
        }
    }

    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED} (progress thread). */
    void limitReached() {
        if (!closed) {
            sink.lowWatermark();
        }
    }

    @Override
    public void close() {
        closed = true;
        destroy();
    }

    /**
     * {@code ibv_destroy_srq} once the DAT SRQ is freed; while a queue pair being torn down still uses it the
     * device refuses (EBUSY) and it is tried again after each queue pair is destroyed ({@link #retryClosed}).
     *
     * @return whether it is destroyed
     */
    private boolean destroy() {
        lock.lock();
        try {
            if (destroyed) {
                return true;
            }
            if (call(() -> (int) t.v.destroySrq.invokeExact(srq)) != 0) {
                return false;
            }
            destroyed = true;
            t.srqs.remove(srq.address());
            arena.close();
            VerbsDomain.retryClosed(t); // its PZ may have been freed while it held the PD
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Destroys the freed SRQs that queue pairs held (after a queue pair is destroyed). */
    static void retryClosed(VerbsTransport t) {
        for (VerbsSrq q : t.srqs.values()) {
            if (q.closed) {
                q.destroy();
            }
        }
    }

    /** Destroys every SRQ still open when the IA closes (its queue pairs are gone). */
    static void closeAll(VerbsTransport t) {
        for (VerbsSrq q : Map.copyOf(t.srqs).values()) {
            q.closed = true;
            q.destroy();
        }
    }
}
