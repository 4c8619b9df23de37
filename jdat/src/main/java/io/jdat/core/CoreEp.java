package io.jdat.core;

import io.jdat.AsyncReason;
import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.DtoCounters;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.EpState;
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
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.EndpointResources;
import io.jdat.spi.PassiveHandler;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.RemoteRegion;
import io.jdat.spi.Transport;
import io.jdat.spi.WorkRequest;
import java.net.SocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code DAT_EP_HANDLE}: the endpoint state machine of API.md §7, its receive and request queues, and the
 * core side of its connection ({@link ActiveHandler}, {@link PassiveHandler}, {@link ChannelSink}).
 *
 * <p><b>Locks.</b> {@link #txLock} serialises posts of send, RDMA and bind, so that they reach the
 * transport in the order they were accepted; the transitions that affect posting (connect, accept, disconnect,
 * reset, free, entering DISCONNECTED) take it too, so no post interleaves with
 * one. {@link #lock} guards the state, the configuration and receive posting; it is held only briefly
 * and never while calling into a transport. The transport's receive path and its completions take neither
 * lock (see {@link ReceiveQueue} and {@link RequestCounters}); they read the volatile state.
 *
 * <p><b>Queues.</b> Receives live in a {@link ReceiveQueue}; requests {@code [req.head, req.tail)} were
 * submitted and complete in order. Slots are allocated when the EP is created or resized, so posting
 * allocates nothing.
 */
public final class CoreEp extends CoreObject implements Endpoint, ActiveHandler, PassiveHandler, ChannelSink {
    /** The main states (API.md §7.1); the UNCONFIGURED variants are derived from the configuration. */
    enum S {
        U, R, PCP, ACP, TCP, CP, C, DP, D
    }

    final ReentrantLock txLock = new ReentrantLock();
    final ReentrantLock lock = new ReentrantLock();
    private volatile S state = S.U;
    private final boolean providerCreated;

    // Configuration (guarded by lock).
    private EpAttr attr;
    private volatile CorePz pz;
    private CoreEvd recvEvd;
    private volatile CoreEvd requestEvd;
    private CoreEvd connectEvd;

    /** Set under lock from entering D until the flush that follows has run (RST-06 ordering). */
    private boolean flushPending;
    /** The receive queue: posted under lock, taken and completed by the transport without it. */
    private volatile ReceiveQueue recvQueue;

    // Request ring. Posters write slots and then req.tail under txLock; the transport completes in order and
    // moves req.head without locks; a flush moves req.head under txLock once the transport is stopped.
    private WorkRequest[] reqRing;
    private long[] reqCookie;
    /** {@link System#nanoTime()} of each request's post while a JFR recording runs, else 0 (the DtoCompletion duration). */
    private long[] reqPosted;
    private CoreRmr[] reqRmr;
    private final RequestCounters req = new RequestCounters();
    /** Validation target of a request post that is flushed at once or refused (txLock). */
    private WorkRequest reqScratch;
    /** Validation target of a receive post that is flushed at once or refused (lock). */
    private RecvBuffer recvScratch;

    // Connection (guarded by lock; channel also read by the post path under txLock).
    private volatile Channel channel;
    private Transport.ConnectAttempt attempt;
    private ScheduledFuture<?> timeoutTask;
    private SocketAddress remoteAddress;
    private long remotePortQual;
    private long localPortQual;
    private long connectedQual;
    private int connectFlags;
    private byte[] peerPrivateData = new byte[0];
    /** The CR that carries this EP (PCP, TCP), or the RSP it is reserved by (R). */
    CoreCr pendingCr;
    CoreRsp rsp;
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
     * The request ring's counters, in their own padded object: the peer's receive path reads this EP's
     * state on every message, and these change on every post.
     */
    private static final class RequestCounters {
        long p01, p02, p03, p04, p05, p06, p07;
        /** Oldest request not completed; moved by the transport's completions and by flushes. */
        volatile long head;
        /** Next request slot; moved by posters under txLock. */
        volatile long tail;
        long p11, p12, p13, p14, p15, p16, p17;
    }

    private CoreEp(CoreIa ia, boolean providerCreated) {
        super(ia, HandleType.EP, DatReturnSubtype.INVALID_HANDLE_EP);
        this.providerCreated = providerCreated;
    }

    // ================================================================== creation

    static CoreEp create(CoreIa ia, ProtectionZone pzh, EventDispatcher recv, EventDispatcher req,
            EventDispatcher conn, EpAttr requested) {
        return create(ia, pzh, recv, req, conn, requested, 6);
    }

    /** {@link #create} with the C position of the attributes argument (7 for {@code dat_ep_create_with_srq}). */
    private static CoreEp create(CoreIa ia, ProtectionZone pzh, EventDispatcher recv, EventDispatcher req,
            EventDispatcher conn, EpAttr requested, int attrArg) {
        CorePz pz = Core.pzArg(pzh, ia, true);
        CoreEvd r = Core.evdArg(recv, ia, DatReturnSubtype.INVALID_HANDLE_EVD_RECV);
        CoreEvd q = Core.evdArg(req, ia, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST);
        CoreEvd c = Core.evdArg(conn, ia, DatReturnSubtype.INVALID_HANDLE_EVD_CONN);
        EpAttr a = requested == null ? ia.defaultEpAttr() : requested.copy();
        validateAttr(ia, a, attrArg);
        checkEvdKinds(r, q, c);
        CoreEp ep = new CoreEp(ia, false);
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
        CoreEp ep = create(ia, pzh, recv, req, conn, requested, 7);
        try {
            s.attach(ep);
        } catch (RuntimeException e) {
            ep.release(); // the SRQ was freed meanwhile
            throw e;
        }
        ep.srqHeld = new CoreSrq.Held(s);
        return ep;
    }

    /** A provider-created EP for a {@code DAT_PSP_PROVIDER_FLAG} request (PSP-04): TCP, no PZ, no EVDs. */
    static CoreEp createForPsp(CoreIa ia, CoreCr cr) {
        CoreEp ep = new CoreEp(ia, true);
        ep.attr = ia.defaultEpAttr();
        ep.allocateRings(ep.attr);
        ep.state = S.TCP;
        ep.pendingCr = cr;
        ep.remoteAddress = cr.request.remoteAddress();
        ep.remotePortQual = cr.request.remotePortQual();
        ep.localPortQual = cr.request.connQual();
        return ep;
    }

    /** A provider EP for an RSP created without one (RSP-09): UNCONNECTED, no PZ, no EVDs. */
    static CoreEp createProviderEp(CoreIa ia) {
        CoreEp ep = new CoreEp(ia, true);
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

    /** EPC-18/19, EPM-34: every attribute value, against the IA's limits. */
    static void validateAttr(CoreIa ia, EpAttr a, int arg) {
        if (a.serviceType() == null) {
            throw Fail.param(arg, "no service type");
        }
        if (a.serviceType() != ServiceType.RC) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "service type " + a.serviceType());
        }
        if ((a.qos() & ~Qos.ALL) != 0) {
            throw Fail.param(arg, "undefined QoS bits");
        }
        if ((a.qos() & ~ia.limits.qosSupported()) != 0) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "QoS 0x" + Integer.toHexString(a.qos()) + " (EPC-19)");
        }
        if (a.maxMessageSize() < 0 || a.maxMessageSize() > ia.limits.maxMessageSize()) {
            throw Fail.param(arg, "max_message_size " + a.maxMessageSize());
        }
        if (a.maxRdmaSize() < 0 || a.maxRdmaSize() > ia.limits.maxRdmaSize()) {
            throw Fail.param(arg, "max_rdma_size " + a.maxRdmaSize());
        }
        if (!CompletionRules.validRecvAttr(a.recvCompletionFlags())) {
            throw Fail.param(arg, "recv_completion_flags 0x" + Integer.toHexString(a.recvCompletionFlags()) + " (EPM-19)");
        }
        if (!CompletionRules.validRequestAttr(a.requestCompletionFlags())) {
            throw Fail.param(arg, "request_completion_flags 0x" + Integer.toHexString(a.requestCompletionFlags())
                    + " (EPM-20)");
        }
        checkRange(a.maxRecvDtos(), CoreIa.MAX_DTO_PER_EP, "max_recv_dtos", arg);
        checkRange(a.maxRequestDtos(), CoreIa.MAX_DTO_PER_EP, "max_request_dtos", arg);
        checkRange(a.maxRecvIov(), CoreIa.MAX_IOV, "max_recv_iov", arg);
        checkRange(a.maxRequestIov(), CoreIa.MAX_IOV, "max_request_iov", arg);
        checkRange(a.maxRdmaReadIov(), CoreIa.MAX_IOV, "max_rdma_read_iov", arg);
        checkRange(a.maxRdmaWriteIov(), CoreIa.MAX_IOV, "max_rdma_write_iov", arg);
        checkRange(a.maxRdmaReadIn(), ia.limits.maxRdmaReadIn(), "max_rdma_read_in", arg);
        checkRange(a.maxRdmaReadOut(), ia.limits.maxRdmaReadOut(), "max_rdma_read_out", arg);
        if (a.srqSoftHw() < Dat.WATERMARK_INFINITE) {
            throw Fail.param(arg, "srq_soft_hw " + a.srqSoftHw());
        }
        if (!a.epTransportSpecific().isEmpty() || !a.epProviderSpecific().isEmpty()) {
            throw Fail.param(arg, "jdat defines no transport- or provider-specific EP attributes");
        }
    }

    private static void checkRange(int v, int max, String name, int arg) {
        if (v < 0 || v > max) {
            throw Fail.param(arg, name + " " + v + " outside 0.." + max);
        }
    }

    private void allocateRings(EpAttr a) {
        // Keep receives that are already posted (only possible while unconnected; modify checked they fit).
        ReceiveQueue old = recvQueue;
        recvQueue = old == null ? new ReceiveQueue(a.maxRecvDtos(), a.maxRecvIov())
                : old.copy(a.maxRecvDtos(), a.maxRecvIov(), b -> true);
        int iov = Math.max(a.maxRequestIov(), Math.max(a.maxRdmaReadIov(), a.maxRdmaWriteIov()));
        reqRing = new WorkRequest[a.maxRequestDtos()];
        for (int i = 0; i < reqRing.length; i++) {
            reqRing[i] = new WorkRequest(iov);
        }
        reqCookie = new long[reqRing.length];
        reqPosted = new long[reqRing.length];
        reqRmr = new CoreRmr[reqRing.length];
        req.head = 0;
        req.tail = 0;
        reqScratch = new WorkRequest(iov);
        recvScratch = new RecvBuffer(a.maxRecvIov());
    }

    // ================================================================== accessors for other core classes

    CorePz pz() {
        return pz;
    }

    int requestFlags() {
        lock.lock();
        try {
            return attr.requestCompletionFlags();
        } finally {
            lock.unlock();
        }
    }

    S state() {
        return state;
    }

    boolean configured() {
        return pz != null && connectEvd != null;
    }

    EpState reportedState() {
        S s = state;
        boolean cfg = configured();
        return switch (s) {
            case U -> cfg ? EpState.UNCONNECTED : EpState.UNCONFIGURED_UNCONNECTED;
            case R -> cfg ? EpState.RESERVED : EpState.UNCONFIGURED_RESERVED;
            case PCP -> cfg ? EpState.PASSIVE_CONNECTION_PENDING : EpState.UNCONFIGURED_PASSIVE;
            case TCP -> cfg ? EpState.TENTATIVE_CONNECTION_PENDING : EpState.UNCONFIGURED_TENTATIVE;
            case ACP -> EpState.ACTIVE_CONNECTION_PENDING;
            case CP -> EpState.COMPLETION_PENDING;
            case C -> EpState.CONNECTED;
            case DP -> EpState.DISCONNECT_PENDING;
            case D -> EpState.DISCONNECTED;
        };
    }

    static DatReturnSubtype stateSubtype(S s) {
        return switch (s) {
            case U -> DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED;
            case R -> DatReturnSubtype.INVALID_STATE_EP_RESERVED;
            case PCP -> DatReturnSubtype.INVALID_STATE_EP_PASSCONNPENDING;
            case ACP -> DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING;
            case TCP -> DatReturnSubtype.INVALID_STATE_EP_TENTCONNPENDING;
            case CP -> DatReturnSubtype.INVALID_STATE_EP_COMPLPENDING;
            case C -> DatReturnSubtype.INVALID_STATE_EP_CONNECTED;
            case DP -> DatReturnSubtype.INVALID_STATE_EP_DISCPENDING;
            case D -> DatReturnSubtype.INVALID_STATE_EP_DISCONNECTED;
        };
    }

    private static io.jdat.DatException badState(S s, String what) {
        return Fail.state(stateSubtype(s), what + " not allowed in state " + s);
    }

    // ================================================================== query, status, modify

    @Override
    public EpParam query(long mask) {
        checkAlive();
        Fail.checkMask(mask, EpParam.FIELD_ALL, 2);
        lock.lock();
        try {
            return new EpParam().iaHandle(ia).epState(reportedState()).localIaAddress(ia.transport.address())
                    .localPortQual(localPortQual).remoteIaAddress(remoteAddress).remotePortQual(remotePortQual)
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
            return new Status(reportedState(), recvHeld() == 0, req.tail == req.head);
        } finally {
            lock.unlock();
        }
    }

    private static final long NEVER_MODIFIABLE = EpParam.FIELD_IA_HANDLE | EpParam.FIELD_EP_STATE
            | EpParam.FIELD_LOCAL_IA_ADDRESS_PTR | EpParam.FIELD_LOCAL_PORT_QUAL | EpParam.FIELD_REMOTE_IA_ADDRESS_PTR
            | EpParam.FIELD_REMOTE_PORT_QUAL | EpParam.FIELD_SRQ_HANDLE;
    private static final long ONLY_UNCONNECTED = EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR
            | EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR | EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR
            | EpParam.FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR;
    private static final long RING_FIELDS = EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS
            | EpParam.FIELD_EP_ATTR_MAX_RECV_IOV | EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV
            | EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IOV | EpParam.FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV;

    @Override
    public void modify(long mask, EpParam p) {
        checkAlive();
        Fail.checkMask(mask, EpParam.FIELD_ALL, 2);
        if ((mask & NEVER_MODIFIABLE) != 0) {
            throw Fail.param(2, "ia_handle, ep_state, addresses, port qualifiers and srq_handle cannot be modified"
                    + " (EPM-03..08)");
        }
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
            S s = state;
            boolean early = s == S.U || s == S.R || s == S.PCP || s == S.TCP;
            // §7.1: an UNCONFIGURED_RESERVED / _PASSIVE EP (an RSP's provider EP, RSP-09) may get its missing PZ.
            boolean unconfiguredEarly = (s == S.R || s == S.PCP) && pz == null;
            if ((mask & EpParam.FIELD_PZ_HANDLE) != 0 && s != S.U && s != S.TCP && !unconfiguredEarly) {
                throw Fail.state(stateSubtype(s), "pz_handle is modifiable only in UNCONNECTED and TENTATIVE (EPM-09)");
            }
            if ((mask & ONLY_UNCONNECTED) != 0 && s != S.U) {
                throw Fail.state(stateSubtype(s), "specific attributes are modifiable only in UNCONNECTED (EPM-28..31)");
            }
            if ((mask & ~EpParam.FIELD_PZ_HANDLE) != 0 && !early) {
                throw Fail.state(stateSubtype(s), "EP parameters are modifiable only before connecting (EPM-11..27)");
            }
            if ((mask & EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) != 0 && recvQueue.everPosted()
                    && p.epAttr().recvCompletionFlags() != attr.recvCompletionFlags()) {
                throw Fail.state(stateSubtype(s), "recv_completion_flags cannot change once receives were posted (EPM-18)");
            }
            // Build the new configuration, validate all of it, then apply: nothing changes on failure.
            EpAttr a = attr.copy();
            EpAttr n = p.epAttr() == null ? new EpAttr() : p.epAttr();
            if ((mask & EpParam.FIELD_EP_ATTR_SERVICE_TYPE) != 0) {
                a.serviceType(n.serviceType());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE) != 0) {
                a.maxMessageSize(n.maxMessageSize());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_SIZE) != 0) {
                a.maxRdmaSize(n.maxRdmaSize());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_QOS) != 0) {
                a.qos(n.qos());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) != 0) {
                a.recvCompletionFlags(n.recvCompletionFlags());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS) != 0) {
                a.requestCompletionFlags(n.requestCompletionFlags());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS) != 0) {
                a.maxRecvDtos(n.maxRecvDtos());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS) != 0) {
                a.maxRequestDtos(n.maxRequestDtos());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_RECV_IOV) != 0) {
                a.maxRecvIov(n.maxRecvIov());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV) != 0) {
                a.maxRequestIov(n.maxRequestIov());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN) != 0) {
                a.maxRdmaReadIn(n.maxRdmaReadIn());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_OUT) != 0) {
                a.maxRdmaReadOut(n.maxRdmaReadOut());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_SRQ_SOFT_HW) != 0) {
                a.srqSoftHw(n.srqSoftHw());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IOV) != 0) {
                a.maxRdmaReadIov(n.maxRdmaReadIov());
            }
            if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV) != 0) {
                a.maxRdmaWriteIov(n.maxRdmaWriteIov());
            }
            if ((mask & (EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR | EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR)) != 0) {
                a.epTransportSpecific(n.epTransportSpecific());
            }
            if ((mask & (EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR | EpParam.FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR)) != 0) {
                a.epProviderSpecific(n.epProviderSpecific());
            }
            validateAttr(ia, a, 3);
            CorePz newPz = (mask & EpParam.FIELD_PZ_HANDLE) != 0 ? Core.pzArg(p.pzHandle(), ia, true) : pz;
            CoreEvd nr = (mask & EpParam.FIELD_RECV_EVD_HANDLE) != 0
                    ? Core.evdArg(p.recvEvdHandle(), ia, DatReturnSubtype.INVALID_HANDLE_EVD_RECV) : recvEvd;
            CoreEvd nq = (mask & EpParam.FIELD_REQUEST_EVD_HANDLE) != 0
                    ? Core.evdArg(p.requestEvdHandle(), ia, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST) : requestEvd;
            CoreEvd nc = (mask & EpParam.FIELD_CONNECT_EVD_HANDLE) != 0
                    ? Core.evdArg(p.connectEvdHandle(), ia, DatReturnSubtype.INVALID_HANDLE_EVD_CONN) : connectEvd;
            checkEvdKinds(nr, nq, nc);
            long posted = recvQueue.held();
            if ((mask & RING_FIELDS) != 0) {
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
            if ((mask & RING_FIELDS) != 0) {
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

    /**
     * Validates {@code n} triplets against the IA's memory table and fills {@code v} (SND-07/08, RCV-09,
     * RDR-11/13/14, RWR-07, AMB-11). Check order: bad LMR → PRIVILEGES; PZ mismatch → PROTECTION; missing
     * local right → PRIVILEGES; outside the LMR → INVALID_PARAMETER.
     */
    private void resolveLocal(io.jdat.spi.IoVector v, int n, LmrTriplet[] iov, int privilege, int maxIov, int arg,
            CorePz epPz) {
        resolveLocal(ia, v, n, iov, privilege, maxIov, arg, epPz);
    }

    /** {@link #resolveLocal(io.jdat.spi.IoVector, int, LmrTriplet[], int, int, int, CorePz)} for any PZ of {@code ia} (SRQ posts). */
    static void resolveLocal(CoreIa ia, io.jdat.spi.IoVector v, int n, LmrTriplet[] iov, int privilege, int maxIov,
            int arg, CorePz epPz) {
        if (n < 0 || n > maxIov) {
            throw Fail.param(arg - 1, "num_segments " + n + " outside 0.." + maxIov);
        }
        if (n > 0 && (iov == null || iov.length < n)) {
            throw Fail.param(arg, "local_iov has fewer than num_segments entries");
        }
        v.reset();
        for (int i = 0; i < n; i++) {
            LmrTriplet t = iov[i];
            if (t == null) {
                throw Fail.param(arg, "local_iov[" + i + "] is null");
            }
            long len = t.segmentLength();
            if (len == 0) {
                continue;
            }
            Region r = ia.memory.lookup(t.lmrContext());
            if (r == null || !r.local()) {
                throw Fail.of(DatReturnType.PRIVILEGES_VIOLATION, privilege == MemPriv.LOCAL_READ
                        ? DatReturnSubtype.PRIVILEGES_READ : DatReturnSubtype.PRIVILEGES_WRITE,
                        "local_iov[" + i + "]: invalid LMR context 0x" + Integer.toHexString(t.lmrContext()));
            }
            if (r.pz() != epPz) {
                throw Fail.of(DatReturnType.PROTECTION_VIOLATION, privilege == MemPriv.LOCAL_READ
                        ? DatReturnSubtype.PROTECTION_READ : DatReturnSubtype.PROTECTION_WRITE,
                        "local_iov[" + i + "]: LMR in another PZ");
            }
            if ((r.privileges() & privilege) == 0) {
                throw Fail.of(DatReturnType.PRIVILEGES_VIOLATION, privilege == MemPriv.LOCAL_READ
                        ? DatReturnSubtype.PRIVILEGES_READ : DatReturnSubtype.PRIVILEGES_WRITE,
                        "local_iov[" + i + "]: LMR lacks " + (privilege == MemPriv.LOCAL_READ ? "local read" : "local write"));
            }
            long off = r.offsetOf(t.virtualAddress(), len);
            if (off < 0) {
                throw Fail.param(arg, "local_iov[" + i + "] lies outside its LMR");
            }
            v.add(r.segment(), off, len, r.lmr().deviceKey);
        }
    }

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
            S s = state;
            if (s != S.C && s != S.D) {
                throw badState(s, op + " post");
            }
            EpAttr a = attr;
            CompletionRules.checkRequestPostFlags(flags, a.requestCompletionFlags(), send, flagsArg);
            int maxIov = switch (op) {
                case RDMA_READ -> Math.min(a.maxRequestIov(), a.maxRdmaReadIov());
                case RDMA_WRITE -> Math.min(a.maxRequestIov(), a.maxRdmaWriteIov());
                default -> a.maxRequestIov();
            };
            boolean full = req.tail - req.head >= reqRing.length;
            WorkRequest wr = s == S.D || full ? reqScratch : reqRing[(int) (req.tail % reqRing.length)];
            int privilege = op == WorkRequest.Op.RDMA_READ ? MemPriv.LOCAL_WRITE : MemPriv.LOCAL_READ;
            resolveLocal(wr, n, iov, privilege, maxIov, 3, pz);
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
            if (s == S.D) {
                // RDR-10, SND-06, RWR-05: accepted and flushed at once, even with SUPPRESS.
                counters.reqPosted++;
                counters.reqFlushed++;
                postRequestCompletion(op, null, cookie, flags, DtoCompletionStatus.ERR_FLUSHED, 0);
                return;
            }
            if (full) {
                throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                        "max_request_dtos " + reqRing.length + " outstanding");
            }
            if (remote != null) {
                wr.set(op, flags, remote.rmrContext(), remote.targetAddress(), remoteLength);
            } else {
                wr.set(op, flags, 0, 0, local);
            }
            counters.reqPosted++;
            commitRequest(wr, cookie, null);
        } finally {
            txLock.unlock();
        }
    }

    /** Publishes the request at the tail and hands it to the transport (txLock held: single writer). */
    private void commitRequest(WorkRequest wr, long cookie, CoreRmr rmr) {
        long t = req.tail;
        int idx = (int) (t % reqRing.length);
        reqCookie[idx] = cookie;
        reqPosted[idx] = JfrEvents.recording ? System.nanoTime() : 0L;
        reqRmr[idx] = rmr;
        req.tail = t + 1; // volatile: the slot is complete before a completer can see it
        channel.submit(wr);
    }

    /** {@code dat_rmr_bind} through this EP's request queue; returns the new context. */
    int postBind(CoreRmr rmr, LmrTriplet triplet, Region target, int priv, long cookie, int flags) {
        txLock.lock();
        try {
            checkAlive();
            S s = state;
            if (s != S.C && s != S.D) {
                throw badState(s, "RMR bind");
            }
            if (s == S.D) {
                postRequestCompletion(WorkRequest.Op.RMR_BIND, rmr, cookie, flags, DtoCompletionStatus.ERR_FLUSHED, 0);
                return rmr.peekContext();
            }
            if (req.tail - req.head >= reqRing.length) {
                throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                        "max_request_dtos outstanding");
            }
            int ctx = rmr.applyBind(triplet, target, priv);
            WorkRequest wr = reqRing[(int) (req.tail % reqRing.length)];
            wr.reset();
            wr.set(WorkRequest.Op.RMR_BIND, flags, ctx, 0, 0);
            commitRequest(wr, cookie, rmr);
            return ctx;
        } finally {
            txLock.unlock();
        }
    }

    /** Reports one request completion per the completion flags (from a post, a flush or the transport). */
    private void postRequestCompletion(WorkRequest.Op op, CoreRmr rmr, long cookie, int flags,
            DtoCompletionStatus status, long length) {
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
            boolean flushNow = state == S.D && !flushPending;
            ReceiveQueue.Slot b = flushNow ? null : q.next();
            resolveLocal(b == null ? recvScratch : b, n, iov, MemPriv.LOCAL_WRITE, a.maxRecvIov(), 3, pz);
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
            wake = state == S.C || state == S.DP;
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
        if (hardHw != Dat.WATERMARK_INFINITE && held > hardHw && (state == S.C || state == S.DP)) {
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
        S s = state;
        if (s != S.C && s != S.DP) {
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
        S s = state;
        if ((s != S.ACP && s != S.CP) || srqHeld != null) {
            return null;
        }
        return recvQueue.take();
    }

    /** What a device transport needs to build this EP's queue pair (ignored by software transports). */
    private EndpointResources resources() {
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
        S s = state;
        if (s == S.C || s == S.DP) {
            Channel ch = channel;
            if (ch != null) {
                ch.recvPosted();
            }
        }
    }

    @Override
    public boolean isAccepting() {
        S s = state;
        return s == S.C || s == S.DP;
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
        Region r = ia.memory.lookup(rmrContext);
        if (r == null || (r.privileges() & privilege) == 0 || r.pz() != pz) {
            return RemoteRegion.ACCESS_ERROR;
        }
        long off = r.offsetOf(address, length);
        if (off < 0 || !r.segment().scope().isAlive()) {
            return RemoteRegion.ACCESS_ERROR;
        }
        out.set(r.segment(), off);
        return RemoteRegion.OK;
    }

    @Override
    public void requestCompleted(DtoCompletionStatus status, long length) {
        long head = req.head;
        if (head == req.tail) {
            return;
        }
        int idx = (int) (head % reqRing.length);
        WorkRequest wr = reqRing[idx];
        CoreRmr rmr = reqRmr[idx];
        reqRmr[idx] = null;
        long cookie = reqCookie[idx];
        WorkRequest.Op op = wr.op();
        int flags = wr.completionFlags();
        if (rmr != null && status != DtoCompletionStatus.SUCCESS) {
            rmr.bindFailed(wr.remoteContext()); // RMB-05: a failed bind binds nothing
        }
        if (op != WorkRequest.Op.RMR_BIND) {
            counters.requestCompleted(status, length);
            if (JfrEvents.wanted(status, length)) {
                JfrEvents.dto(this, op.name(), status, length, cookie, reqPosted[idx]);
            }
        }
        req.head = head + 1; // volatile: the slot may be reused; pairs with the DP check in disconnect
        postRequestCompletion(op, rmr, cookie, flags, status, length);
        boolean drained = state == S.DP && head + 1 == req.tail;
        if (drained) {
            Timers.execute(this::endGracefulDisconnect);
        }
    }

    @Override
    public void remoteDisconnected() {
        enterDisconnectedFromConnection(EventNumber.CONNECTION_EVENT_DISCONNECTED, Channel.CLOSE_SILENT);
    }

    @Override
    public void broken() {
        enterDisconnectedFromConnection(EventNumber.CONNECTION_EVENT_BROKEN, Channel.CLOSE_BREAK);
    }

    /**
     * A transport's report about an established connection: it counts only while the EP is CONNECTED or
     * DISCONNECT_PENDING. A report that arrives late (the consumer already disconnected, reset and is
     * connecting again) must not end the next connection attempt (§7.2 allows no BROKEN in ACP).
     */
    private void enterDisconnectedFromConnection(EventNumber event, int closeMode) {
        txLock.lock();
        try {
            S s = state;
            if (s == S.C || s == S.DP) {
                enterDisconnected(event, closeMode);
            }
        } finally {
            txLock.unlock();
        }
    }

    // ================================================================== connection establishment

    @Override
    public void connect(SocketAddress addr, long qual, int timeout, int pdSize, byte[] pd, int qos, int flags) {
        checkAlive();
        connectTo(addr, qual, timeout, pdSize, pd, qos, flags, 0);
    }

    @Override
    public void dupConnect(Endpoint dupEp, int timeout, int pdSize, byte[] pd, int qos) {
        checkAlive();
        CoreEp dup = Core.epArg(dupEp, null);
        SocketAddress addr;
        long qual;
        int flags;
        dup.lock.lock();
        try {
            if (dup.state != S.C) {
                throw Fail.state(stateSubtype(dup.state), "dup_ep_handle is not connected (EPQ-06)");
            }
            addr = dup.remoteAddress;
            qual = dup.connectedQual;
            flags = dup.connectFlags;
        } finally {
            dup.lock.unlock();
        }
        connectTo(addr, qual, timeout, pdSize, pd, qos, flags, -1);
    }

    /**
     * The common part of connect and dup_connect; {@code shift} maps connect's argument positions (timeout
     * is argument 4) to the caller's (-1 for dup_connect, whose timeout is argument 3).
     */
    private void connectTo(SocketAddress addr, long qual, int timeout, int pdSize, byte[] pd, int qos, int flags,
            int shift) {
        if (addr == null) {
            throw Fail.param(2, "no remote IA address (CON-25)");
        }
        if (timeout == 0) {
            throw Fail.param(4 + shift, "timeout must be positive (CON-17)");
        }
        byte[] data = privateData(pdSize, pd, 5 + shift);
        if ((qos & ~Qos.ALL) != 0) {
            throw Fail.param(7 + shift, "undefined QoS bits");
        }
        if ((qos & ~ia.limits.qosSupported()) != 0) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "QoS 0x" + Integer.toHexString(qos) + " (CON-06)");
        }
        if ((flags & ~ConnectFlags.MULTIPATH) != 0) {
            throw Fail.param(8, "undefined connect flags");
        }
        if ((flags & ConnectFlags.MULTIPATH) != 0) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "multipath is not supported");
        }
        if (!ia.transport.isValidAddress(addr)) {
            throw Fail.of(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                    "not an address of this transport: " + addr + " (CON-12)");
        }
        int ird;
        int ord;
        txLock.lock();
        lock.lock();
        try {
            checkAlive();
            if (state != S.U) {
                throw badState(state, "connect (CON-16)");
            }
            if (!configured()) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EP_NOTREADY, "EP lacks a PZ or a connect EVD (CON-25)");
            }
            state = S.ACP;
            remoteAddress = addr;
            remotePortQual = qual;
            connectedQual = qual;
            connectFlags = flags;
            ird = attr.maxRdmaReadIn();
            ord = attr.maxRdmaReadOut();
        } finally {
            lock.unlock();
            txLock.unlock();
        }
        Transport.ConnectAttempt at = ia.transport.connect(addr, qual, data, ird, ord, this, resources());
        boolean cancel;
        lock.lock();
        try {
            cancel = state != S.ACP && state != S.C;
            if (state == S.ACP) {
                attempt = at;
                localPortQual = at.localPortQual();
                if (timeout != Dat.TIMEOUT_INFINITE) {
                    timeoutTask = Timers.schedule(this::connectTimedOut, Integer.toUnsignedLong(timeout),
                            TimeUnit.MICROSECONDS);
                }
            }
        } finally {
            lock.unlock();
        }
        if (cancel) {
            at.cancel();
        }
    }

    /** Checks private data against the provider limit (CON-18/19, CRA-03) and copies it. */
    byte[] privateData(int size, byte[] pd, int arg) {
        if (size < 0 || size > ia.limits.maxPrivateDataSize()) {
            throw Fail.param(arg, "private data size " + size + " outside 0.." + ia.limits.maxPrivateDataSize());
        }
        if (size > 0 && (pd == null || pd.length < size)) {
            throw Fail.param(arg + 1, "private data shorter than its size");
        }
        return size == 0 ? new byte[0] : java.util.Arrays.copyOf(pd, size);
    }

    private void connectTimedOut() {
        Transport.ConnectAttempt at;
        lock.lock();
        try {
            if (state != S.ACP) {
                return;
            }
            at = attempt;
        } finally {
            lock.unlock();
        }
        if (at != null) {
            at.cancel();
        }
        enterDisconnectedFrom(S.ACP, EventNumber.CONNECTION_EVENT_TIMED_OUT, Channel.CLOSE_SILENT);
    }

    @Override
    public ChannelSink established(Channel ch, byte[] pd) {
        lock.lock();
        try {
            if (state != S.ACP || freed) {
                return null;
            }
            channel = ch;
            localPortQual = ch.localPortQual();
            peerPrivateData = pd == null ? new byte[0] : pd;
            state = S.C;
            cancelTimer();
            attempt = null;
            connectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, peerPrivateData);
            return this;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void peerRejected() {
        enterDisconnectedFrom(S.ACP, EventNumber.CONNECTION_EVENT_PEER_REJECTED, Channel.CLOSE_SILENT);
    }

    @Override
    public void nonPeerRejected() {
        enterDisconnectedFrom(S.ACP, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, Channel.CLOSE_SILENT);
    }

    @Override
    public void unreachable() {
        enterDisconnectedFrom(S.ACP, EventNumber.CONNECTION_EVENT_UNREACHABLE, Channel.CLOSE_SILENT);
    }

    /** {@code dat_cr_accept} with this EP (called by {@link CoreCr}); the CR is consumed on success. */
    void accept(CoreCr cr, byte[] pd) {
        txLock.lock();
        lock.lock();
        try {
            checkAlive();
            S s = state;
            boolean ok = (cr.carriedEp == null && s == S.U) || (cr.carriedEp == this && (s == S.PCP || s == S.TCP));
            if (!ok) {
                throw badState(s, "accept (AMB-16)");
            }
            if (!configured()) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_EP_NOTREADY, "EP lacks a PZ or a connect EVD (PSP-13)");
            }
            state = S.CP;
            pendingCr = null;
            remoteAddress = cr.request.remoteAddress();
            remotePortQual = cr.request.remotePortQual();
            localPortQual = cr.request.connQual();
            connectedQual = cr.request.connQual();
        } finally {
            lock.unlock();
            txLock.unlock();
        }
        cr.request.accept(this, pd, attr.maxRdmaReadIn(), attr.maxRdmaReadOut(), resources());
    }

    /** The RSP delivered its request: R → PCP. */
    void reservedRequestArrived(CoreCr cr) {
        lock.lock();
        try {
            rsp = null;
            pendingCr = cr;
            state = S.PCP;
            remoteAddress = cr.request.remoteAddress();
            remotePortQual = cr.request.remotePortQual();
            localPortQual = cr.request.connQual(); // EPQ-03
        } finally {
            lock.unlock();
        }
    }

    /** {@code dat_cr_reject} of the request that carries this EP: PCP → U, TCP → provider control. */
    void requestRejected() {
        lock.lock();
        try {
            pendingCr = null;
            remoteAddress = null;
            remotePortQual = 0;
            state = S.U;
        } finally {
            lock.unlock();
        }
        if (providerCreated) {
            destroy();
            ia.unregister(this);
        }
    }

    /** {@code dat_rsp_create}: U → R. */
    void reserve(CoreRsp r) {
        lock.lock();
        try {
            if (state != S.U) {
                throw badState(state, "rsp_create (RSP-01)");
            }
            state = S.R;
            rsp = r;
        } finally {
            lock.unlock();
        }
    }

    /** {@code dat_rsp_free}: R → U. */
    void unreserve(CoreRsp r) {
        lock.lock();
        try {
            if (state == S.R && rsp == r) {
                state = S.U;
                rsp = null;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public ChannelSink established(Channel ch) {
        lock.lock();
        try {
            if (state != S.CP || freed) {
                return null;
            }
            channel = ch;
            state = S.C;
            connectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
            return this;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void acceptFailed() {
        enterDisconnectedFrom(S.CP, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, Channel.CLOSE_SILENT);
    }

    // ================================================================== disconnect, reset, free

    @Override
    public void disconnect(int flags) {
        checkAlive();
        if (flags != CloseFlags.ABRUPT && flags != CloseFlags.GRACEFUL) {
            throw Fail.param(2, "undefined disconnect flags " + flags + " (DSC-16)");
        }
        Transport.ConnectAttempt at = null;
        boolean graceful = false;
        txLock.lock();
        try {
            lock.lock();
            try {
                S s = state;
                switch (s) {
                    case D:
                        return; // DSC-13
                    case U, R, PCP, TCP:
                        throw badState(s, "disconnect (DSC-14)");
                    case DP:
                        if (flags == CloseFlags.GRACEFUL) {
                            return; // DSC-08, AMB-15
                        }
                        break;
                    case C:
                        if (flags == CloseFlags.GRACEFUL) {
                            // DSC-06: let outstanding requests finish. State first, then the counters
                            // again: a completion that ran before DP was visible saw state C and did not
                            // end the disconnect, so if nothing is left now, end it here (the
                            // completion side does the same check the other way round).
                            state = S.DP;
                            if (req.tail != req.head) {
                                return;
                            }
                            graceful = true;
                        }
                        break;
                    case ACP:
                        at = attempt;
                        break;
                    default:
                        break;
                }
            } finally {
                lock.unlock();
            }
            if (at != null) {
                at.cancel();
            }
            if (graceful) {
                endGracefulDisconnect();
                return;
            }
            enterDisconnected(EventNumber.CONNECTION_EVENT_DISCONNECTED, Channel.CLOSE_DISCONNECT);
        } finally {
            txLock.unlock();
        }
    }

    /**
     * A graceful disconnect whose requests all finished: the transport drains the connection and reports its
     * end ({@link Channel#disconnectGracefully}: DISCONNECTED once the peer has everything); a transport with
     * nothing to wait for ends it now.
     */
    private void endGracefulDisconnect() {
        txLock.lock();
        try {
            Channel ch = channel;
            if (state != S.DP || (ch != null && ch.disconnectGracefully())) {
                return;
            }
            enterDisconnected(EventNumber.CONNECTION_EVENT_DISCONNECTED, Channel.CLOSE_DISCONNECT);
        } finally {
            txLock.unlock();
        }
    }

    /** Enters D only if the EP is still in {@code from} (connection outcomes race with other transitions). */
    private void enterDisconnectedFrom(S from, EventNumber event, int closeMode) {
        txLock.lock();
        try {
            if (state != from) {
                return;
            }
            enterDisconnected(event, closeMode);
        } finally {
            txLock.unlock();
        }
    }

    /**
     * Enters DISCONNECTED (§7.5): stops the transport, flushes every outstanding request and receive, then
     * reports {@code event} on the connect EVD, so that completions precede the connection event (DSC-12).
     */
    void enterDisconnected(EventNumber event, int closeMode) {
        txLock.lock();
        try {
            Channel ch;
            lock.lock();
            try {
                S s = state;
                if (s == S.D || s == S.U || s == S.R || s == S.PCP || s == S.TCP || freed) {
                    return;
                }
                state = S.D;
                flushPending = true;
                ch = channel;
                cancelTimer();
            } finally {
                lock.unlock();
            }
            if (ch != null) {
                ch.close(closeMode);
            }
            lock.lock();
            try {
                flushLocked();
                flushPending = false;
                if (event != null) {
                    connectionEvent(event, null);
                }
            } finally {
                lock.unlock();
            }
        } finally {
            txLock.unlock();
        }
    }

    /** Completes every outstanding request and receive as FLUSHED, oldest first (lock held). */
    private void flushLocked() {
        while (req.head != req.tail) {
            int idx = (int) (req.head % reqRing.length);
            WorkRequest wr = reqRing[idx];
            CoreRmr rmr = reqRmr[idx];
            reqRmr[idx] = null;
            req.head++;
            if (rmr != null) {
                rmr.bindFailed(wr.remoteContext()); // a flushed bind binds nothing
            } else {
                counters.reqFlushed++;
            }
            postRequestCompletion(wr.op(), rmr, reqCookie[idx], wr.completionFlags(), DtoCompletionStatus.ERR_FLUSHED, 0);
        }
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

    /** Reports a connection event to the connect EVD and to JFR ({@link JfrEvents}); lock held. */
    private void connectionEvent(EventNumber n, byte[] pd) {
        JfrEvents.connection(this, n, remoteAddress, connectedQual);
        if (connectEvd != null) {
            connectEvd.postConnection(n, this, pd);
        }
    }

    private void cancelTimer() {
        ScheduledFuture<?> t = timeoutTask;
        if (t != null) {
            t.cancel(false);
            timeoutTask = null;
        }
    }

    @Override
    public void reset() {
        checkAlive();
        txLock.lock();
        lock.lock();
        try {
            S s = state;
            if (s == S.U) {
                return; // RST-03
            }
            if (s != S.D) {
                throw badState(s, "reset (RST-04)");
            }
            state = S.U;
            channel = null;
            attempt = null;
            remoteAddress = null;
            remotePortQual = 0;
            localPortQual = 0;
            peerPrivateData = new byte[0];
            req.head = req.tail = 0;
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
            S s = state;
            if (s == S.R || s == S.PCP || s == S.TCP) {
                throw badState(s, "free (EPF-01)");
            }
            freed = true;
            at = attempt;
            ch = channel;
            cancelTimer();
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
            if (freed) {
                return;
            }
            freed = true;
            at = attempt;
            ch = channel;
            r = rsp;
            cancelTimer();
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
