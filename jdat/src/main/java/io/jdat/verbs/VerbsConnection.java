package io.jdat.verbs;

import static io.jdat.verbs.VerbsLayouts.CM_ID_HEAD;
import static io.jdat.verbs.VerbsLayouts.CONN_PARAM;
import static io.jdat.verbs.VerbsLayouts.QP_INIT_ATTR;
import static io.jdat.verbs.VerbsLayouts.RDMA_PS_TCP;
import static io.jdat.verbs.VerbsLayouts.RECV_WR;
import static io.jdat.verbs.VerbsLayouts.RWR_NUM_SGE;
import static io.jdat.verbs.VerbsLayouts.RWR_SG_LIST;
import static io.jdat.verbs.VerbsLayouts.RWR_WR_ID;
import static io.jdat.verbs.VerbsLayouts.SEND_WR;
import static io.jdat.verbs.VerbsLayouts.SGE;
import static io.jdat.verbs.VerbsLayouts.SGE_LENGTH;
import static io.jdat.verbs.VerbsLayouts.SWR_NEXT;
import static io.jdat.verbs.VerbsLayouts.SWR_NUM_SGE;
import static io.jdat.verbs.VerbsLayouts.SWR_OPCODE;
import static io.jdat.verbs.VerbsLayouts.SWR_REMOTE_ADDR;
import static io.jdat.verbs.VerbsLayouts.SWR_RKEY;
import static io.jdat.verbs.VerbsLayouts.SWR_SEND_FLAGS;
import static io.jdat.verbs.VerbsLayouts.SWR_SG_LIST;
import static io.jdat.verbs.VerbsLayouts.SWR_WR_ID;
import static io.jdat.verbs.VerbsLayouts.WC;
import static io.jdat.verbs.VerbsLayouts.WC_BYTE_LEN;
import static io.jdat.verbs.VerbsLayouts.WC_STATUS;
import static io.jdat.verbs.VerbsLayouts.WC_WR_ID;
import static io.jdat.verbs.VerbsLayouts.offset;
import static io.jdat.verbs.VerbsTransport.call;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jdat.CompletionFlags;
import io.jdat.DtoCompletionStatus;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.EndpointResources;
import io.jdat.spi.PassiveHandler;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.Transport;
import io.jdat.spi.WorkRequest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One EP's connection on a device: an rdma_cm id with an RC queue pair ({@code rdma_create_qp}) and its own
 * CQ on the IA's completion channel. The native work requests and their SGE arrays are allocated when the
 * queue pair is, one per queue slot, so that {@link #submit}, {@link #recvPosted} and {@link #poll} allocate
 * nothing: they fill a slot and call the device context's {@code post_send}, {@code post_recv} and
 * {@code poll_cq} function pointers directly (the static inline functions of {@code verbs.h} do the same).
 *
 * <p>Send-queue completions map in order onto the core's request queue ({@link SendQueue}); the core applies DAT's
 * completion flags. A SUPPRESSed Send or RDMA Write goes to the device unsignalled, and a later completion (or the
 * progress thread's marker behind an idle tail, {@link #signalIdleTail}) completes it. Receive buffers are taken from
 * the core as soon as they are posted (also while the connection is set up, {@link ChannelSink#takeRecvInSetup}) and
 * handed to the device; they complete in order. A failed work completion reports its DAT status and breaks the
 * connection; the core flushes the rest. An RMR bind is the device's window bind ({@code bind_mw}) on a device
 * with memory windows, else (the fallback, registered synchronously by the core, see
 * {@link io.jdat.spi.DeviceMemory}) a zero-length RDMA Write; either completes in queue order.
 */
final class VerbsConnection implements Channel, Transport.ConnectAttempt, VerbsTransport.CmHandler {
    /** Work completions read per {@code poll_cq}. */
    static final int POLL_BATCH = 16;
    /**
     * The system property that sets the inline data a QP asks for, bytes (default {@value #DEFAULT_INLINE}; 0: none).
     * A device that cannot give it gets a QP without inline data.
     */
    static final String INLINE_PROPERTY = "jdat.verbs.inlineBytes";
    /** The default inline request: a small Send or RDMA Write, as DAPL's openib providers do (their default 64 B). */
    static final int DEFAULT_INLINE = 64;
    /** {@link #INLINE_PROPERTY}, read once. */
    static final int INLINE_REQUEST = Math.clamp(Integer.getInteger(INLINE_PROPERTY, DEFAULT_INLINE), 0, 1024);
    private static final int IDLE = 0;
    private static final int SETUP = 1;
    private static final int UP = 2;
    private static final int DOWN = 3;
    /** Set in the wr_id of receive work requests: the two queues number their requests apart. */
    static final long RECV_BIT = 1L << 63;
    /**
     * The system property that lets {@code DAT_COMPLETION_SUPPRESS_FLAG} Sends and RDMA Writes go to the device
     * unsignalled ({@link SendQueue}; default true; false: every work request is signalled).
     */
    static final String UNSIGNALLED_PROPERTY = "jdat.verbs.unsignalled";
    /** {@link #UNSIGNALLED_PROPERTY}, read once. */
    static final boolean UNSIGNALLED = Boolean.parseBoolean(System.getProperty(UNSIGNALLED_PROPERTY, "true"));

    private final VerbsTransport t;
    private final EndpointResources res;
    /** The device queue of the EP's SRQ, or {@code null}: receives come from it, the QP has no receive queue. */
    private final VerbsSrq srq;
    private final boolean active;
    private final ActiveHandler activeHandler;
    private final PassiveHandler passiveHandler;
    private final byte[] privateData;
    private final int ird;
    private final int ord;
    private final Arena arena = Arena.ofShared();
    private MemorySegment id;
    private MemorySegment qp = MemorySegment.NULL;
    private MemorySegment cq = MemorySegment.NULL;
    private volatile int state = IDLE;
    private volatile boolean cancelled;
    private volatile boolean destroyed;
    /** The device reported this QP (or its CQ) in error: a disconnect that follows is a break. */
    private volatile boolean deviceBroken;
    /** The peer's disconnect is being handled: the flushes it causes are not a break. */
    private boolean peerClosing;
    private volatile ChannelSink sink;
    private InetSocketAddress local;
    private InetSocketAddress remote;
    private long localPort;

    // Send queue: slots [done, posted) of {@link #sq} are at the device. Filled by submit (sendLock).
    // A DAT request takes one slot, or several when an RDMA Read or Write has more segments than one device
    // request may carry (siw: max_sge_rd 1): its parts, chained, posted at once, each signalled.
    /** Device send-queue slots: the EP's request depth times the most parts one request may need. */
    private int sendDepth;
    /** SGEs a DAT request may fill. */
    private int sendSge;
    /**
     * A slot's share of {@link #sendSges}: {@link #sendSge}, twice that on siw, whose short payloads across a page
     * are split in two ({@link VerbsSges#splitShortPageCrossings}).
     */
    private int sgeStride;
    /** SGEs one device request may carry: a Send or Write ({@code max_sge}), a Read ({@code max_sge_rd}). */
    private int deviceSge;
    private int deviceSgeRd;
    /**
     * The most bytes a Send or RDMA Write carries inline ({@code IBV_SEND_INLINE}: the provider copies them into the
     * work request when it is posted, and the device does not read the buffer again): what the QP got of
     * {@link #INLINE_PROPERTY}'s request, 0 for none.
     */
    private int maxInline;
    private MemorySegment sendWrs;
    private MemorySegment sendSges;
    /** The send queue's slots, signalling and completion order (created with the QP). */
    private SendQueue sq;
    /** Where {@link #sq} reports: the core's sink, while the connection is up. */
    private final SendQueue.Completions sendSink = new SendQueue.Completions() {
        @Override
        public void requestCompleted(DtoCompletionStatus status, long length) {
            sink.requestCompleted(status, length);
        }

        @Override
        public void broken() {
            breakNow(sink);
        }

        @Override
        public boolean up() {
            return state == UP;
        }
    };
    private MemorySegment badWr;
    /** The {@code struct ibv_mw_bind} of a window bind (filled under {@link #sendLock}; the provider copies it). */
    private MemorySegment mwBind;
    private long mwBindAddress;

    // Receive queue: slots [recvDone, recvPosted) are at the device. Filled under recvLock.
    private final ReentrantLock recvLock = new ReentrantLock();
    /**
     * Held by {@link #submit} across its state check and the post, and taken by {@link #destroy} before it frees
     * the QP and the work requests: the data-path downcalls take raw addresses ({@link Verbs#POST_SEND}), which no
     * arena keeps alive, so a post racing a close (the consumer's, under the core's EP lock, against the progress
     * thread's destroy) must end before the memory goes. Uncontended: one lock and unlock per post.
     */
    private final ReentrantLock sendLock = new ReentrantLock();
    private int recvDepth;
    private int recvSge;
    private MemorySegment recvWrs;
    private MemorySegment recvSges;
    private RecvBuffer[] recvBufs;
    /** Receives handed to the device (read and written under recvLock only: a plain field). */
    private long recvPosted;
    /**
     * Receives completed: written by the poll thread, which then pumps under recvLock after a successful receive,
     * so later pumps see it (a failed receive breaks the connection: nothing is pumped after it).
     */
    private long recvDone;
    private MemorySegment badRecv;

    private MemorySegment wcs;
    /**
     * Raw addresses of the QP, the CQ, {@link #wcs} and the bad-WR words, for the data-path downcalls
     * ({@link Verbs#POST_SEND}): set with them in {@link #createQp}, before the connection is UP.
     */
    private long qpAddress;
    private long cqAddress;
    private long wcsAddress;
    private long badWrAddress;
    private long badRecvAddress;

    private VerbsConnection(VerbsTransport t, EndpointResources res, boolean active, ActiveHandler ah,
            PassiveHandler ph, byte[] privateData, int ird, int ord) {
        this.t = t;
        this.res = res;
        this.srq = res == null ? null : (VerbsSrq) res.srq();
        this.active = active;
        this.activeHandler = ah;
        this.passiveHandler = ph;
        this.privateData = privateData == null ? new byte[0] : privateData;
        this.ird = ird;
        this.ord = ord;
    }

    // ================================================================== setting up

    /** {@code dat_ep_connect}: create an id, resolve the address, then the route, then connect. */
    static VerbsConnection connect(VerbsTransport t, InetSocketAddress remote, long qual, byte[] pd, int ird,
            int ord, ActiveHandler handler, EndpointResources res) {
        VerbsConnection c = new VerbsConnection(t, res, true, handler, null, pd, ird, ord);
        c.remote = new InetSocketAddress(remote.getAddress(), (int) qual);
        MemorySegment out = c.arena.allocate(ADDRESS);
        int rc = call(() -> (int) t.v.createId.invokeExact(t.channel, out, MemorySegment.NULL, RDMA_PS_TCP));
        if (rc != 0) {
            t.execute(handler::nonPeerRejected);
            return c;
        }
        c.id = out.get(ADDRESS, 0).reinterpret(CM_ID_HEAD.byteSize());
        t.handlers.put(c.id.address(), c);
        c.state = SETUP;
        if (qual <= 0 || qual > 0xFFFF) {
            t.execute(() -> c.fail(() -> handler.nonPeerRejected()));
            return c;
        }
        MemorySegment src = VerbsTransport.sockaddr(c.arena, t.config.address(), 0);
        MemorySegment dst = VerbsTransport.sockaddr(c.arena, remote.getAddress(), (int) qual);
        MemorySegment idf = c.id;
        rc = call(() -> (int) t.v.resolveAddr.invokeExact(idf, src, dst, VerbsTransport.RESOLVE_MS));
        if (rc != 0) {
            t.execute(() -> c.fail(handler::unreachable));
            return c;
        }
        c.localPort = Short.toUnsignedInt(Short.reverseBytes(call(() -> (short) t.v.getSrcPort.invokeExact(idf))));
        c.local = new InetSocketAddress(t.config.address(), (int) c.localPort);
        return c;
    }

    /** {@code dat_cr_accept}: the queue pair on the request's id, receives handed over, then rdma_accept. */
    static void accept(VerbsTransport t, MemorySegment id, InetSocketAddress from, long connQual,
            PassiveHandler passive, byte[] pd, int ird, int ord, EndpointResources res) {
        VerbsConnection c = new VerbsConnection(t, res, false, null, passive, pd, ird, ord);
        c.id = id;
        c.remote = from;
        c.localPort = connQual;
        c.local = new InetSocketAddress(t.config.address(), (int) connQual);
        c.state = SETUP;
        t.handlers.put(id.address(), c);
        if (!c.createQp()) {
            c.rejectAndFail(passive);
            return;
        }
        c.pumpRecv();
        MemorySegment param = c.connParam();
        int rc = call(() -> (int) t.v.accept.invokeExact(id, param));
        if (rc != 0) {
            t.execute(() -> c.fail(passive::acceptFailed));
        }
    }

    private void rejectAndFail(PassiveHandler passive) {
        MemorySegment m = arena.allocateFrom(JAVA_BYTE, VerbsListener.REFUSE_MARK);
        call(() -> (int) t.v.reject.invokeExact(id, m, (byte) VerbsListener.REFUSE_MARK.length));
        t.execute(() -> fail(passive::acceptFailed));
    }

    private MemorySegment connParam() {
        MemorySegment p = arena.allocate(CONN_PARAM);
        if (privateData.length > 0) {
            p.set(ADDRESS, offset(CONN_PARAM, "private_data"), arena.allocateFrom(JAVA_BYTE, privateData));
        }
        p.set(JAVA_BYTE, offset(CONN_PARAM, "private_data_len"), (byte) privateData.length);
        p.set(JAVA_BYTE, offset(CONN_PARAM, "responder_resources"), (byte) Math.min(ird, t.limits().maxRdmaReadIn()));
        p.set(JAVA_BYTE, offset(CONN_PARAM, "initiator_depth"), (byte) Math.min(ord, t.limits().maxRdmaReadOut()));
        p.set(JAVA_BYTE, offset(CONN_PARAM, "retry_count"), (byte) 7);
        p.set(JAVA_BYTE, offset(CONN_PARAM, "rnr_retry_count"), (byte) 7);
        return p;
    }

    /** Creates the CQ and the RC queue pair and pre-allocates the native work requests. */
    private boolean createQp() {
        if (res == null || res.domain() == null) {
            return false;
        }
        sendSge = Math.max(1, res.maxRequestIov());
        deviceSge = Math.min(sendSge, t.maxSge);
        deviceSgeRd = Math.min(deviceSge, t.maxSgeRd);
        sgeStride = t.siw ? 2 * sendSge : sendSge;
        int parts = (sgeStride + deviceSgeRd - 1) / deviceSgeRd + (t.iwarp ? 1 : 0); // + a fenced Read's lead
        long needed = (long) res.maxRequests() * parts;
        // Selective signalling needs one slot more, for the marker behind an idle unsignalled tail (SendQueue).
        sendDepth = (int) Math.max(1, Math.min(needed + 1, t.maxQpWr));
        int every = UNSIGNALLED && sendDepth > needed ? Math.max(1, res.maxRequests() / 2) : 1;
        recvDepth = srq != null ? 0 : Math.max(1, Math.min(res.maxRecvs(), t.maxQpWr));
        recvSge = srq != null ? 0 : Math.max(1, Math.min(res.maxRecvIov(), t.maxSge));
        // With an SRQ every one of its entries may complete on this QP's CQ.
        int recvCqe = srq != null ? Math.min(t.maxSrqWr, Math.max(1, res.maxRecvs()) + 1024) : recvDepth;
        int cqe = Math.min(sendDepth + recvCqe, Math.max(1, t.maxCqe));
        int cqeF = cqe;
        MemorySegment c = call(() -> (MemorySegment) t.v.createCq.invokeExact(t.context, cqeF, MemorySegment.NULL,
                t.compChannel, 0));
        if (c.equals(MemorySegment.NULL)) {
            return false;
        }
        cq = c;
        MemorySegment a = arena.allocate(QP_INIT_ATTR);
        a.set(ADDRESS, offset(QP_INIT_ATTR, "send_cq"), cq);
        a.set(ADDRESS, offset(QP_INIT_ATTR, "recv_cq"), cq);
        long cap = offset(QP_INIT_ATTR, "cap");
        a.set(JAVA_INT, cap + offset(VerbsLayouts.QP_CAP, "max_send_wr"), sendDepth);
        a.set(JAVA_INT, cap + offset(VerbsLayouts.QP_CAP, "max_recv_wr"), recvDepth);
        a.set(JAVA_INT, cap + offset(VerbsLayouts.QP_CAP, "max_send_sge"), deviceSge);
        a.set(JAVA_INT, cap + offset(VerbsLayouts.QP_CAP, "max_recv_sge"), recvSge);
        a.set(JAVA_INT, offset(QP_INIT_ATTR, "qp_type"), VerbsLayouts.IBV_QPT_RC);
        if (srq != null) {
            a.set(ADDRESS, offset(QP_INIT_ATTR, "srq"), srq.srq);
        }
        MemorySegment pd = ((VerbsDomain) res.domain()).pd;
        long inlineAt = cap + offset(VerbsLayouts.QP_CAP, "max_inline_data");
        a.set(JAVA_INT, inlineAt, INLINE_REQUEST);
        int rc = call(() -> (int) t.v.createQp.invokeExact(id, pd, a));
        if (rc != 0 && INLINE_REQUEST > 0) { // the device has less inline data (or none): a QP without it
            a.set(JAVA_INT, inlineAt, 0);
            rc = call(() -> (int) t.v.createQp.invokeExact(id, pd, a));
        }
        if (rc != 0) {
            return false;
        }
        // ibv_create_qp writes the QP's real capabilities back into the attributes: the inline size it got.
        maxInline = Math.clamp(a.get(JAVA_INT, inlineAt), 0, INLINE_REQUEST);
        qp = id.get(ADDRESS, offset(CM_ID_HEAD, "qp"));
        int r = call(() -> (int) Verbs.REQ_NOTIFY_CQ.invokeExact(t.reqNotifyFn, cq.address(), 0));
        sendWrs = arena.allocate(SEND_WR, sendDepth);
        sendSges = arena.allocate(SGE, (long) sendDepth * sgeStride);
        sq = new SendQueue(sendDepth, every);
        for (int i = 0; i < sendDepth; i++) {
            sendWrs.set(ADDRESS, i * SEND_WR.byteSize() + SWR_SG_LIST,
                    sendSges.asSlice((long) i * sgeStride * SGE.byteSize()));
        }
        if (srq == null) { // with an SRQ, recvBufs stays null and pumpRecv posts nothing
            recvWrs = arena.allocate(RECV_WR, recvDepth);
            recvSges = arena.allocate(SGE, (long) recvDepth * recvSge);
            recvBufs = new RecvBuffer[recvDepth];
            for (int i = 0; i < recvDepth; i++) {
                recvWrs.set(ADDRESS, i * RECV_WR.byteSize() + RWR_SG_LIST,
                        recvSges.asSlice((long) i * recvSge * SGE.byteSize()));
            }
        }
        badWr = arena.allocate(ADDRESS);
        badRecv = arena.allocate(ADDRESS);
        mwBind = arena.allocate(VerbsLayouts.MW_BIND);
        mwBindAddress = mwBind.address();
        wcs = arena.allocate(WC, POLL_BATCH);
        qpAddress = qp.address();
        cqAddress = cq.address();
        badWrAddress = badWr.address();
        badRecvAddress = badRecv.address();
        wcsAddress = wcs.address();
        return true;
    }

    @Override
    public void onCmEvent(VerbsTransport.CmEvent e) {
        if (cancelled && state != UP) {
            destroy();
            return;
        }
        switch (e.type()) {
            case VerbsTransport.CmEvents.ADDR_RESOLVED -> {
                int rc = call(() -> (int) t.v.resolveRoute.invokeExact(id, VerbsTransport.RESOLVE_MS));
                if (rc != 0) {
                    fail(activeHandler::unreachable);
                }
            }
            case VerbsTransport.CmEvents.ROUTE_RESOLVED -> {
                if (!createQp()) {
                    fail(activeHandler::nonPeerRejected);
                    return;
                }
                pumpRecv();
                MemorySegment param = connParam();
                int rc = call(() -> (int) t.v.connect.invokeExact(id, param));
                if (rc != 0) {
                    fail(activeHandler::nonPeerRejected);
                }
            }
            case VerbsTransport.CmEvents.ADDR_ERROR, VerbsTransport.CmEvents.ROUTE_ERROR,
                    VerbsTransport.CmEvents.UNREACHABLE -> failSetup(true);
            case VerbsTransport.CmEvents.CONNECT_ERROR -> failSetup(false);
            case VerbsTransport.CmEvents.REJECTED -> {
                if (active && state == SETUP) {
                    fail(rejectedAsPeer(e) ? activeHandler::peerRejected : activeHandler::nonPeerRejected);
                } else {
                    failSetup(false);
                }
            }
            case VerbsTransport.CmEvents.ESTABLISHED -> {
                byte[] pd = e.privateData();
                if (active && t.siw) {
                    // siw's passive side drops what arrives before it hands its socket to the QP (VerbsTransport.siw):
                    // the EP may post only a moment later. A disconnect meanwhile fails the setup (state checked).
                    Thread.ofVirtual().name("jdat-verbs-siw-established").start(() -> {
                        try {
                            Thread.sleep(VerbsTransport.SIW_ESTABLISHED_DELAY_MS);
                        } catch (InterruptedException ie) {
                            Thread.currentThread().interrupt();
                        }
                        t.execute(() -> established(pd));
                    });
                } else {
                    established(pd);
                }
            }
            case VerbsTransport.CmEvents.DISCONNECTED, VerbsTransport.CmEvents.DEVICE_REMOVAL -> {
                if (state == UP) {
                    remoteClosed(e.type() == VerbsTransport.CmEvents.DISCONNECTED);
                } else {
                    failSetup(false);
                }
            }
            case VerbsTransport.CmEvents.TIMEWAIT_EXIT -> {
                // nothing: the id is destroyed when the core closes the channel
            }
            default -> {
                // CONNECT_RESPONSE is for ids without a QP; others do not concern an RC connection
            }
        }
    }

    /** Whether a REJECTED event stands for the peer consumer's reject (DAT PEER_REJECTED). */
    static boolean rejectedAsPeer(VerbsTransport.CmEvent e) {
        byte[] d = e.privateData();
        if (startsWith(d, VerbsListener.REJECT_MARK)) {
            return true;
        }
        if (startsWith(d, VerbsListener.REFUSE_MARK)) {
            return false;
        }
        // A foreign peer: IB CM's consumer-defined reject reason (28) is a consumer's reject; "invalid service
        // ID" (8, nobody listens) and everything else is not.
        return e.status() == 28;
    }

    private static boolean startsWith(byte[] d, byte[] mark) {
        return d.length >= mark.length && Arrays.equals(d, 0, mark.length, mark, 0, mark.length);
    }

    private void failSetup(boolean unreachable) {
        if (state != SETUP) {
            return;
        }
        if (active) {
            fail(unreachable ? activeHandler::unreachable : activeHandler::nonPeerRejected);
        } else {
            fail(passiveHandler::acceptFailed);
        }
    }

    /** Reports a setup failure once (unless cancelled) and tears the id down (progress thread). */
    private void fail(Runnable report) {
        if (state != SETUP) {
            return;
        }
        state = DOWN;
        if (!cancelled) {
            report.run();
        }
        destroy();
    }

    private void established(byte[] pd) {
        if (state != SETUP) {
            return;
        }
        state = UP;
        ChannelSink s = active ? activeHandler.established(this, pd) : passiveHandler.established(this);
        if (s == null) {
            // The EP no longer wants it (timed out, aborted): drop it; the peer sees a disconnect.
            close(CLOSE_DISCONNECT);
            return;
        }
        sink = s;
        t.connections.add(this);
        pumpRecv();
    }

    /** The peer disconnected (or the device went away): deliver what arrived, then tell the core. */
    private void remoteClosed(boolean disconnected) {
        // An asynchronous QP error queued before the disconnect (siw: the target of a refused access, the
        // initiator that got a Terminate) makes it a break.
        t.drainAsyncEvents();
        peerClosing = true;
        t.pollLock.lock();
        try {
            while (poll()) {
                // drain what completed before the disconnect
            }
        } finally {
            t.pollLock.unlock();
        }
        ChannelSink s = sink;
        if (s != null && state == UP) {
            if (disconnected && !deviceBroken) {
                s.remoteDisconnected();
            } else {
                s.broken();
            }
        }
    }

    /** Asks for the CQ's next completion event ({@code ibv_req_notify_cq}; the IA's pollLock held). */
    void arm() {
        if (!destroyed && !cq.equals(MemorySegment.NULL)) {
            int r = call(() -> (int) Verbs.REQ_NOTIFY_CQ.invokeExact(t.reqNotifyFn, cq.address(), 0));
        }
    }

    /** Whether {@code element} (from an asynchronous event) is this connection's QP or CQ. */
    boolean owns(long element) {
        return element != 0 && (qp.address() == element || cq.address() == element);
    }

    /** The device put the QP in error (an incoming access it refused, a fatal error): break (progress thread). */
    void deviceError() {
        deviceBroken = true;
        ChannelSink s = sink;
        if (s != null && state == UP) {
            t.pollLock.lock();
            try {
                while (poll()) {
                    // deliver what completed before the error
                }
            } finally {
                t.pollLock.unlock();
            }
            breakNow(s);
        }
    }

    // ================================================================== Transport.ConnectAttempt

    @Override
    public long localPortQual() {
        return localPort;
    }

    @Override
    public void cancel() {
        cancelled = true;
        t.execute(() -> {
            if (state != UP) {
                state = DOWN;
                destroy();
            }
        });
    }

    // ================================================================== Channel

    @Override
    public void submit(WorkRequest wr) {
        sendLock.lock();
        try {
            if (state != UP || destroyed) {
                return; // closed: the core flushes it
            }
            submitLocked(wr);
        } finally {
            sendLock.unlock();
        }
    }

    /** {@link #submit} with {@link #sendLock} held and the connection UP. */
    private void submitLocked(WorkRequest wr) {
        long n = sq.posted();
        int slot = (int) (n % sendDepth);
        long sgeAt = (long) slot * sgeStride * SGE.byteSize();
        boolean read = wr.op() == WorkRequest.Op.RDMA_READ;
        int count = VerbsSges.fill(sendSges, sgeAt, wr, sendSge, read ? wr.remoteLength() : Long.MAX_VALUE);
        if (count < 0) {
            breakSoon();
            return;
        }
        if (t.siw && count > 0) {
            // siw 6.1 sends a short payload that crosses a page of its source wrongly (VerbsSges): a Read's parts
            // are split at the responder's pages (siw reads one SGE per part), and a Send's or Write's one SGE at
            // ours when it is not inline (for the times siw's transmit thread, not the post, sends it).
            if (read) {
                count = VerbsSges.splitShortPageCrossings(sendSges, sgeAt, count, wr.remoteAddress());
            } else if (count == 1 && deviceSge > 1 && wr.totalLength() > maxInline
                    && (wr.op() == WorkRequest.Op.SEND || wr.op() == WorkRequest.Op.RDMA_WRITE)) {
                count = VerbsSges.splitShortPageCrossings(sendSges, sgeAt, count, -1);
            }
        }
        int opcode;
        int flags = VerbsLayouts.IBV_SEND_SIGNALED;
        long remoteAddr = 0;
        int rkey = 0;
        int perWr = deviceSge;
        switch (wr.op()) {
            case SEND -> {
                opcode = VerbsLayouts.IBV_WR_SEND;
                if (wr.solicited()) {
                    flags |= VerbsLayouts.IBV_SEND_SOLICITED;
                }
                if (count > perWr) { // a Send cannot be split
                    breakSoon();
                    return;
                }
            }
            case RDMA_WRITE -> {
                opcode = VerbsLayouts.IBV_WR_RDMA_WRITE;
                remoteAddr = wr.remoteAddress();
                rkey = wr.remoteContext();
            }
            case RDMA_READ -> {
                opcode = VerbsLayouts.IBV_WR_RDMA_READ;
                remoteAddr = wr.remoteAddress();
                rkey = wr.remoteContext();
                perWr = deviceSgeRd;
            }
            default -> {
                // RMR_BIND. With a memory window (and a region to name): the device's bind, in queue order.
                if (wr.window() instanceof VerbsWindow window) {
                    if (wr.windowRegistration() instanceof VerbsDomain.Registration region) {
                        submitWindowBind(wr, window, region, n, slot);
                        return;
                    }
                    wr.windowBound(window.key()); // an unbind of an unbound window: nothing for the device
                }
                // The fallback (the core registered the binding already), or nothing to bind: a zero-length RDMA
                // Write keeps its completion in queue order.
                opcode = VerbsLayouts.IBV_WR_RDMA_WRITE;
                count = 0;
            }
        }
        if (count == 0 && opcode != VerbsLayouts.IBV_WR_SEND) {
            // A zero-length RDMA Read or Write moves nothing and DAT checks no remote context for it (RDR-19,
            // RWR-04), but a device may (siw: a Terminate for a garbage STag): it goes out as the bind's
            // zero-length RDMA Write, which names no remote memory, and completes in queue order.
            opcode = VerbsLayouts.IBV_WR_RDMA_WRITE;
            remoteAddr = 0;
            rkey = 0;
        }
        if ((wr.completionFlags() & CompletionFlags.BARRIER_FENCE) != 0) {
            flags |= VerbsLayouts.IBV_SEND_FENCE;
        }
        long length = switch (wr.op()) {
            case RMR_BIND -> 0;
            case RDMA_READ -> Math.min(wr.remoteLength(), wr.totalLength());
            default -> wr.totalLength();
        };
        // A small Send or RDMA Write goes inline: the provider copies the bytes at the post (the core checked the
        // local LMRs already; the device no longer reads the buffer, so it needs no lkey), as perftest's latency
        // tests and DAPL's providers post them. DAT's rule is kept: the buffer is the consumer's again only at
        // the completion.
        if (length <= maxInline && count > 0 && count <= perWr
                && (opcode == VerbsLayouts.IBV_WR_SEND || opcode == VerbsLayouts.IBV_WR_RDMA_WRITE)) {
            flags |= VerbsLayouts.IBV_SEND_INLINE;
        }
        // siw (iWARP) refuses a fenced RDMA Read ("a READ cannot be fenced": EINVAL at the doorbell): the fence
        // goes on a zero-length RDMA Write (no remote memory) put in front, which waits for the earlier Reads; the
        // send queue is processed in order, so the Read starts after it.
        int lead = opcode == VerbsLayouts.IBV_WR_RDMA_READ && t.iwarp
                && (flags & VerbsLayouts.IBV_SEND_FENCE) != 0 ? 1 : 0;
        int parts = lead + (count <= perWr ? 1 : (count + perWr - 1) / perWr);
        // Selective signalling (SendQueue): a SUPPRESSed Send or RDMA Write of one part may go unsignalled.
        boolean oneSendOrWrite = parts == 1
                && (wr.op() == WorkRequest.Op.SEND || wr.op() == WorkRequest.Op.RDMA_WRITE);
        boolean signal = sq.signals(n, oneSendOrWrite && (wr.completionFlags() & CompletionFlags.SUPPRESS) != 0);
        if (!signal) {
            flags &= ~VerbsLayouts.IBV_SEND_SIGNALED;
        }
        MemorySegment w = sendWrs;
        long wrSize = SEND_WR.byteSize();
        long sgeBase = sendSges.address() + sgeAt;
        // A split request: consecutive slots, each part the next perWr SGEs of the first slot's list and the
        // next stretch of the remote segment; the fence (if any) on the first. The device copies each work
        // request when it is posted, so the parts may point into one slot's SGEs.
        for (int p = 0, sge = 0; p < parts; p++) {
            long seq = n + p;
            int s = (int) (seq % sendDepth);
            long base = s * wrSize;
            boolean fence = p < lead;
            int num = fence ? 0 : Math.min(perWr, count - sge);
            boolean last = p == parts - 1;
            w.set(JAVA_LONG, base + SWR_WR_ID, seq);
            w.set(JAVA_LONG, base + SWR_NEXT, last ? 0 : w.address() + ((seq + 1) % sendDepth) * wrSize);
            w.set(JAVA_LONG, base + SWR_SG_LIST, sgeBase + sge * SGE.byteSize());
            w.set(JAVA_INT, base + SWR_NUM_SGE, num);
            w.set(JAVA_INT, base + SWR_OPCODE, fence ? VerbsLayouts.IBV_WR_RDMA_WRITE : opcode);
            w.set(JAVA_INT, base + SWR_SEND_FLAGS, p == lead - 1 || lead == 0 && p == 0 ? flags
                    : flags & ~VerbsLayouts.IBV_SEND_FENCE);
            w.set(JAVA_LONG, base + SWR_REMOTE_ADDR, fence ? 0 : remoteAddr);
            w.set(JAVA_INT, base + SWR_RKEY, fence ? 0 : rkey);
            sq.slot(seq, last ? length : SendQueue.PART, signal);
            for (int k = 0; k < num; k++, sge++) {
                remoteAddr += Integer.toUnsignedLong(sendSges.get(JAVA_INT, sgeAt + sge * SGE.byteSize() + SGE_LENGTH));
            }
        }
        sq.posted(n + parts);
        int rc;
        try {
            rc = (int) Verbs.POST_SEND.invokeExact(t.postSendFn, qpAddress, w.address() + slot * wrSize, badWrAddress);
        } catch (Throwable e) {
            rc = -1;
        }
        if (rc != 0) {
            if (VerbsTransport.TRACE) {
                System.err.printf("jdat verbs %s: post_send rc %d: op %s, %d SGEs in %d parts, flags %x, %d at the"
                        + " device%n", t.iaName, rc, wr.op(), count, parts, flags, sq.outstanding());
            }
            breakSoon();
        }
    }

    /**
     * {@code dat_rmr_bind} on a device with memory windows: the context's {@code bind_mw} (type 1) with the
     * pre-allocated {@code struct ibv_mw_bind}, signalled, its wr_id the send-queue slot's sequence number, so that
     * its {@code IBV_WC_BIND_MW} completion completes the DAT bind in queue order like any request. Allocates
     * nothing. A bind of length 0 unbinds: it still names the region the window is bound into (rdma_rxe's provider
     * reads its lkey), which the device ignores for length 0.
     */
    private void submitWindowBind(WorkRequest wr, VerbsWindow window, VerbsDomain.Registration region, long n,
            int slot) {
        MemorySegment b = mwBind;
        b.set(JAVA_LONG, VerbsLayouts.MWB_WR_ID, n);
        int flags = VerbsLayouts.IBV_SEND_SIGNALED;
        if ((wr.completionFlags() & CompletionFlags.BARRIER_FENCE) != 0) {
            flags |= VerbsLayouts.IBV_SEND_FENCE;
        }
        b.set(JAVA_INT, VerbsLayouts.MWB_SEND_FLAGS, flags);
        long length = wr.windowLength();
        b.set(JAVA_LONG, VerbsLayouts.MWB_MR, region.mrAddress());
        b.set(JAVA_LONG, VerbsLayouts.MWB_ADDR, length == 0 ? 0 : wr.windowAddress());
        b.set(JAVA_LONG, VerbsLayouts.MWB_LENGTH, length);
        b.set(JAVA_INT, VerbsLayouts.MWB_ACCESS, length == 0 ? 0 : VerbsTransport.access(wr.windowPrivileges())
                & (VerbsLayouts.IBV_ACCESS_REMOTE_READ | VerbsLayouts.IBV_ACCESS_REMOTE_WRITE));
        sq.slot(n, 0, true);
        sq.posted(n + 1);
        // The slot's native send WR is not used: the provider builds its own IBV_WR_BIND_MW from the bind.
        int rc = window.bind(qpAddress, mwBindAddress, wr);
        if (rc != 0) {
            if (VerbsTransport.TRACE) {
                System.err.printf("jdat verbs %s: bind_mw rc %d, %d at the device%n", t.iaName, rc, sq.outstanding());
            }
            breakSoon();
        }
    }

    /**
     * An idle look of the progress thread: when the send queue has ended in unsignalled work requests since the
     * previous look, with nothing posted in between, a signalled zero-length RDMA Write (no SGE, no remote memory)
     * goes behind them, so that its completion completes them and frees their DAT request slots (EPM-23). The
     * device queue has a slot for it beyond the core's requests ({@link #createQp}).
     */
    void signalIdleTail() {
        if (!sendLock.tryLock()) {
            return; // a post is under way: not idle
        }
        try {
            if (state != UP || destroyed || !sq.markerDue()) {
                return;
            }
            long n = sq.posted();
            int slot = (int) (n % sendDepth);
            long base = slot * SEND_WR.byteSize();
            MemorySegment w = sendWrs;
            w.set(JAVA_LONG, base + SWR_WR_ID, n);
            w.set(JAVA_LONG, base + SWR_NEXT, 0);
            w.set(JAVA_INT, base + SWR_NUM_SGE, 0);
            w.set(JAVA_INT, base + SWR_OPCODE, VerbsLayouts.IBV_WR_RDMA_WRITE);
            w.set(JAVA_INT, base + SWR_SEND_FLAGS, VerbsLayouts.IBV_SEND_SIGNALED);
            w.set(JAVA_LONG, base + SWR_REMOTE_ADDR, 0);
            w.set(JAVA_INT, base + SWR_RKEY, 0);
            sq.slot(n, SendQueue.MARKER, true);
            sq.posted(n + 1);
            int rc;
            try {
                rc = (int) Verbs.POST_SEND.invokeExact(t.postSendFn, qpAddress, w.address() + base, badWrAddress);
            } catch (Throwable e) {
                rc = -1;
            }
            if (rc != 0) {
                sq.markerFailed();
                breakSoon();
            }
        } finally {
            sendLock.unlock();
        }
    }

    @Override
    public void recvPosted() {
        pumpRecv();
    }

    /** Hands every buffer the core has posted to the device, up to the queue's depth. */
    private void pumpRecv() {
        recvLock.lock();
        try {
            if (state == DOWN || destroyed || recvBufs == null) {
                return;
            }
            ChannelSink s = sink;
            long n = recvPosted;
            while (n - recvDone < recvDepth) {
                RecvBuffer b = s != null ? s.takeRecv() : res.sink().takeRecvInSetup();
                if (b == null) {
                    break;
                }
                int slot = (int) (n % recvDepth);
                recvBufs[slot] = b;
                int count = VerbsSges.fill(recvSges, (long) slot * recvSge * SGE.byteSize(), b, recvSge,
                        Long.MAX_VALUE);
                long base = slot * RECV_WR.byteSize();
                recvWrs.set(JAVA_LONG, base + RWR_WR_ID, n | RECV_BIT);
                recvWrs.set(JAVA_INT, base + RWR_NUM_SGE, Math.max(0, count));
                n++;
                recvPosted = n;
                if (count == 0 && t.zeroSgeRecvRefused) {
                    zeroLengthSge(slot);
                }
                int rc = postRecv(base);
                if (rc != 0 && count == 0 && !t.zeroSgeRecvRefused) {
                    // siw's provider refuses a receive without SGEs (EINVAL): one SGE of length 0 instead, which
                    // takes a zero-length message (siw places none of it) and is too short for any other.
                    t.zeroSgeRecvRefused = true;
                    zeroLengthSge(slot);
                    rc = postRecv(base);
                }
                if (rc != 0 || count < 0) {
                    breakSoon();
                    return;
                }
            }
        } finally {
            recvLock.unlock();
        }
    }

    private int postRecv(long base) {
        try {
            return (int) Verbs.POST_RECV.invokeExact(t.postRecvFn, qpAddress, recvWrs.address() + base, badRecvAddress);
        } catch (Throwable e) {
            return -1;
        }
    }

    /** Makes receive slot {@code slot} one SGE of length 0 (address 0, key 0). */
    private void zeroLengthSge(int slot) {
        long at = (long) slot * recvSge * SGE.byteSize();
        recvSges.set(JAVA_LONG, at + VerbsLayouts.SGE_ADDR, 0);
        recvSges.set(JAVA_INT, at + SGE_LENGTH, 0);
        recvSges.set(JAVA_INT, at + VerbsLayouts.SGE_LKEY, 0);
        recvWrs.set(JAVA_INT, slot * RECV_WR.byteSize() + RWR_NUM_SGE, 1);
    }

    /**
     * Polls this connection's CQ once (the IA's pollLock held) and reports what completed.
     *
     * @return whether anything completed
     */
    boolean poll() {
        if (destroyed || state != UP) {
            return false;
        }
        int n;
        try {
            n = (int) Verbs.POLL_CQ.invokeExact(t.pollCqFn, cqAddress, POLL_BATCH, wcsAddress);
        } catch (Throwable e) {
            n = -1;
        }
        if (n <= 0) {
            return false;
        }
        ChannelSink s = sink;
        for (int i = 0; i < n; i++) {
            long base = i * WC.byteSize();
            int status = wcs.get(JAVA_INT, base + WC_STATUS);
            long wrId = wcs.get(JAVA_LONG, base + WC_WR_ID);
            if (VerbsTransport.TRACE && status != VerbsStatus.SUCCESS) {
                System.err.printf("jdat verbs %s: wc wr_id %x status %d (%s) vendor_err %d%n", t.iaName, wrId, status,
                        t.v.wcStatus(status), wcs.get(JAVA_INT, base + VerbsLayouts.WC_VENDOR_ERR));
            }
            if (state != UP) {
                continue; // closed: the core flushes, nothing more is reported
            }
            if (srq != null && (wrId & VerbsSrq.SRQ_BIT) != 0) { // the opcode is undefined in a failed completion
                completeSrqRecv(s, status, wrId, Integer.toUnsignedLong(wcs.get(JAVA_INT, base + WC_BYTE_LEN)));
            } else if ((wrId & RECV_BIT) != 0) {
                completeRecv(s, status, wrId & ~RECV_BIT, Integer.toUnsignedLong(wcs.get(JAVA_INT, base + WC_BYTE_LEN)));
            } else {
                sq.complete(sendSink, status, wrId);
            }
        }
        return true;
    }

    private void completeRecv(ChannelSink s, int status, long wrId, long length) {
        if (wrId != recvDone) {
            breakNow(s);
            return;
        }
        int slot = (int) (recvDone % recvDepth);
        RecvBuffer b = recvBufs[slot];
        recvBufs[slot] = null;
        recvDone++;
        if (status == VerbsStatus.SUCCESS) {
            s.completeRecv(b, length, false);
            pumpRecv();
        } else if (status == VerbsStatus.WR_FLUSH_ERR) {
            // The QP went to error without a failed request of ours: the peer disconnected (siw moves the QP
            // before the rdma_cm event arrives) or refused an access (an asynchronous event says so). The CM
            // event that follows decides DISCONNECTED or BROKEN; the core flushes the buffer.
            return;
        } else {
            // A message too long for the buffer is the core's DAT_DTO_ERR_LOCAL_LENGTH: IBV_WC_LOC_LEN_ERR (siw,
            // NICs), IBV_WC_REM_INV_REQ_ERR or IBV_WC_LOC_QP_OP_ERR on a receive (rdma_rxe 6.1 reports a too-long
            // Send so: docs/verbs.md);
            // any other failure of a receive breaks the connection, which flushes it.
            if (status == VerbsStatus.LOC_LEN_ERR || status == VerbsStatus.REM_INV_REQ_ERR
                    || status == VerbsStatus.LOC_QP_OP_ERR) {
                s.completeRecv(b, b.totalLength() + 1, false);
            }
            breakNow(s);
        }
    }

    /** A receive from the EP's SRQ: the core completes it on this EP; a failure other than a flush breaks. */
    private void completeSrqRecv(ChannelSink s, int status, long wrId, long length) {
        if (!srq.completed(wrId, status, length, s)) {
            breakNow(s);
            return;
        }
        if (status != VerbsStatus.SUCCESS && status != VerbsStatus.WR_FLUSH_ERR) {
            breakNow(s);
        }
    }

    private void breakNow(ChannelSink s) {
        if (state == UP && !peerClosing) {
            s.broken(); // the core closes the channel (CLOSE_BREAK) and flushes
        }
    }

    private void breakSoon() {
        if (VerbsTransport.TRACE) {
            new Throwable("jdat verbs " + t.iaName + ": a post failed; breaking").printStackTrace();
        }
        t.execute(() -> {
            ChannelSink s = sink;
            if (s != null) {
                breakNow(s);
            }
        });
    }

    @Override
    public void close(int mode) {
        synchronized (this) {
            if (state == DOWN) {
                return;
            }
            state = DOWN;
        }
        // Stop the device before the core flushes: disconnect (IB: QP to error; iWARP: closing), then error.
        call(() -> (int) t.v.disconnect.invokeExact(id));
        toError();
        // A receive being handed to the device finishes before the core flushes.
        recvLock.lock();
        recvLock.unlock();
        t.execute(this::destroy);
    }

    private void toError() {
        if (qp.equals(MemorySegment.NULL)) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            // struct ibv_qp_attr starts with qp_state; IBV_QP_STATE = 1, IBV_QPS_ERR = 6 (verbs.h).
            MemorySegment attr = a.allocate(512);
            attr.set(JAVA_INT, 0, 6);
            call(() -> (int) t.v.modifyQp.invokeExact(qp, attr, 1));
        }
    }

    /** The IA closes: break the connection or abandon the attempt without calling the core. */
    void abort() {
        cancelled = true;
        synchronized (this) {
            if (state == UP) {
                state = DOWN;
                call(() -> (int) t.v.disconnect.invokeExact(id));
                toError();
            } else {
                state = DOWN;
            }
        }
    }

    /** Releases the native objects (progress thread, or the IA's close). */
    void destroyNow() {
        destroy();
    }

    private void destroy() {
        t.pollLock.lock();
        recvLock.lock();
        sendLock.lock(); // a post in flight ends first: it uses the QP and this arena's work requests by address
        try {
            if (destroyed) {
                return;
            }
            destroyed = true;
            state = DOWN;
            t.connections.remove(this);
            if (id != null) {
                t.handlers.remove(id.address());
                if (!qp.equals(MemorySegment.NULL)) {
                    call(() -> {
                        t.v.destroyQp.invokeExact(id);
                        return null;
                    });
                }
                MemorySegment idf = id;
                call(() -> (int) t.v.destroyId.invokeExact(idf));
            }
            if (!cq.equals(MemorySegment.NULL)) {
                MemorySegment c = cq;
                call(() -> (int) t.v.destroyCq.invokeExact(c));
            }
            arena.close();
            VerbsSrq.retryClosed(t);
            VerbsDomain.retryClosed(t);
        } finally {
            sendLock.unlock();
            recvLock.unlock();
            t.pollLock.unlock();
        }
    }
}
