package io.jdat.verbs;

import static io.jdat.verbs.VerbsLayouts.AF_INET;
import static io.jdat.verbs.VerbsLayouts.CM_EVENT_HEAD;
import static io.jdat.verbs.VerbsLayouts.CM_ID_HEAD;
import static io.jdat.verbs.VerbsLayouts.CONTEXT_HEAD;
import static io.jdat.verbs.VerbsLayouts.DEVICE_ATTR;
import static io.jdat.verbs.VerbsLayouts.POLLFD;
import static io.jdat.verbs.VerbsLayouts.POLLIN;
import static io.jdat.verbs.VerbsLayouts.RDMA_PS_TCP;
import static io.jdat.verbs.VerbsLayouts.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.MemPriv;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.ConnectionSet;
import io.jdat.spi.DeviceMemory;
import io.jdat.spi.EndpointResources;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One open {@code verbs} IA: the RDMA device that owns the IA's address, reached through an rdma_cm event
 * channel ({@code rdma_create_event_channel}) and an rdma_cm id bound to the address, whose
 * {@code struct ibv_context} is the device context every PD, CQ and QP of the IA is created on; and one
 * completion channel ({@code ibv_create_comp_channel}) for the CQs of its connections.
 *
 * <p>One daemon thread per IA waits in {@code poll(2)} on the rdma_cm channel, the completion channel and a
 * wake-up pipe; it turns connection events into the SPI's outcomes and polls CQs when the device signals.
 * A consumer that polls an EVD polls the CQs itself ({@link #progress()}), so a busy-polling consumer sees
 * completions without a thread switch. Polling is serialised by {@link #pollLock}.
 */
final class VerbsTransport implements Transport, DeviceMemory {
    /** rdma_cm's private data limit on InfiniBand and RoCE (a REQ's 92 bytes minus rdma_cm's header). */
    static final int IB_PRIVATE_DATA = 56;
    /** jdat's private data limit on iWARP (the rdma_conn_param length is a byte; MPA allows 512). */
    static final int IWARP_PRIVATE_DATA = 196;
    /** {@code IBV_TRANSPORT_IWARP} ({@code enum ibv_transport_type}). */
    static final int IBV_TRANSPORT_IWARP = 1;
    /** Milliseconds for address and route resolution. */
    static final int RESOLVE_MS = 5000;
    /** {@code -Djdat.verbs.trace=true} prints every rdma_cm event to stderr. */
    static final boolean TRACE = Boolean.getBoolean("jdat.verbs.trace");
    /** {@code SIW_VENDOR_ID} of the kernel's siw driver (siw.h: ASCII "bmt"). */
    private static final int SIW_VENDOR_ID = 0x626d74;

    final Verbs v;
    final VerbsConfig config;
    final String iaName;
    final Arena arena = Arena.ofShared();
    final MemorySegment channel;
    final int channelFd;
    private final MemorySegment anchorId;
    final MemorySegment context;
    final MemorySegment pollCqFn;
    final MemorySegment reqNotifyFn;
    final MemorySegment postSendFn;
    final MemorySegment postRecvFn;
    final MemorySegment postSrqRecvFn;
    /** {@code alloc_mw}, {@code bind_mw}, {@code dealloc_mw} of the context's operations table (NULL: none). */
    final MemorySegment allocMwFn;
    final MemorySegment bindMwFn;
    final MemorySegment deallocMwFn;
    /**
     * The device has type-1 memory windows (its capability flags and {@code max_mw}, and the operations table):
     * an RMR is an {@code ibv_mw}, each LMR is registered with {@code IBV_ACCESS_MW_BIND}. Otherwise (siw) the
     * fallback: each RMR binding is a registration of its range ({@link VerbsWindow#usable}, docs/verbs.md).
     */
    final boolean memoryWindows;
    final MemorySegment compChannel;
    final int compFd;
    final int asyncFd;
    final String deviceName;
    final boolean iwarp;
    /**
     * The device is the kernel's soft-iWARP ({@code siw}, vendor id 0x626d74): its passive side sends the MPA reply
     * before it hands the socket to the QP, and drops what arrives in between (siw_accept in siw 6.1: the CM's
     * data_ready upcall ignores data in RDMA mode); nothing reads it until the next segment arrives. The active
     * side therefore reports ESTABLISHED {@link #SIW_ESTABLISHED_DELAY_MS} later, so the first requests do not race
     * the hand-over (docs/verbs.md).
     */
    final boolean siw;
    /** How long an active siw connection waits after rdma_cm's ESTABLISHED before it reports it. */
    static final long SIW_ESTABLISHED_DELAY_MS = 50;
    final int maxSge;
    /** {@code max_sge_rd}: SGEs one RDMA Read may scatter into (siw: 1); a longer DAT read is split. */
    final int maxSgeRd;
    final int maxQpWr;
    /** The device refused a receive with no SGE (siw): such a receive gets one SGE of length 0. */
    volatile boolean zeroSgeRecvRefused;
    final int maxCqe;
    /** {@code max_srq}, {@code max_srq_wr}, {@code max_srq_sge} of {@code struct ibv_device_attr}. */
    final int maxSrq;
    final int maxSrqWr;
    final int maxSrqSge;
    /** The device SRQs (by {@code struct ibv_srq} address), until destroyed. */
    final Map<Long, VerbsSrq> srqs = new ConcurrentHashMap<>();
    private final TransportLimits limits;
    private final InetSocketAddress address;

    /** Established connections, polled by {@link #progress()} and the progress thread. */
    final ConnectionSet<VerbsConnection> connections = new ConnectionSet<>(new VerbsConnection[0]);
    /** One poller of the IA's CQs at a time; native objects are destroyed under it too. */
    final ReentrantLock pollLock = new ReentrantLock();
    /** rdma_cm ids (by address) to what handles their events. */
    final Map<Long, CmHandler> handlers = new ConcurrentHashMap<>();
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final int wakeRead;
    private final int wakeWrite;
    private final MemorySegment wakeByte;
    private final Thread thread;
    private volatile boolean closed;
    /**
     * Whether a consumer polls the CQs itself: the progress thread then leaves them to it (a CQ event does not
     * re-arm its CQ, the thread does not poll), so that the two do not contend for {@link #pollLock} and the CPU on
     * every completion. The consumer's {@link #pollerIdle}, or the grace without a poll, hands the CQs back: every
     * CQ is re-armed, then polled.
     */
    private final ConsumerPolling consumer = ConsumerPolling.fromSystemProperty();
    /** A CQ event was left unarmed for a poller: re-arm every CQ on taking over. Progress thread only. */
    private boolean cqsUnarmed;
    /** {@code -Djdat.verbs.progressStats=true}: count what the progress thread does, print it at IA close. */
    static final boolean STATS = Boolean.getBoolean("jdat.verbs.progressStats");
    /** The progress thread's counts (STATS; plain fields, racy where another thread writes: diagnostics only). */
    private long stLoops, stPollReady, stPollTimeout, stCqEvents, stCqLeftUnarmed, stWakes, stIdleWakes,
            stTakeOvers, stThreadPolls, stThreadPollHits, stConsumerPolls;

    /** Receives the rdma_cm events of one id, on the progress thread, after the event was acknowledged. */
    interface CmHandler {
        void onCmEvent(CmEvent e);
    }

    /** An rdma_cm event, copied out of {@code struct rdma_cm_event} before it is acknowledged. */
    record CmEvent(int type, int status, long id, long listenId, byte[] privateData, int responderResources,
            int initiatorDepth) {
    }

    VerbsTransport(Verbs v, String iaName, VerbsConfig config) {
        this.v = v;
        this.config = config;
        this.iaName = iaName;
        boolean ok = false;
        MemorySegment ch = MemorySegment.NULL;
        MemorySegment id = MemorySegment.NULL;
        MemorySegment cc = MemorySegment.NULL;
        int[] pipeFds = null;
        try {
            ch = call(() -> (MemorySegment) v.createEventChannel.invokeExact());
            if (ch.equals(MemorySegment.NULL)) {
                throw device("rdma_create_event_channel failed (is rdma_ucm loaded, /dev/infiniband/rdma_cm "
                        + "readable?)");
            }
            this.channel = ch.reinterpret(8);
            this.channelFd = channel.get(JAVA_INT, 0);
            MemorySegment idOut = arena.allocate(ADDRESS);
            MemorySegment chf = channel;
            int rc = call(() -> (int) v.createId.invokeExact(chf, idOut, MemorySegment.NULL, RDMA_PS_TCP));
            if (rc != 0) {
                throw device("rdma_create_id failed");
            }
            id = idOut.get(ADDRESS, 0).reinterpret(CM_ID_HEAD.byteSize());
            MemorySegment sa = sockaddr(arena, config.address(), 0);
            MemorySegment idf = id;
            rc = call(() -> (int) v.bindAddr.invokeExact(idf, sa));
            MemorySegment verbs = id.get(ADDRESS, offset(CM_ID_HEAD, "verbs"));
            if (rc != 0 || verbs.equals(MemorySegment.NULL)) {
                throw device("no RDMA device has address " + config.address().getHostAddress()
                        + (config.netdev() == null ? "" : " (" + config.netdev() + ")"));
            }
            this.anchorId = id;
            this.context = verbs.reinterpret(CONTEXT_HEAD.byteSize());
            long ops = offset(CONTEXT_HEAD, "ops");
            pollCqFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_POLL_CQ);
            reqNotifyFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_REQ_NOTIFY_CQ);
            postSendFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_POST_SEND);
            postRecvFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_POST_RECV);
            postSrqRecvFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_POST_SRQ_RECV);
            allocMwFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_ALLOC_MW);
            bindMwFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_BIND_MW);
            deallocMwFn = context.get(ADDRESS, ops + 8L * VerbsLayouts.OP_DEALLOC_MW);
            MemorySegment device = context.get(ADDRESS, 0).reinterpret(24 + 64);
            // struct ibv_device (verbs.h): _ops (two pointers), node_type, transport_type, name[64].
            iwarp = device.get(JAVA_INT, 20) == IBV_TRANSPORT_IWARP;
            deviceName = device.asSlice(24, 64).getString(0);
            MemorySegment attr = arena.allocate(DEVICE_ATTR);
            MemorySegment ctxf = context;
            rc = call(() -> (int) v.queryDevice.invokeExact(ctxf, attr));
            if (rc != 0) {
                throw device("ibv_query_device failed on " + deviceName);
            }
            siw = attr.get(JAVA_INT, offset(DEVICE_ATTR, "vendor_id")) == SIW_VENDOR_ID;
            maxSge = Math.max(1, attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_sge")));
            int sgeRd = attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_sge_rd")); // 0: not reported, max_sge holds
            maxSgeRd = sgeRd <= 0 ? maxSge : Math.min(maxSge, sgeRd);
            maxQpWr = attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_qp_wr"));
            maxCqe = attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_cqe"));
            maxSrq = postSrqRecvFn.equals(MemorySegment.NULL) ? 0 : attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_srq"));
            maxSrqWr = attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_srq_wr"));
            maxSrqSge = attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_srq_sge"));
            memoryWindows = VerbsWindow.usable(attr.get(JAVA_INT, offset(DEVICE_ATTR, "device_cap_flags")),
                    attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_mw")), !allocMwFn.equals(MemorySegment.NULL)
                            && !bindMwFn.equals(MemorySegment.NULL) && !deallocMwFn.equals(MemorySegment.NULL),
                    System.getProperty(VerbsWindow.PROPERTY, "true"));
            int ird = Math.max(1, attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_qp_rd_atom")));
            int ord = Math.max(1, attr.get(JAVA_INT, offset(DEVICE_ATTR, "max_qp_init_rd_atom")));
            long maxMr = attr.get(java.lang.foreign.ValueLayout.JAVA_LONG, offset(DEVICE_ATTR, "max_mr_size"));
            long maxMsg = Math.min(1L << 30, maxMr <= 0 ? 1L << 30 : maxMr);
            cc = call(() -> (MemorySegment) v.createCompChannel.invokeExact(ctxf));
            if (cc.equals(MemorySegment.NULL)) {
                throw device("ibv_create_comp_channel failed on " + deviceName);
            }
            compChannel = cc.reinterpret(VerbsLayouts.COMP_CHANNEL.byteSize());
            compFd = compChannel.get(JAVA_INT, offset(VerbsLayouts.COMP_CHANNEL, "fd"));
            asyncFd = context.get(JAVA_INT, offset(CONTEXT_HEAD, "async_fd"));
            v.nonBlocking(channelFd);
            v.nonBlocking(compFd);
            v.nonBlocking(asyncFd);
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            rc = call(() -> (int) v.pipe.invokeExact(fds));
            if (rc != 0) {
                throw device("pipe(2) failed");
            }
            pipeFds = new int[] {fds.get(JAVA_INT, 0), fds.get(JAVA_INT, 4)};
            wakeRead = pipeFds[0];
            wakeWrite = pipeFds[1];
            wakeByte = arena.allocate(8);
            // A Send or a receive cannot be split: max_sge bounds max_request_iov and max_recv_iov (siw: 6), so the
            // core refuses a longer one at dat_ep_create / post time instead of the device breaking the connection.
            limits = new TransportLimits(maxMsg, maxMsg, iwarp ? IWARP_PRIVATE_DATA : IB_PRIVATE_DATA, ird, ord, 0,
                    "verbs " + deviceName, maxSge);
            address = new InetSocketAddress(config.address(), 0);
            thread = Thread.ofPlatform().daemon().name("jdat-verbs-" + iaName).unstarted(this::run);
            thread.start();
            OPEN.add(this);
            ok = true;
        } finally {
            if (!ok) {
                cleanupFailedOpen(id, cc, ch, pipeFds);
            }
        }
    }

    private void cleanupFailedOpen(MemorySegment id, MemorySegment cc, MemorySegment ch, int[] pipeFds) {
        try {
            if (!cc.equals(MemorySegment.NULL)) {
                int ignored = (int) v.destroyCompChannel.invokeExact(cc);
            }
            if (!id.equals(MemorySegment.NULL)) {
                int ignored = (int) v.destroyId.invokeExact(id);
            }
            if (!ch.equals(MemorySegment.NULL)) {
                v.destroyEventChannel.invokeExact(ch);
            }
            if (pipeFds != null) {
                int a = (int) v.close.invokeExact(pipeFds[0]);
                int b = (int) v.close.invokeExact(pipeFds[1]);
            }
        } catch (Throwable t) {
            // best effort
        }
        arena.close();
    }

    static DatException device(String why) {
        return new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE, why);
    }

    /** A native call that throws nothing checked. */
    interface NativeCall<T> {
        T call() throws Throwable;
    }

    static <T> T call(NativeCall<T> c) {
        try {
            return c.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A {@code struct sockaddr_in} for {@code address:port}. */
    static MemorySegment sockaddr(Arena arena, InetAddress address, int port) {
        MemorySegment sa = arena.allocate(VerbsLayouts.SOCKADDR_IN);
        sa.set(JAVA_SHORT, 0, AF_INET);
        sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) port);
        MemorySegment.copy(address.getAddress(), 0, sa, JAVA_BYTE, 4, 4);
        return sa;
    }

    /** The IPv4 address and port of a {@code struct sockaddr_in}, or {@code null} for another family. */
    static InetSocketAddress fromSockaddr(MemorySegment sa) {
        if (sa.get(JAVA_SHORT, 0) != AF_INET) {
            return null;
        }
        int port = Short.toUnsignedInt(sa.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        byte[] a = new byte[4];
        MemorySegment.copy(sa, JAVA_BYTE, 4, a, 0, 4);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(a), port);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ Transport

    @Override
    public SocketAddress address() {
        return address;
    }

    @Override
    public TransportLimits limits() {
        return limits;
    }

    @Override
    public boolean isValidAddress(SocketAddress a) {
        return a instanceof InetSocketAddress i && i.getAddress() instanceof Inet4Address;
    }

    @Override
    public DeviceMemory deviceMemory() {
        return this;
    }

    /** SRQs are the device's ({@link VerbsSrq}); a device without them refuses with the reason. */
    @Override
    public boolean sharedReceiveQueues() {
        return true;
    }

    @Override
    public Listener listen(long connQual, boolean any, IncomingHandler handler) {
        checkOpen();
        return new VerbsListener(this, connQual, any, handler);
    }

    @Override
    public ConnectAttempt connect(SocketAddress remote, long remoteConnQual, byte[] privateData, int rdmaReadIn,
            int rdmaReadOut, ActiveHandler handler) {
        throw new IllegalStateException("the verbs transport needs the EP's resources (core calls the 7-arg connect)");
    }

    @Override
    public ConnectAttempt connect(SocketAddress remote, long remoteConnQual, byte[] privateData, int rdmaReadIn,
            int rdmaReadOut, ActiveHandler handler, EndpointResources resources) {
        checkOpen();
        return VerbsConnection.connect(this, (InetSocketAddress) remote, remoteConnQual, privateData, rdmaReadIn,
                rdmaReadOut, handler, resources);
    }

    @Override
    public boolean progress() {
        consumer.polled();
        if (STATS) {
            stConsumerPolls++;
        }
        if (!pollLock.tryLock()) {
            return false;
        }
        try {
            return pollAll();
        } finally {
            pollLock.unlock();
        }
    }

    /** The polling consumer parks (in a wait): the progress thread re-arms the CQs and polls, now. */
    @Override
    public void pollerIdle() {
        if (consumer.idle()) {
            if (STATS) {
                stIdleWakes++;
            }
            wake();
        }
    }

    /** Whether a consumer polled within the grace ({@link ConsumerPolling}). */
    private boolean polled() {
        return consumer.polling(System.nanoTime());
    }

    /** Polls every established connection's CQ once (pollLock held). */
    private boolean pollAll() {
        boolean any = false;
        for (VerbsConnection c : connections.snapshot()) {
            any |= c.poll();
        }
        return any;
    }

    // ------------------------------------------------------------------ DeviceMemory

    @Override
    public Domain openDomain() {
        checkOpen();
        MemorySegment pd = call(() -> (MemorySegment) v.allocPd.invokeExact(context));
        if (pd.equals(MemorySegment.NULL)) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_PROTECTION_DOMAIN,
                    "ibv_alloc_pd failed on " + deviceName);
        }
        return new VerbsDomain(this, pd);
    }

    /** {@code enum ibv_access_flags} for DAT privileges. */
    static int access(int privileges) {
        int a = 0;
        if ((privileges & MemPriv.LOCAL_WRITE) != 0) {
            a |= VerbsLayouts.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((privileges & MemPriv.REMOTE_WRITE) != 0) {
            a |= VerbsLayouts.IBV_ACCESS_REMOTE_WRITE | VerbsLayouts.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((privileges & MemPriv.REMOTE_READ) != 0) {
            a |= VerbsLayouts.IBV_ACCESS_REMOTE_READ;
        }
        return a;
    }

    // ------------------------------------------------------------------ the progress thread

    /** Runs {@code task} on the progress thread, soon. */
    void execute(Runnable task) {
        tasks.add(task);
        wake();
    }

    private void wake() {
        MemorySegment b = wakeByte;
        int fd = wakeWrite;
        if (STATS) {
            stWakes++;
        }
        call(() -> (long) v.write.invokeExact(fd, b, 1L));
    }

    boolean isProgressThread() {
        return Thread.currentThread() == thread;
    }

    private void run() {
        // The thread's own memory: the IA's close never waits on a downcall of this thread holding the IA's arena.
        try (Arena own = Arena.ofConfined()) {
            run(own);
        }
    }

    private void run(Arena own) {
        MemorySegment fds = own.allocate(POLLFD, 4);
        fds.set(JAVA_INT, 0, channelFd);
        fds.set(JAVA_SHORT, 4, POLLIN);
        fds.set(JAVA_INT, 8, compFd);
        fds.set(JAVA_SHORT, 12, POLLIN);
        fds.set(JAVA_INT, 16, wakeRead);
        fds.set(JAVA_SHORT, 20, POLLIN);
        fds.set(JAVA_INT, 24, asyncFd);
        fds.set(JAVA_SHORT, 28, POLLIN);
        MemorySegment eventOut = own.allocate(ADDRESS);
        MemorySegment cqOut = own.allocate(ADDRESS);
        MemorySegment ctxOut = own.allocate(ADDRESS);
        MemorySegment drain = own.allocate(64);
        MemorySegment async = own.allocate(VerbsLayouts.ASYNC_EVENT);
        asyncScratch = async;
        while (!closed) {
            try {
                fds.set(JAVA_SHORT, 6, (short) 0);
                fds.set(JAVA_SHORT, 14, (short) 0);
                fds.set(JAVA_SHORT, 22, (short) 0);
                fds.set(JAVA_SHORT, 30, (short) 0);
                // While a poller has the CQs, look every checkMillis whether it still polls (one that parks in a
                // wait says so at once: pollerIdle).
                int n = (int) v.poll.invokeExact(fds, 4L, cqsUnarmed ? consumer.checkMillis : 1000);
                if (STATS) {
                    stLoops++;
                    if (n > 0) {
                        stPollReady++;
                    } else {
                        stPollTimeout++;
                    }
                }
                if (n > 0 && fds.get(JAVA_SHORT, 30) != 0) {
                    int rc = (int) v.getAsyncEvent.invokeExact(context, async);
                    if (rc == 0) {
                        MemorySegment element = async.get(ADDRESS, 0);
                        int type = async.get(JAVA_INT, 8);
                        v.ackAsyncEvent.invokeExact(async);
                        asyncEvent(type, element.address());
                    }
                }
                if (n > 0 && fds.get(JAVA_SHORT, 22) != 0) {
                    long ignored = (long) v.read.invokeExact(wakeRead, drain, 64L);
                }
                Runnable t;
                while ((t = tasks.poll()) != null) {
                    t.run();
                }
                if (closed) {
                    break;
                }
                if (n > 0 && fds.get(JAVA_SHORT, 14) != 0) {
                    int rc = (int) v.getCqEvent.invokeExact(compChannel, cqOut, ctxOut);
                    if (rc == 0) {
                        MemorySegment cq = cqOut.get(ADDRESS, 0);
                        v.ackCqEvents.invokeExact(cq, 1);
                        if (STATS) {
                            stCqEvents++;
                        }
                        if (polled()) {
                            if (STATS) {
                                stCqLeftUnarmed++;
                            }
                            cqsUnarmed = true; // the poller takes its completions; no event per completion
                        } else {
                            int r = (int) Verbs.REQ_NOTIFY_CQ.invokeExact(reqNotifyFn, cq.address(), 0);
                        }
                    }
                }
                if (!polled()) {
                    pollLock.lock();
                    try {
                        if (cqsUnarmed) { // armed before polling: nothing that completes after the poll is missed
                            cqsUnarmed = false;
                            if (STATS) {
                                stTakeOvers++;
                            }
                            for (VerbsConnection c : connections.snapshot()) {
                                c.arm();
                            }
                        }
                        if (STATS) {
                            stThreadPolls++;
                        }
                        while (pollAll()) {
                            if (STATS) {
                                stThreadPollHits++;
                            }
                        }
                    } finally {
                        pollLock.unlock();
                    }
                }
                long now = System.nanoTime();
                if (now - lastTailLook >= TAIL_LOOK_NANOS) {
                    // A send queue that ends in unsignalled requests, as it did at the previous look with nothing
                    // posted since, gets a signalled marker behind them (VerbsConnection.signalIdleTail).
                    lastTailLook = now;
                    for (VerbsConnection c : connections.snapshot()) {
                        c.signalIdleTail();
                    }
                }
                if (n > 0 && fds.get(JAVA_SHORT, 6) != 0) {
                    // Under the poll lock: librdmacm moves an IB QP to error inside rdma_get_cm_event when it
                    // returns DISCONNECTED, and no consumer may poll the flushes before the event is handled.
                    pollLock.lock();
                    try {
                        int rc = (int) v.getCmEvent.invokeExact(channel, eventOut);
                        if (rc == 0) {
                            dispatch(eventOut.get(ADDRESS, 0).reinterpret(CM_EVENT_HEAD.byteSize()));
                        }
                    } finally {
                        pollLock.unlock();
                    }
                }
            } catch (Throwable e) {
                // A handler's failure must not stop the IA's progress.
                System.getLogger("io.jdat.verbs").log(System.Logger.Level.WARNING, "verbs progress: " + e, e);
            }
        }
    }

    /**
     * The progress thread's looks at idle send-queue tails are at least this far apart (and at most the thread's
     * poll timeout, 1 s): an unsignalled tail waits 20 ms to 2 s for its marker.
     */
    private static final long TAIL_LOOK_NANOS = 20_000_000L;
    /** Progress thread: when it last looked at the send queues' tails. */
    private long lastTailLook;

    /** The progress thread's {@code struct ibv_async_event}. */
    private MemorySegment asyncScratch;

    /** Handles every asynchronous event already queued (progress thread; the async fd is non-blocking). */
    void drainAsyncEvents() {
        MemorySegment async = asyncScratch;
        if (async == null || !isProgressThread()) {
            return;
        }
        for (int i = 0; i < 64; i++) {
            int rc = call(() -> (int) v.getAsyncEvent.invokeExact(context, async));
            if (rc != 0) {
                return;
            }
            MemorySegment element = async.get(ADDRESS, 0);
            int type = async.get(JAVA_INT, 8);
            call(() -> {
                v.ackAsyncEvent.invokeExact(async);
                return null;
            });
            asyncEvent(type, element.address());
        }
    }

    /** The open IAs: librdmacm gives every id on a device the same {@code ibv_context}, so IAs share its async fd. */
    private static final java.util.Set<VerbsTransport> OPEN = ConcurrentHashMap.newKeySet();

    /** {@return whether the open IA named {@code iaName} makes its RMRs memory windows} (for the device checks) */
    static boolean memoryWindows(String iaName) {
        return OPEN.stream().anyMatch(t -> t.iaName.equals(iaName) && t.memoryWindows);
    }

    /**
     * An asynchronous event read from the device context's async fd, which every IA on the device shares: whichever
     * IA's progress thread read it hands it to each IA of the context, on that IA's own progress thread.
     */
    private void asyncEvent(int type, long element) {
        if (TRACE) {
            System.err.printf("jdat verbs %s: async event %d element %x%n", iaName, type, element);
        }
        for (VerbsTransport t : OPEN) {
            if (t.context.address() == context.address()) {
                if (t == this) {
                    ownAsyncEvent(type, element);
                } else {
                    t.execute(() -> t.ownAsyncEvent(type, element));
                }
            }
        }
    }

    /** An SRQ's limit reached: its low watermark; a QP or CQ error: that connection is broken (progress thread). */
    private void ownAsyncEvent(int type, long element) {
        if (type == VerbsLayouts.IBV_EVENT_SRQ_LIMIT_REACHED) {
            VerbsSrq q = srqs.get(element);
            if (q != null) {
                q.limitReached();
            }
            return;
        }
        if (type != VerbsLayouts.IBV_EVENT_QP_FATAL && type != VerbsLayouts.IBV_EVENT_QP_REQ_ERR
                && type != VerbsLayouts.IBV_EVENT_QP_ACCESS_ERR && type != VerbsLayouts.IBV_EVENT_CQ_ERR) {
            return;
        }
        for (CmHandler h : handlers.values()) {
            if (h instanceof VerbsConnection c && c.owns(element)) {
                c.deviceError();
            }
        }
    }

    private void dispatch(MemorySegment ev) throws Throwable {
        int type = ev.get(JAVA_INT, offset(CM_EVENT_HEAD, "event"));
        int status = ev.get(JAVA_INT, offset(CM_EVENT_HEAD, "status"));
        long id = ev.get(ADDRESS, offset(CM_EVENT_HEAD, "id")).address();
        long listenId = ev.get(ADDRESS, offset(CM_EVENT_HEAD, "listen_id")).address();
        long conn = offset(CM_EVENT_HEAD, "conn");
        int len = Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + offset(VerbsLayouts.CONN_PARAM, "private_data_len")));
        MemorySegment pd = ev.get(ADDRESS, conn + offset(VerbsLayouts.CONN_PARAM, "private_data"));
        byte[] data = new byte[pd.equals(MemorySegment.NULL) ? 0 : len];
        if (data.length > 0) {
            MemorySegment.copy(pd.reinterpret(len), JAVA_BYTE, 0, data, 0, len);
        }
        int rr = Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + offset(VerbsLayouts.CONN_PARAM, "responder_resources")));
        int id2 = Byte.toUnsignedInt(ev.get(JAVA_BYTE, conn + offset(VerbsLayouts.CONN_PARAM, "initiator_depth")));
        int rc = (int) v.ackCmEvent.invokeExact(ev);
        if (TRACE) {
            System.err.printf("jdat verbs %s: cm event %d status %d id %x listen %x pd %d%n", iaName, type, status, id,
                    listenId, data.length);
        }
        CmEvent e = new CmEvent(type, status, id, listenId, data, rr, id2);
        CmHandler h = handlers.get(type == CmEvents.CONNECT_REQUEST ? listenId : id);
        if (h != null) {
            h.onCmEvent(e);
        } else if (type == CmEvents.CONNECT_REQUEST) {
            // The listener is gone: refuse and release the new id.
            MemorySegment nid = MemorySegment.ofAddress(id).reinterpret(CM_ID_HEAD.byteSize());
            int r1 = (int) v.reject.invokeExact(nid, MemorySegment.NULL, (byte) 0);
            int r2 = (int) v.destroyId.invokeExact(nid);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new DatException(DatReturnType.INVALID_STATE, "verbs IA " + iaName + " is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        OPEN.remove(this);
        if (STATS) {
            System.err.printf("jdat verbs %s progress: loops %d (poll ready %d, timeout %d), cq events %d (left unarmed"
                    + " %d), wake writes %d (pollerIdle %d), take-overs %d, thread polls %d (with completions %d),"
                    + " consumer polls %d%n", iaName, stLoops, stPollReady, stPollTimeout, stCqEvents, stCqLeftUnarmed,
                    stWakes, stIdleWakes, stTakeOvers, stThreadPolls, stThreadPollHits, stConsumerPolls);
        }
        // Connections and listeners first: break them (peers see a disconnect) and release their ids.
        for (CmHandler h : handlers.values()) {
            if (h instanceof VerbsConnection c) {
                c.abort();
            } else if (h instanceof VerbsListener l) {
                l.close();
            }
        }
        execute(() -> closed = true);
        long t0 = System.nanoTime();
        if (!isProgressThread()) {
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (TRACE) {
                System.err.printf("jdat verbs %s: progress thread stopped in %d ms%n", iaName,
                        (System.nanoTime() - t0) / 1_000_000);
            }
            if (thread.isAlive()) {
                if (TRACE) {
                    for (StackTraceElement el : thread.getStackTrace()) {
                        System.err.println("    at " + el);
                    }
                }
                // Stuck in the device (should not happen): leak its native objects rather than free them under it.
                System.getLogger("io.jdat.verbs").log(System.Logger.Level.WARNING, "verbs IA " + iaName
                        + ": the progress thread did not stop; its device objects are not released");
                return;
            }
        }
        closed = true;
        Runnable t;
        while ((t = tasks.poll()) != null) {
            t.run();
        }
        for (CmHandler h : handlers.values()) {
            if (h instanceof VerbsConnection c) {
                c.destroyNow();
            }
        }
        VerbsSrq.closeAll(this);
        VerbsDomain.closeAll(this);
        call(() -> (int) v.destroyCompChannel.invokeExact(compChannel));
        call(() -> (int) v.destroyId.invokeExact(anchorId));
        call(() -> {
            v.destroyEventChannel.invokeExact(channel);
            return null;
        });
        call(() -> (int) v.close.invokeExact(wakeRead));
        call(() -> (int) v.close.invokeExact(wakeWrite));
        arena.close();
    }

    /** {@code enum rdma_cm_event_type} (rdma_cma.h). */
    static final class CmEvents {
        static final int ADDR_RESOLVED = 0;
        static final int ADDR_ERROR = 1;
        static final int ROUTE_RESOLVED = 2;
        static final int ROUTE_ERROR = 3;
        static final int CONNECT_REQUEST = 4;
        static final int CONNECT_RESPONSE = 5;
        static final int CONNECT_ERROR = 6;
        static final int UNREACHABLE = 7;
        static final int REJECTED = 8;
        static final int ESTABLISHED = 9;
        static final int DISCONNECTED = 10;
        static final int DEVICE_REMOVAL = 11;
        static final int TIMEWAIT_EXIT = 15;

        private CmEvents() {
        }
    }
}
