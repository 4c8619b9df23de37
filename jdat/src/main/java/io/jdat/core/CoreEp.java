package io.jdat.core;

import static io.jdat.core.EpStateMachine.State.ACTIVE_CONNECTION_PENDING;
import static io.jdat.core.EpStateMachine.State.COMPLETION_PENDING;
import static io.jdat.core.EpStateMachine.State.CONNECTED;
import static io.jdat.core.EpStateMachine.State.DISCONNECTED;
import static io.jdat.core.EpStateMachine.State.DISCONNECT_PENDING;
import static io.jdat.core.EpStateMachine.State.PASSIVE_CONNECTION_PENDING;
import static io.jdat.core.EpStateMachine.State.RESERVED;
import static io.jdat.core.EpStateMachine.State.TENTATIVE_CONNECTION_PENDING;
import static io.jdat.core.EpStateMachine.State.UNCONNECTED;

import io.jdat.AsyncReason;
import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.DtoCounters;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.HandleType;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.ServiceType;
import io.jdat.SharedReceiveQueue;
import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.EndpointResources;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.RemoteRegion;
import io.jdat.spi.Transport;
import io.jdat.spi.WorkRequest;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code DAT_EP_HANDLE}: the Endpoint the consumer holds, and the data path ({@link ChannelSink}) its
 * transport delivers to. It owns the EP's configuration and its queues and delegates the rest: the state
 * machine of API.md §7 to its {@link EpStateMachine}, the connection side (connect, accept, disconnect,
 * establishment) to its {@link EpConnection}, requests to its {@link RequestQueue} and receives to its
 * {@link ReceiveQueue} (or its SRQ).
 *
 * <p><b>Locks.</b> {@link #txLock} serialises posts of send, RDMA and bind, so that they reach the
 * transport in the order they were accepted; the transitions that affect posting (connect, accept, disconnect,
 * reset, free, entering DISCONNECTED) take it too, so no post interleaves with
 * one. {@link #lock} guards the state, the configuration and receive posting; it is held only briefly
 * and never while calling into a transport. The transport's receive path and its completions take neither
 * lock (see {@link ReceiveQueue} and {@link RequestQueue}); they read the volatile state
 * ({@link EpStateMachine}).
 *
 * <p><b>Queues.</b> Slots are allocated when the EP is created or resized, so posting allocates nothing.
 */
public final class CoreEp extends CoreObject implements Endpoint, ChannelSink {
    final ReentrantLock txLock = new ReentrantLock();
    final ReentrantLock lock = new ReentrantLock();
    /** The EP's state: assigned only by its transitions. */
    final EpStateMachine sm;
    /** The connection side: addresses, the attempt, establishment and disconnect. */
    final EpConnection connection;
    final boolean providerCreated;

    // Configuration (guarded by lock).
    private EpAttr attr;
    private volatile CorePz pz;
    private CoreEvd recvEvd;
    private volatile CoreEvd requestEvd;
    private CoreEvd connectEvd;

    /** Set under lock from entering D until the flush that follows has run (RST-06 ordering). */
    boolean flushPending;
    /** The receive queue: posted under lock, taken and completed by the transport without it. */
    private volatile ReceiveQueue recvQueue;
    /**
     * The request queue: posted under txLock, completed by the transport without locks. Replaced only while
     * no channel exists (create, modify before connecting); the channel's publication orders it.
     */
    private RequestQueue requests;
    /** Validation target of a receive post that is flushed at once or refused (lock). */
    private RecvBuffer recvScratch;

    /** The established connection's channel (set by {@link EpConnection} under lock; read by the post path under txLock). */
    volatile Channel channel;
    private int softHw = Dat.WATERMARK_INFINITE;
    private int hardHw = Dat.WATERMARK_INFINITE;
    private boolean softFired;
    /**
     * An EP made by {@code dat_ep_create_with_srq}: its SRQ ({@code srqHeld.queue}, for the EP's whole life,
     * ECS-06) and the SRQ entries it has taken and not completed; {@code null} for other EPs. One field, so
     * that the EP object keeps its size and layout.
     */
    private CoreSrq.Held srqHeld;
    /** The DTO counters ({@code Endpoint.counters()}); each group of fields has one writer, see there. */
    final EpCounters counters = new EpCounters();
    /**
     * The context of the incoming RDMA Write the transport is placing, 0 when none ({@link Withdrawal}): written
     * by the one thread in the connection's receive path, read by a withdrawal.
     */
    @SuppressWarnings("unused") // through PLACING
    private volatile int placing;
    private static final VarHandle PLACING = FieldHandles.find(MethodHandles.lookup(), CoreEp.class, "placing",
            int.class);
    /**
     * The context of the incoming RDMA Read's source the transport is reading, 0 when none ({@link Withdrawal}):
     * written by the one thread that serves the connection's incoming Reads ({@link #holdSource}), read by a
     * withdrawal.
     */
    @SuppressWarnings("unused") // through SOURCING
    private volatile int sourcing;
    private static final VarHandle SOURCING = FieldHandles.find(MethodHandles.lookup(), CoreEp.class, "sourcing",
            int.class);

    private CoreEp(CoreIa ia, boolean providerCreated, EpStateMachine sm) {
        super(ia, HandleType.EP, DatReturnSubtype.INVALID_HANDLE_EP);
        this.providerCreated = providerCreated;
        this.sm = sm;
        this.connection = new EpConnection(this, sm);
    }

    // ================================================================== creation

    static CoreEp create(CoreIa ia, ProtectionZone pzh, EventDispatcher recv, EventDispatcher req,
            EventDispatcher conn, EpAttr requested) {
        return create(ia, pzh, recv, req, conn, requested, ATTR_ARG);
    }

    /** The C position of {@code dat_ep_create}'s attributes argument (the DAT_INVALID_PARAMETER it names). */
    private static final int ATTR_ARG = 6;
    /** The same for {@code dat_ep_create_with_srq}: the SRQ handle comes before the attributes. */
    private static final int ATTR_ARG_WITH_SRQ = 7;

    /** {@link #create} with the C position of the attributes argument ({@link #ATTR_ARG_WITH_SRQ}: an SRQ EP). */
    private static CoreEp create(CoreIa ia, ProtectionZone pzh, EventDispatcher recv, EventDispatcher req,
            EventDispatcher conn, EpAttr requested, int attrArg) {
        CorePz pz = Core.pzArg(pzh, ia, true);
        CoreEvd r = Core.evdArg(recv, ia, DatReturnSubtype.INVALID_HANDLE_EVD_RECV);
        CoreEvd q = Core.evdArg(req, ia, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST);
        CoreEvd c = Core.evdArg(conn, ia, DatReturnSubtype.INVALID_HANDLE_EVD_CONN);
        EpAttr a = requested == null ? ia.defaultEpAttr() : requested.copy();
        EpAttrRules.validate(ia, a, attrArg, attrArg == ATTR_ARG_WITH_SRQ);
        checkEvdKinds(r, q, c);
        CoreEp ep = new CoreEp(ia, false, EpStateMachine.created());
        ep.attachStreams(r, q, c, a, attrArg);
        ep.pz = pz;
        ep.recvEvd = r;
        ep.requestEvd = q;
        ep.connectEvd = c;
        ep.attr = a;
        ep.softHw = a.srqSoftHw();
        ep.allocateRings(a);
        if (pz != null) {
            pz.addUser();
        }
        return ep;
    }

    /**
     * {@code dat_ep_create_with_srq} (ECS-01..11): an EP as {@link #create} makes it, whose receives come from
     * {@code srqh}. The EP's PZ may differ from the SRQ's ({@code srq_ep_pz_difference_supported}): receive
     * buffers were checked against the SRQ's PZ when posted, the EP's PZ governs its requests and RDMA.
     */
    static CoreEp createWithSrq(CoreIa ia, ProtectionZone pzh, EventDispatcher recv, EventDispatcher req,
            EventDispatcher conn, SharedReceiveQueue srqh, EpAttr requested) {
        CoreSrq s = Core.srqArg(srqh, ia);
        if (requested == null) {
            throw Fail.param(7, "ep_attributes must not be NULL for an SRQ EP (ECS-02)");
        }
        CoreEp ep = create(ia, pzh, recv, req, conn, requested, ATTR_ARG_WITH_SRQ);
        try {
            s.attach(ep);
        } catch (RuntimeException e) {
            ep.release(); // the SRQ was freed meanwhile
            throw e;
        }
        ep.srqHeld = new CoreSrq.Held(s);
        return ep;
    }

    /** A provider-created EP for a {@code DAT_PSP_PROVIDER_FLAG} request (PSP-04): TENTATIVE, no PZ, no EVDs. */
    static CoreEp createForPsp(CoreIa ia, CoreCr cr) {
        CoreEp ep = new CoreEp(ia, true, EpStateMachine.createdByProvider());
        ep.attr = ia.defaultEpAttr();
        ep.allocateRings(ep.attr);
        ep.connection.carriedBy(cr);
        return ep;
    }

    /** A provider EP for an RSP created without one (RSP-09): UNCONNECTED, no PZ, no EVDs. */
    static CoreEp createProviderEp(CoreIa ia) {
        CoreEp ep = new CoreEp(ia, true, EpStateMachine.created());
        ep.attr = ia.defaultEpAttr();
        ep.allocateRings(ep.attr);
        return ep;
    }

    private static void checkEvdKinds(CoreEvd r, CoreEvd q, CoreEvd c) {
        if (r != null && !r.accepts(EvdFlags.DTO)) {
            throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_RECV, "recv EVD lacks DAT_EVD_DTO_FLAG");
        }
        if (q != null && !q.accepts(EvdFlags.DTO)) {
            throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, "request EVD lacks DAT_EVD_DTO_FLAG");
        }
        if (c != null && !c.accepts(EvdFlags.CONNECTION)) {
            throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_CONN, "connect EVD lacks DAT_EVD_CONNECTION_FLAG");
        }
    }

    /** Attaches the EP's streams to its EVDs, all or nothing. */
    private void attachStreams(CoreEvd r, CoreEvd q, CoreEvd c, EpAttr a, int arg) {
        if (r != null) {
            r.attachEpStream(true, a.recvCompletionFlags(), arg);
        }
        if (q != null) {
            try {
                q.attachEpStream(false, a.requestCompletionFlags(), arg);
            } catch (RuntimeException e) {
                if (r != null) {
                    r.detachEpStream(true);
                }
                throw e;
            }
        }
        if (c != null) {
            c.attachOther();
        }
    }

    private void detachStreams() {
        if (recvEvd != null) {
            recvEvd.detachEpStream(true);
        }
        if (requestEvd != null) {
            requestEvd.detachEpStream(false);
        }
        if (connectEvd != null) {
            connectEvd.detachOther();
        }
    }

    private void allocateRings(EpAttr a) {
        // Keep receives that are already posted (only possible while unconnected; modify checked they fit).
        ReceiveQueue old = recvQueue;
        recvQueue = old == null ? new ReceiveQueue(a.maxRecvDtos(), a.maxRecvIov())
                : old.copy(a.maxRecvDtos(), a.maxRecvIov(), b -> true);
        int iov = Math.max(a.maxRequestIov(), Math.max(a.maxRdmaReadIov(), a.maxRdmaWriteIov()));
        requests = new RequestQueue(this, a.maxRequestDtos(), iov);
        recvScratch = new RecvBuffer(a.maxRecvIov());
    }

    // ================================================================== accessors for other core classes

    CorePz pz() {
        return pz;
    }

    /** The attributes (replaced, never changed, under lock; stable while connecting or connected). */
    EpAttr attr() {
        return attr;
    }

    CoreEvd connectEvd() {
        return connectEvd;
    }

    RequestQueue requests() {
        return requests;
    }

    int requestFlags() {
        lock.lock();
        try {
            return attr.requestCompletionFlags();
        } finally {
            lock.unlock();
        }
    }

    boolean configured() {
        return pz != null && connectEvd != null;
    }

    io.jdat.EpState reportedState() {
        return sm.reported(configured());
    }

    /** Checks private data against the provider limit (CON-18/19, CRA-03) and copies it. */
    byte[] privateData(int size, byte[] pd, int arg) {
        return connection.privateData(size, pd, arg);
    }

    // ================================================================== query, status, modify

    @Override
    public EpParam query(long mask) {
        checkAliveAndMask(mask, EpParam.FIELD_ALL);
        lock.lock();
        try {
            EpConnection c = connection;
            return new EpParam().iaHandle(ia).epState(reportedState()).localIaAddress(ia.transport.address())
                    .localPortQual(c.localPortQual).remoteIaAddress(c.remoteAddress).remotePortQual(c.remotePortQual)
                    .pzHandle(pz).recvEvdHandle(recvEvd).requestEvdHandle(requestEvd).connectEvdHandle(connectEvd)
                    .srqHandle(srqHeld == null ? null : srqHeld.queue).epAttr(attr.copy().srqSoftHw(softHw));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Status getStatus() {
        checkAlive();
        lock.lock();
        try {
            return new Status(reportedState(), recvHeld() == 0, requests.empty());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void modify(long mask, EpParam p) {
        checkAliveAndMask(mask, EpParam.FIELD_ALL);
        EpAttrRules.checkNeverModifiable(mask);
        if (mask == 0) {
            return;
        }
        if (p == null) {
            throw Fail.param(3, "no parameters");
        }
        txLock.lock();
        lock.lock();
        try {
            checkAlive();
            EpStateMachine.State s = sm.current();
            EpAttrRules.checkModifiable(mask, s, pz == null);
            if ((mask & EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) != 0 && recvQueue.everPosted()
                    && p.epAttr().recvCompletionFlags() != attr.recvCompletionFlags()) {
                throw Fail.state(EpStateMachine.subtype(s), "recv_completion_flags cannot change once receives were posted (EPM-18)");
            }
            // Build the new configuration, validate all of it, then apply: nothing changes on failure.
            EpAttr a = attr.copy().copyFields(p.epAttr() == null ? new EpAttr() : p.epAttr(), mask);
            EpAttrRules.validate(ia, a, 3, srqHeld != null);
            CorePz newPz = (mask & EpParam.FIELD_PZ_HANDLE) != 0 ? Core.pzArg(p.pzHandle(), ia, true) : pz;
            CoreEvd nr = (mask & EpParam.FIELD_RECV_EVD_HANDLE) != 0
                    ? Core.evdArg(p.recvEvdHandle(), ia, DatReturnSubtype.INVALID_HANDLE_EVD_RECV) : recvEvd;
            CoreEvd nq = (mask & EpParam.FIELD_REQUEST_EVD_HANDLE) != 0
                    ? Core.evdArg(p.requestEvdHandle(), ia, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST) : requestEvd;
            CoreEvd nc = (mask & EpParam.FIELD_CONNECT_EVD_HANDLE) != 0
                    ? Core.evdArg(p.connectEvdHandle(), ia, DatReturnSubtype.INVALID_HANDLE_EVD_CONN) : connectEvd;
            checkEvdKinds(nr, nq, nc);
            long posted = recvQueue.held();
            if ((mask & EpAttrRules.RING_FIELDS) != 0) {
                if (posted > a.maxRecvDtos()) {
                    throw Fail.param(3, posted + " receives are posted; max_recv_dtos " + a.maxRecvDtos() + " too small");
                }
                int maxIov = a.maxRecvIov();
                recvQueue.forEachPosted(b -> {
                    if (b.count() > maxIov) {
                        throw Fail.param(3, "a posted receive has more segments than max_recv_iov " + maxIov);
                    }
                });
            }
            // Re-attach the streams under the new flags: detach first, roll back on failure.
            detachStreams();
            try {
                attachStreams(nr, nq, nc, a, 3);
            } catch (RuntimeException e) {
                attachStreams(recvEvd, requestEvd, connectEvd, attr, 3);
                throw e;
            }
            recvEvd = nr;
            requestEvd = nq;
            connectEvd = nc;
            EpAttr old = attr;
            attr = a;
            if ((mask & EpAttrRules.RING_FIELDS) != 0) {
                allocateRings(a);
            }
            if (newPz != pz) {
                if (newPz != null) {
                    newPz.addUser();
                }
                if (pz != null) {
                    pz.removeUser();
                }
                pz = newPz;
                failPostedRecvsAfterPzChange();
            }
            if (old.srqSoftHw() != a.srqSoftHw()) {
                softHw = a.srqSoftHw();
                softFired = false;
            }
        } finally {
            lock.unlock();
            txLock.unlock();
        }
    }

    /**
     * EPM-10 / AMB-08: receives posted under the old PZ no longer match; they complete at once with
     * {@code DAT_DTO_ERR_LOCAL_PROTECTION}. Zero-length receives name no memory and stay posted.
     */
    private void failPostedRecvsAfterPzChange() {
        ReceiveQueue q = recvQueue;
        recvQueue = q.copy(q.capacity, q.iov, b -> {
            if (b.totalLength() == 0) {
                return true;
            }
            counters.recvPzFailed++;
            if (recvEvd != null) {
                recvEvd.postDto(this, b.cookie, DtoCompletionStatus.ERR_LOCAL_PROTECTION, 0, true);
            }
            return false;
        });
    }

    // ================================================================== local I/O vectors

    // ================================================================== posting requests

    @Override
    public void postSend(int n, LmrTriplet[] iov, long cookie, int flags) {
        postRequest(WorkRequest.Op.SEND, n, iov, cookie, null, flags);
    }

    @Override
    public void postRdmaRead(int n, LmrTriplet[] iov, long cookie, RmrTriplet remote, int flags) {
        postRequest(WorkRequest.Op.RDMA_READ, n, iov, cookie, remote, flags);
    }

    @Override
    public void postRdmaWrite(int n, LmrTriplet[] iov, long cookie, RmrTriplet remote, int flags) {
        postRequest(WorkRequest.Op.RDMA_WRITE, n, iov, cookie, remote, flags);
    }

    private void postRequest(WorkRequest.Op op, int n, LmrTriplet[] iov, long cookie, RmrTriplet remote, int flags) {
        if (freed) {
            checkAlive();
        }
        boolean send = op == WorkRequest.Op.SEND;
        int flagsArg = send ? 5 : 6;
        txLock.lock();
        try {
            checkAlive();
            EpStateMachine.State s = sm.current();
            if (s != CONNECTED && s != DISCONNECTED) {
                throw EpStateMachine.invalid(s, op + " post");
            }
            EpAttr a = attr;
            CompletionRules.checkRequestPostFlags(flags, a.requestCompletionFlags(), send, flagsArg);
            int maxIov = switch (op) {
                case RDMA_READ -> Math.min(a.maxRequestIov(), a.maxRdmaReadIov());
                case RDMA_WRITE -> Math.min(a.maxRequestIov(), a.maxRdmaWriteIov());
                default -> a.maxRequestIov();
            };
            RequestQueue q = requests;
            boolean full = q.full();
            WorkRequest wr = s == DISCONNECTED || full ? q.scratch() : q.next();
            int privilege = op == WorkRequest.Op.RDMA_READ ? MemPriv.LOCAL_WRITE : MemPriv.LOCAL_READ;
            ia.memory.resolveLocal(wr, n, iov, privilege, maxIov, 3, pz);
            long local = wr.totalLength();
            long remoteLength = 0;
            if (send) {
                if (local > a.maxMessageSize()) {
                    throw Fail.param(3, "message of " + local + " bytes exceeds max_message_size " + a.maxMessageSize());
                }
            } else {
                if (remote == null) {
                    throw Fail.param(5, "no remote triplet");
                }
                if (remote.segmentLength() < 0) {
                    throw Fail.param(5, "negative remote length");
                }
                if (op == WorkRequest.Op.RDMA_READ && remote.segmentLength() > local) {
                    throw Fail.of(DatReturnType.LENGTH_ERROR, "local buffer of " + local
                            + " bytes is smaller than the remote " + remote.segmentLength() + " (RDR-12)");
                }
                if (op == WorkRequest.Op.RDMA_WRITE && local > remote.segmentLength()) {
                    throw Fail.of(DatReturnType.LENGTH_ERROR, "remote buffer of " + remote.segmentLength()
                            + " bytes is smaller than the local " + local + " (RWR-06)");
                }
                remoteLength = op == WorkRequest.Op.RDMA_READ ? remote.segmentLength() : local;
                if (remoteLength > a.maxRdmaSize()) {
                    throw Fail.param(5, remoteLength + " bytes exceed max_rdma_size " + a.maxRdmaSize());
                }
            }
            if (s == DISCONNECTED) {
                // RDR-10, SND-06, RWR-05: accepted and flushed at once, even with SUPPRESS.
                counters.reqPosted++;
                counters.reqFlushed++;
                reportRequest(op, null, cookie, flags, DtoCompletionStatus.ERR_FLUSHED, 0);
                return;
            }
            if (full) {
                throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                        "max_request_dtos " + q.capacity() + " outstanding");
            }
            if (remote != null) {
                wr.set(op, flags, remote.rmrContext(), remote.targetAddress(), remoteLength);
            } else {
                wr.set(op, flags, 0, 0, local);
            }
            if (op == WorkRequest.Op.RDMA_WRITE && (flags & CompletionFlags.SUPPRESS) != 0 && local > 0
                    && q.empty() && channel.writeNow(wr)) {
                // Placed and succeeded on this thread (the shm direct store): a SUPPRESSed success raises no
                // event, and with nothing outstanding it completes after every earlier request, so it needs no
                // slot of the request queue (no publication, no completion from the transport). Counted as one.
                counters.reqPosted++;
                counters.requestCompleted(DtoCompletionStatus.SUCCESS, local);
                if (JfrEvents.wanted(DtoCompletionStatus.SUCCESS, local)) {
                    JfrEvents.dto(this, op.name(), DtoCompletionStatus.SUCCESS, local, cookie, 0L);
                }
                return;
            }
            counters.reqPosted++;
            q.publish(cookie, null);
            channel.submit(wr);
        } finally {
            txLock.unlock();
        }
    }

    /** {@code dat_rmr_bind} through this EP's request queue; returns the new context. */
    int postBind(CoreRmr rmr, LmrTriplet triplet, Region target, int priv, long cookie, int flags) {
        txLock.lock();
        try {
            checkAlive();
            EpStateMachine.State s = sm.current();
            if (s != CONNECTED && s != DISCONNECTED) {
                throw EpStateMachine.invalid(s, "RMR bind");
            }
            if (s == DISCONNECTED) {
                reportRequest(WorkRequest.Op.RMR_BIND, rmr, cookie, flags, DtoCompletionStatus.ERR_FLUSHED, 0);
                return rmr.peekContext();
            }
            RequestQueue q = requests;
            if (q.full()) {
                throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                        "max_request_dtos outstanding");
            }
            WorkRequest wr = q.next();
            wr.reset();
            int ctx = rmr.applyBind(triplet, target, priv, wr);
            wr.set(WorkRequest.Op.RMR_BIND, flags, ctx, 0, 0);
            q.publish(cookie, rmr);
            channel.submit(wr);
            return rmr.postedContext(wr, ctx);
        } finally {
            txLock.unlock();
        }
    }

    /** Reports one request completion per the completion flags (from a post, a flush or the transport). */
    void reportRequest(WorkRequest.Op op, CoreRmr rmr, long cookie, int flags, DtoCompletionStatus status,
            long length) {
        CoreEvd evd = requestEvd;
        boolean ok = status == DtoCompletionStatus.SUCCESS;
        if (evd == null || !CompletionRules.requestReported(flags, ok)) {
            return;
        }
        boolean notify = CompletionRules.requestNotifies(flags, ok);
        if (op == WorkRequest.Op.RMR_BIND) {
            evd.postRmrBind(rmr, cookie, status, notify);
        } else {
            evd.postDto(this, cookie, status, length, notify);
        }
    }

    // ================================================================== posting receives

    @Override
    public void postRecv(int n, LmrTriplet[] iov, long cookie, int flags) {
        if (freed) {
            checkAlive();
        }
        boolean wake;
        lock.lock();
        try {
            checkAlive();
            if (srqHeld != null) {
                throw Fail.param(1, "receives of an SRQ EP come from its SRQ: post them there (ECS-03, AMB-12)");
            }
            EpAttr a = attr;
            CompletionRules.checkRecvPostFlags(flags, a.recvCompletionFlags(), 5);
            ReceiveQueue q = recvQueue;
            // In D a receive is flushed at once - unless the flush of the older ones is still to come
            // (the transport is being stopped): then it queues behind them, so completions stay in order.
            boolean flushNow = sm.current() == DISCONNECTED && !flushPending;
            ReceiveQueue.Slot b = flushNow ? null : q.next();
            ia.memory.resolveLocal(b == null ? recvScratch : b, n, iov, MemPriv.LOCAL_WRITE, a.maxRecvIov(), 3, pz);
            if (flushNow) {
                // RCV-08: flushed at once.
                counters.recvPosted++;
                counters.recvFlushed++;
                if (recvEvd != null) {
                    recvEvd.postDto(this, cookie, DtoCompletionStatus.ERR_FLUSHED, 0, true);
                }
                return;
            }
            if (b == null) {
                throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                        "max_recv_dtos " + q.capacity + " posted (RCV-10)");
            }
            counters.recvPosted++;
            q.publish(b, cookie, flags);
            if (softHw != Dat.WATERMARK_INFINITE || hardHw != Dat.WATERMARK_INFINITE) {
                checkWatermarks();
            }
            wake = sm.connectedOrDraining();
        } finally {
            lock.unlock();
        }
        if (wake) {
            Channel ch = channel;
            if (ch != null) {
                ch.recvPosted();
            }
        }
    }

    /** EPW-01/02: compares the held receive buffers with the watermarks (lock held). */
    private void checkWatermarks() {
        long held = recvHeld();
        if (softHw != Dat.WATERMARK_INFINITE && !softFired && held > softHw) {
            softFired = true;
            ia.asyncError(EventNumber.ASYNC_WATERMARK_EVENT, this, AsyncReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, null);
        }
        if (hardHw != Dat.WATERMARK_INFINITE && held > hardHw && sm.connectedOrDraining()) {
            hardHw = Dat.WATERMARK_INFINITE;
            Timers.execute(this::broken);
        }
    }

    @Override
    public DtoCounters counters() {
        checkAlive();
        return counters.snapshot();
    }

    @Override
    public RecvQueryResult recvQuery() {
        checkAlive();
        lock.lock();
        try {
            int held = (int) recvHeld();
            return new RecvQueryResult(held, held);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setWatermark(int soft, int hard) {
        checkAlive();
        if (soft < Dat.WATERMARK_INFINITE || hard < Dat.WATERMARK_INFINITE) {
            throw Fail.param(soft < Dat.WATERMARK_INFINITE ? 2 : 3, "negative watermark");
        }
        lock.lock();
        try {
            softHw = soft;
            hardHw = hard;
            softFired = false;
            checkWatermarks();
        } finally {
            lock.unlock();
        }
    }

    // ================================================================== ChannelSink: the transport's view

    @Override
    public RecvBuffer takeRecv() {
        if (!sm.connectedOrDraining()) {
            return null;
        }
        CoreSrq.Held h = srqHeld;
        if (h != null) {
            return srqTake(h);
        }
        return recvQueue.take();
    }

    @Override
    public RecvBuffer takeRecvInSetup() {
        EpStateMachine.State s = sm.current();
        if ((s != ACTIVE_CONNECTION_PENDING && s != COMPLETION_PENDING) || srqHeld != null) {
            return null;
        }
        return recvQueue.take();
    }

    /** What a device transport needs to build this EP's queue pair (ignored by software transports). */
    EndpointResources resources() {
        EpAttr a;
        lock.lock();
        try {
            a = attr;
        } finally {
            lock.unlock();
        }
        CorePz p = pz;
        CoreSrq.Held h = srqHeld;
        return new EndpointResources(p == null ? null : p.domain, a.maxRequestDtos(), a.maxRecvDtos(),
                a.maxRequestIov(), a.maxRecvIov(), this, h == null ? null : h.queue.device);
    }

    @Override
    public void completeRecv(RecvBuffer buffer, long length, boolean solicited) {
        CoreSrq.Held h = srqHeld;
        if (h != null) {
            srqComplete(h, buffer, length, solicited);
            return;
        }
        ReceiveQueue q = recvQueue;
        ReceiveQueue.Slot slot = q.completing(buffer);
        if (slot == null) {
            return; // flushed meanwhile
        }
        long cookie = slot.cookie;
        int postFlags = slot.postFlags;
        q.release();
        boolean ok = length <= buffer.totalLength() && length >= 0;
        DtoCompletionStatus status = ok ? DtoCompletionStatus.SUCCESS : DtoCompletionStatus.ERR_LOCAL_LENGTH;
        counters.recvCompleted(status, ok ? length : 0);
        if (JfrEvents.wanted(status, length)) {
            JfrEvents.dto(this, "RECV", status, ok ? length : 0, cookie, 0L);
        }
        CoreEvd evd = recvEvd;
        if (evd != null) {
            evd.postDto(this, cookie, status, ok ? length : 0,
                    CompletionRules.recvNotifies(attr.recvCompletionFlags(), postFlags, solicited, ok));
        }
    }

    // ------------------------------------------------------------------ SRQ EPs

    /** Receive buffers this EP holds: posted and not completed, or for an SRQ EP taken and not completed. */
    private long recvHeld() {
        CoreSrq.Held h = srqHeld;
        return h == null ? recvQueue.held() : h.held();
    }

    /** SPR-02: takes an SRQ entry for an incoming message; the EP holds it until it completes. */
    private RecvBuffer srqTake(CoreSrq.Held h) {
        CoreSrq.Entry e = h.queue.take();
        if (e == null) {
            return null; // SRQ-19: as an EP with an empty receive queue
        }
        h.add(e);
        // EPW-01/02 on the SRQ buffers the EP holds (the SRQ lock is released: EP lock after it is allowed).
        lock.lock();
        try {
            if (softHw != Dat.WATERMARK_INFINITE || hardHw != Dat.WATERMARK_INFINITE) {
                checkWatermarks();
            }
        } finally {
            lock.unlock();
        }
        return e;
    }

    /** SPR-04: completes a held SRQ entry on this EP's recv EVD, always signalled unless SOLICITED_WAIT says otherwise (ECS-08, SPR-05). */
    private void srqComplete(CoreSrq.Held h, RecvBuffer buffer, long length, boolean solicited) {
        CoreSrq sq = h.queue;
        CoreSrq.Entry e = h.remove(buffer);
        if (e == null) {
            return; // flushed meanwhile
        }
        long cookie = e.cookie;
        boolean ok = length <= e.totalLength() && length >= 0;
        sq.recycle(e); // a post may refill it from now on: read nothing of it below
        DtoCompletionStatus status = ok ? DtoCompletionStatus.SUCCESS : DtoCompletionStatus.ERR_LOCAL_LENGTH;
        counters.recvCompleted(status, ok ? length : 0);
        if (JfrEvents.wanted(status, length)) {
            JfrEvents.dto(this, "RECV", status, ok ? length : 0, cookie, 0L);
        }
        postSrqCompletion(sq, cookie, status, ok ? length : 0,
                CompletionRules.recvNotifies(attr.recvCompletionFlags(), CompletionFlags.DEFAULT, solicited, ok));
    }

    /** Reports an SRQ entry's completion; when none can be queued the entry is reaped at once. */
    private void postSrqCompletion(CoreSrq sq, long cookie, DtoCompletionStatus status, long length, boolean notify) {
        CoreEvd evd = recvEvd;
        if (evd == null || !evd.postSrqRecv(this, cookie, status, length, notify, sq)) {
            sq.reaped();
        }
    }

    /** The SRQ got a buffer: a transport that holds a message back for this EP may go on. */
    void srqRecvPosted() {
        if (sm.connectedOrDraining()) {
            Channel ch = channel;
            if (ch != null) {
                ch.recvPosted();
            }
        }
    }

    @Override
    public boolean isAccepting() {
        return sm.connectedOrDraining();
    }

    @Override
    public int resolveRemote(int rmrContext, long address, long length, int privilege, RemoteRegion out) {
        if (!isAccepting()) {
            return RemoteRegion.CLOSED;
        }
        // RDR-17: a read beyond max_rdma_read_in breaks the connection. The transport serves one incoming
        // read at a time, so only a depth of 0 can be exceeded. (attr is stable while accepting and was
        // published before the volatile state read above.)
        if (privilege == MemPriv.REMOTE_READ && attr.maxRdmaReadIn() == 0) {
            return RemoteRegion.ACCESS_ERROR;
        }
        if (length == 0) {
            // API.md §4.1: a zero-length segment names no memory; its context and address are not checked.
            out.set(java.lang.foreign.MemorySegment.NULL, 0);
            return RemoteRegion.OK;
        }
        if (privilege != MemPriv.REMOTE_WRITE) {
            return lookupRemote(rmrContext, address, length, privilege, out); // a Read's source: held later
        }
        // volatile (a full fence after it): the mark is ordered before the lookup's volatile read; a
        // withdrawal clears the slot and then reads the mark (Withdrawal: one of the two sees the other)
        PLACING.setVolatile(this, rmrContext);
        int st = lookupRemote(rmrContext, address, length, privilege, out);
        if (st != RemoteRegion.OK) {
            PLACING.setRelease(this, 0);
        }
        return st;
    }

    @Override
    public int holdSource(int rmrContext, long address, long length, RemoteRegion out) {
        if (length == 0) {
            out.set(java.lang.foreign.MemorySegment.NULL, 0);
            return RemoteRegion.OK;
        }
        // as for a Write's placement mark above: volatile, before the lookup (Withdrawal)
        SOURCING.setVolatile(this, rmrContext);
        int st = lookupRemote(rmrContext, address, length, MemPriv.REMOTE_READ, out);
        if (st != RemoteRegion.OK) {
            SOURCING.setRelease(this, 0);
        }
        return st;
    }

    /** The region of a remote access as the memory table has it now: context, privilege, PZ, bounds. */
    private int lookupRemote(int rmrContext, long address, long length, int privilege, RemoteRegion out) {
        Region r = ia.memory.lookup(rmrContext);
        // the rule shared with the shm direct store (RemoteRegion.accessOffset): privilege, PZ, bounds
        long off = r == null ? -1 : RemoteRegion.accessOffset(r.address(), r.length(), r.privileges(), r.pz() == pz,
                privilege, address, length);
        if (off < 0 || !r.segment().scope().isAlive()) {
            return RemoteRegion.ACCESS_ERROR;
        }
        out.set(r.segment(), off);
        return RemoteRegion.OK;
    }

    @Override
    public void placed() {
        // release: the placed bytes are in memory before a withdrawal, reading 0 here, returns
        PLACING.setRelease(this, 0);
    }

    /** The context of the Write being placed, 0 when none (volatile read, for {@link Withdrawal}). */
    int placing() {
        return (int) PLACING.getVolatile(this);
    }

    @Override
    public void sourced() {
        // release: the reads of the source are done before a withdrawal, reading 0 here, returns
        SOURCING.setRelease(this, 0);
    }

    /** The context of the Read source being read, 0 when none (volatile read, for {@link Withdrawal}). */
    int sourcing() {
        return (int) SOURCING.getVolatile(this);
    }

    @Override
    public int protectionZone() {
        CorePz p = pz;
        return p == null ? 0 : p.id;
    }

    @Override
    public void requestCompleted(DtoCompletionStatus status, long length) {
        // The completion moves the queue's head and then reads the state; a graceful disconnect writes the
        // state and then reads the queue (EpStateMachine: one of the two sees the other).
        if (requests.complete(status, length) && sm.current() == DISCONNECT_PENDING && requests.empty()) {
            Timers.execute(connection::endGracefulDisconnect);
        }
    }

    @Override
    public void remoteDisconnected() {
        connection.enterDisconnectedFromConnection(EventNumber.CONNECTION_EVENT_DISCONNECTED, Channel.CLOSE_SILENT);
    }

    @Override
    public void broken() {
        connection.enterDisconnectedFromConnection(EventNumber.CONNECTION_EVENT_BROKEN, Channel.CLOSE_BREAK);
    }

    // ================================================================== connection (EpConnection)

    @Override
    public void connect(SocketAddress addr, long qual, int timeout, int pdSize, byte[] pd, int qos, int flags) {
        checkAlive();
        connection.connect(addr, qual, timeout, pdSize, pd, qos, flags);
    }

    @Override
    public void dupConnect(Endpoint dupEp, int timeout, int pdSize, byte[] pd, int qos) {
        checkAlive();
        connection.dupConnect(Core.epArg(dupEp, null), timeout, pdSize, pd, qos);
    }

    /** {@code dat_cr_accept} with this EP (called by {@link CoreCr}); the CR is consumed on success. */
    void accept(CoreCr cr, byte[] pd) {
        connection.accept(cr, pd);
    }

    /** The RSP delivered its request: RESERVED → PASSIVE_CONNECTION_PENDING. */
    void reservedRequestArrived(CoreCr cr) {
        connection.reservedRequestArrived(cr);
    }

    /** {@code dat_cr_reject} of the request that carries this EP. */
    void requestRejected() {
        connection.requestRejected();
    }

    /** {@code dat_rsp_create}: UNCONNECTED → RESERVED. */
    void reserve(CoreRsp r) {
        connection.reserve(r);
    }

    /** {@code dat_rsp_free}: RESERVED → UNCONNECTED. */
    void unreserve(CoreRsp r) {
        connection.unreserve(r);
    }

    @Override
    public void disconnect(int flags) {
        checkAlive();
        if (flags != CloseFlags.ABRUPT && flags != CloseFlags.GRACEFUL) {
            throw Fail.param(2, "undefined disconnect flags " + flags + " (DSC-16)");
        }
        connection.disconnect(flags);
    }

    /** Enters DISCONNECTED with {@code event} (see {@link EpConnection#enterDisconnected}). */
    void enterDisconnected(EventNumber event, int closeMode) {
        connection.enterDisconnected(event, closeMode);
    }

    /** Completes every outstanding request and receive as FLUSHED, oldest first (txLock and lock held). */
    void flushLocked() {
        requests.flush();
        CoreEvd evd = recvEvd;
        recvQueue.flush(b -> {
            counters.recvFlushed++;
            if (evd != null) {
                evd.postDto(this, b.cookie, DtoCompletionStatus.ERR_FLUSHED, 0, true);
            }
        });
        CoreSrq.Held h = srqHeld;
        if (h != null) {
            // SPR-10: the SRQ buffers this EP took and did not finish; the SRQ keeps the others.
            CoreSrq sq = h.queue;
            h.drain(e -> {
                long cookie = e.cookie;
                sq.recycle(e);
                counters.recvFlushed++;
                postSrqCompletion(sq, cookie, DtoCompletionStatus.ERR_FLUSHED, 0, true);
            });
        }
    }

    // ================================================================== reset, free

    @Override
    public void reset() {
        checkAlive();
        txLock.lock();
        lock.lock();
        try {
            if (!sm.reset()) {
                return; // RST-03
            }
            channel = null;
            connection.clear();
            requests.clear();
            recvQueue = new ReceiveQueue(recvQueue.capacity, recvQueue.iov);
        } finally {
            lock.unlock();
            txLock.unlock();
        }
    }

    @Override
    public void free() {
        checkAlive();
        Transport.ConnectAttempt at;
        Channel ch;
        txLock.lock();
        lock.lock();
        try {
            checkAlive();
            EpStateMachine.State s = sm.current();
            if (s == RESERVED || s == PASSIVE_CONNECTION_PENDING || s == TENTATIVE_CONNECTION_PENDING) {
                throw EpStateMachine.invalid(s, "free (EPF-01)");
            }
            markFreed();
            at = connection.attempt;
            ch = channel;
            connection.cancelTimer();
        } finally {
            lock.unlock();
            txLock.unlock();
        }
        if (at != null) {
            at.cancel();
        }
        if (ch != null) {
            ch.close(Channel.CLOSE_DISCONNECT);
        }
        release();
        ia.unregister(this);
    }

    private void release() {
        lock.lock();
        try {
            detachStreams();
            if (pz != null) {
                pz.removeUser();
            }
            CoreSrq.Held h = srqHeld;
            if (h != null) {
                // dat_ep_free discards what it held: no completion will be reported for these entries.
                CoreSrq sq = h.queue;
                h.drain(e -> {
                    sq.recycle(e);
                    sq.reaped();
                });
                sq.detach(this);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    void destroy() {
        Transport.ConnectAttempt at;
        Channel ch;
        CoreRsp r;
        lock.lock();
        try {
            if (!markFreedOnce()) {
                return;
            }
            at = connection.attempt;
            ch = channel;
            r = connection.rsp;
            connection.cancelTimer();
        } finally {
            lock.unlock();
        }
        if (at != null) {
            at.cancel();
        }
        if (ch != null) {
            ch.close(Channel.CLOSE_BREAK);
        }
        if (r != null) {
            r.destroy();
        }
        release();
    }
}
