package io.jdat.mem;

import io.jdat.DtoCompletionStatus;
import io.jdat.MemPriv;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.PassiveHandler;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.RemoteRegion;
import io.jdat.spi.WorkRequest;
import io.jdat.transport.DaemonTimer;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One {@code mem} connection: two {@link Side}s, each with the lock that serialises the bytes it sends.
 *
 * <p>A submitted work request executes at once, on the posting thread, under its side's lock (the
 * {@link Side}'s own monitor: a lock that is a separate object, such as a {@code ReentrantLock} and its
 * {@code Sync}, would add one or two cache lines to every send, which count when a thousand connections no
 * longer fit the caches; see docs/performance.md, "Scale"): the sender's
 * gather list is copied into the receiver's posted buffer, or RDMA copies straight between the two
 * registered segments after the target's core checked the access. A send that finds no posted receive
 * (receiver not ready) stays queued with everything behind it, in order, until the peer posts a receive
 * ({@link Channel#recvPosted}); after {@link #RNR_TIMEOUT_MILLIS} the request fails with
 * {@code DAT_DTO_ERR_RECEIVER_NOT_READY} and the connection breaks.
 *
 * <p>One lock per direction keeps a ping-pong's two threads off each other's lock. Closing takes both,
 * active side's first: afterwards no byte moves in either direction, which is what lets the core flush.
 * Nothing that holds one side's lock waits for the other's.
 */
final class MemConnection {
    /** Receiver-not-ready limit (system property {@code jdat.mem.rnrTimeoutMillis}). */
    static final long RNR_TIMEOUT_MILLIS = Long.getLong("jdat.mem.rnrTimeoutMillis", 2000L);
    private static final ScheduledExecutorService RNR_TIMER = DaemonTimer.create("jdat-mem-rnr");

    /**
     * One end of the connection. Its monitor ({@code synchronized (side)}, "the side's lock" below) serialises
     * everything this side sends: executing, queueing and closing its requests; fields are guarded by it unless
     * volatile.
     */
    final class Side implements Channel {
        final MemTransport transport;
        final long portQual;
        Side peer;
        volatile ChannelSink sink;
        final ArrayDeque<WorkRequest> pending = new ArrayDeque<>();
        /** Requests queued behind a receiver-not-ready send; read without the lock by the peer's recvPosted. */
        volatile int pendingCount;
        /** Requests completed from {@link #pending}; the RNR timer compares it to detect no progress. */
        long drained;
        /** An RNR check is scheduled for this side. */
        boolean rnrArmed;
        /** A request of this side failed and the connection is breaking: later ones are flushed (DSC-05). */
        boolean failed;
        boolean closed;
        /** How this side was closed ({@link Channel#CLOSE_DISCONNECT} etc.), once {@link #closed}. */
        int closeMode;
        final RemoteRegion region = new RemoteRegion();

        Side(MemTransport transport, long portQual) {
            this.transport = transport;
            this.portQual = portQual;
        }

        @Override
        public long localPortQual() {
            return portQual;
        }

        @Override
        public void submit(WorkRequest wr) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                if (pendingCount == 0 && execute(this, wr)) {
                    return;
                }
                pending.add(wr);
                pendingCount = pending.size();
                // A receive posted between the failed attempt and the volatile write above was not drained
                // by the peer's recvPosted (it read pendingCount == 0), so look once more. The peer
                // publishes the receive and then (after its EP lock's release, a volatile write) reads
                // pendingCount; this side writes pendingCount and then reads the receive slot: one of the
                // two sees the other, so no receive is missed.
                drain(this);
            }
        }

        @Override
        public void recvPosted() {
            Side from = peer;
            if (from.pendingCount == 0) {
                return;
            }
            synchronized (from) {
                drain(from);
            }
        }

        @Override
        public void close(int mode) {
            MemConnection.this.close(this, mode);
        }
    }

    final Side active;
    final Side passive;

    MemConnection(MemTransport activeTransport, long activePort, MemTransport passiveTransport, long passivePort) {
        active = new Side(activeTransport, activePort);
        passive = new Side(passiveTransport, passivePort);
        active.peer = passive;
        passive.peer = active;
    }

    /** Completes the handshake on the CM thread: the active side first, then the passive side. */
    void establish(ActiveHandler activeHandler, byte[] acceptData, PassiveHandler passiveHandler) {
        ChannelSink a = activeHandler.established(active, acceptData);
        if (a == null) {
            passiveHandler.acceptFailed(); // the requester timed out meanwhile (CRA-07)
            return;
        }
        active.sink = a;
        active.transport.connections.add(this);
        passive.transport.connections.add(this);
        ChannelSink p = passiveHandler.established(passive);
        boolean activeGone;
        int activeMode;
        synchronized (active) {
            if (p == null) {
                passive.closed = true;
            } else {
                passive.sink = p;
                drain(active); // sends posted by the active side before the passive side was ready
            }
            activeGone = active.closed;
            activeMode = active.closeMode;
        }
        if (p != null) {
            synchronized (passive) {
                drain(passive); // requests the passive side posted on seeing ESTABLISHED before its sink was stored
            }
        }
        if (p == null) {
            a.broken();
        } else if (activeGone) {
            // The active side closed before this side was set up, so close() could not notify it (DSC-17).
            if (activeMode == Channel.CLOSE_DISCONNECT) {
                p.remoteDisconnected();
            } else {
                p.broken();
            }
        }
    }

    /** Executes queued requests of {@code from} while the peer can take them (the monitor of {@code from} held). */
    private void drain(Side from) {
        while (!from.pending.isEmpty() && !from.closed) {
            WorkRequest wr = from.pending.peek();
            if (!execute(from, wr)) {
                break;
            }
            from.pending.poll();
            from.drained++;
            from.pendingCount = from.pending.size();
        }
        if (!from.pending.isEmpty()) {
            armRnrTimer(from);
        }
    }

    /**
     * Executes one request of {@code from} (the monitor of {@code from} held).
     *
     * @return {@code false} when it must wait for the peer (no receive posted, peer not set up yet)
     */
    private boolean execute(Side from, WorkRequest wr) {
        Side to = from.peer;
        ChannelSink self = from.sink;
        ChannelSink target = to.sink;
        if (self == null) {
            // Posted on seeing ESTABLISHED, before establish() stored this side's sink: wait for it.
            return false;
        }
        if (to.closed || from.failed) {
            self.requestCompleted(DtoCompletionStatus.ERR_FLUSHED, 0);
            return true;
        }
        if (target == null) {
            return false;
        }
        RecvBuffer taken = null;
        try {
            switch (wr.op()) {
                case SEND -> {
                    RecvBuffer b = target.takeRecv();
                    if (b == null) {
                        return false;
                    }
                    taken = b;
                    long len = wr.totalLength();
                    if (len > b.totalLength()) {
                        // RCV-05: the receiver reports a local length error; the connection breaks.
                        target.completeRecv(b, len, wr.solicited());
                        self.requestCompleted(DtoCompletionStatus.ERR_REMOTE_RESPONDER, 0);
                        breakConnection(from);
                        return true;
                    }
                    wr.gatherInto(b, 0);
                    taken = null;
                    target.completeRecv(b, len, wr.solicited());
                    self.requestCompleted(DtoCompletionStatus.SUCCESS, len);
                }
                case RDMA_WRITE, RDMA_READ -> {
                    boolean write = wr.op() == WorkRequest.Op.RDMA_WRITE;
                    long len = wr.remoteLength();
                    int st = target.resolveRemote(wr.remoteContext(), wr.remoteAddress(), len,
                            write ? MemPriv.REMOTE_WRITE : MemPriv.REMOTE_READ, from.region);
                    if (st == RemoteRegion.CLOSED) {
                        self.requestCompleted(DtoCompletionStatus.ERR_FLUSHED, 0);
                        return true;
                    }
                    if (st != RemoteRegion.OK) {
                        // RWR-09, LMF-04: checked at the target before any byte moved; the connection breaks.
                        self.requestCompleted(DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
                        breakConnection(from);
                        return true;
                    }
                    if (write) {
                        try {
                            wr.gatherInto(from.region.segment(), from.region.offset());
                        } finally {
                            target.placed(); // the hold resolveRemote took on the region (a withdrawal waits)
                        }
                    } else if (!readSource(target, wr, len, from.region)) {
                        // LMF-04: the source was withdrawn since the admission; no byte was read
                        self.requestCompleted(DtoCompletionStatus.ERR_REMOTE_ACCESS, 0);
                        breakConnection(from);
                        return true;
                    }
                    self.requestCompleted(DtoCompletionStatus.SUCCESS, len);
                }
                case RMR_BIND -> self.requestCompleted(DtoCompletionStatus.SUCCESS, 0);
                default -> throw new IllegalStateException("unknown op " + wr.op());
            }
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            // Registered memory whose arena the consumer closed: fail the request (and the receive it had
            // taken, so later receives still complete in order), break the connection.
            if (taken != null) {
                target.completeRecv(taken, -1, false);
            }
            self.requestCompleted(DtoCompletionStatus.ERR_TRANSPORT, 0);
            breakConnection(from);
        }
        return true;
    }

    /**
     * Copies the source of an admitted RDMA Read into the requester's sink, under the source's hold
     * ({@link ChannelSink#holdSource}): a withdrawal of the region returns only after the copy.
     *
     * @return false when the region was withdrawn since the admission (nothing copied)
     */
    private static boolean readSource(ChannelSink target, WorkRequest wr, long len, RemoteRegion source) {
        if (target.holdSource(wr.remoteContext(), wr.remoteAddress(), len, source) != RemoteRegion.OK) {
            return false;
        }
        try {
            wr.scatter(0, source.segment(), source.offset(), len);
        } finally {
            target.sourced();
        }
        return true;
    }

    /** Schedules one receiver-not-ready check for {@code side} unless one is pending ({@code side}'s monitor held). */
    private void armRnrTimer(Side side) {
        if (side.rnrArmed) {
            return;
        }
        side.rnrArmed = true;
        long mark = side.drained;
        RNR_TIMER.schedule(() -> rnrCheck(side, mark), RNR_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void rnrCheck(Side side, long mark) {
        synchronized (side) {
            side.rnrArmed = false;
            if (side.closed || side.pending.isEmpty()) {
                return;
            }
            if (side.drained != mark) {
                armRnrTimer(side); // progress since the check was armed: measure again from now
                return;
            }
            side.pending.poll();
            side.pendingCount = side.pending.size();
            side.sink.requestCompleted(DtoCompletionStatus.ERR_RECEIVER_NOT_READY, 0);
            breakConnection(side);
        }
    }

    /**
     * Breaks the connection from {@code side}'s end (the monitor of {@code side} held): later requests of that side
     * are flushed at once, and the core hears of it asynchronously (never from under the lock).
     */
    private void breakConnection(Side side) {
        side.failed = true;
        ChannelSink s = side.sink;
        if (s != null) {
            MemFabric.cm(s::broken);
        }
    }

    void close(Side side, int mode) {
        ChannelSink notify = null;
        synchronized (active) {
            synchronized (passive) {
                if (side.closed) {
                    return;
                }
                side.closed = true;
                side.closeMode = mode;
                side.pending.clear();
                side.pendingCount = 0;
                Side peer = side.peer;
                if (mode != Channel.CLOSE_SILENT && !peer.closed && peer.sink != null) {
                    notify = peer.sink;
                }
                if (peer.closed) {
                    active.transport.connections.remove(this);
                    passive.transport.connections.remove(this);
                }
            }
        }
        if (notify != null) {
            ChannelSink n = notify;
            MemFabric.cm(mode == Channel.CLOSE_DISCONNECT ? n::remoteDisconnected : n::broken);
        }
    }

    /** The IA of {@code t} closed abruptly: its end breaks without calling back into its core. */
    void abandon(MemTransport t) {
        close(active.transport == t ? active : passive, Channel.CLOSE_BREAK);
    }
}
