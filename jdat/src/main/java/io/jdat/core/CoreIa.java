package io.jdat.core;

import io.jdat.RegistryEntry;

import io.jdat.Cno;
import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatHandle;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCounters;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EpCreatorForPsp;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.IovOwnership;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemType;
import io.jdat.NamedAttr;
import io.jdat.ProtectionZone;
import io.jdat.ProviderAttr;
import io.jdat.ProxyAgent;
import io.jdat.PublicServicePoint;
import io.jdat.PzSupport;
import io.jdat.RegionDescription;
import io.jdat.Registry;
import io.jdat.ReservedServicePoint;
import io.jdat.SharedReceiveQueue;
import io.jdat.SrqAttr;
import io.jdat.CloseFlags;
import io.jdat.HandleType;
import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import io.jdat.spi.TransportProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * {@code DAT_IA_HANDLE}: an open IA. Owns the transport instance, the memory table and the set of live
 * objects, which an abrupt close destroys in dependency order (IAC-01).
 */
public final class CoreIa extends CoreObject implements InterfaceAdapter {
    /** {@code max_evd_qlen}. */
    static final int MAX_EVD_QLEN = 1 << 20;
    /** {@code max_dto_per_ep}. */
    static final int MAX_DTO_PER_EP = 1 << 16;
    /** {@code max_iov_segments_per_dto}. */
    static final int MAX_IOV = 64;
    /** Objects of each kind an IA may hold. */
    static final int MAX_OBJECTS = 1 << 20;

    private static final Map<String, TransportProvider> PROVIDERS = new HashMap<>();

    static {
        for (TransportProvider p : ServiceLoader.load(TransportProvider.class, CoreIa.class.getClassLoader())) {
            PROVIDERS.putIfAbsent(p.name(), p);
        }
    }

    final String name;
    /** The registry's count of open IAs, told of this IA's close. */
    private final OpenIaCount openIas;
    final Transport transport;
    final TransportLimits limits;
    /** Most segments of a Send or a receive buffer: the core's {@link #MAX_IOV} or the transport's, if fewer. */
    final int maxMessageIov;
    final MemoryTable memory = new MemoryTable();
    final SharedMemoryIds sharedMemory = new SharedMemoryIds();
    private final LinkedHashSet<CoreObject> objects = new LinkedHashSet<>();
    /** The counters of the Endpoints freed so far (guarded by {@link #objects}). */
    private DtoCounters retired = DtoCounters.ZERO;
    private final java.util.concurrent.ConcurrentHashMap<Long, ServicePoint> servicePoints =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final EventDispatcher asyncHandle;
    private final CoreEvd asyncEvd;
    private final boolean ownsAsyncEvd;
    /** The JMX MBean, registered at open and unregistered at close; {@code null} when JMX is unavailable. */
    private volatile IaMBean mbean;

    private CoreIa(String name, Transport transport, int asyncQlen, EventDispatcher asyncArg, OpenIaCount openIas) {
        super(null, HandleType.IA, DatReturnSubtype.INVALID_HANDLE_IA);
        this.name = name;
        this.openIas = openIas;
        this.transport = transport;
        this.limits = transport.limits();
        this.maxMessageIov = Math.min(MAX_IOV, limits.maxMessageIov());
        if (asyncArg == null) {
            asyncEvd = new CoreEvd(this, Math.max(asyncQlen, 1), null, EvdFlags.ASYNC);
            ownsAsyncEvd = true;
            asyncHandle = asyncEvd;
        } else if (asyncArg == EventDispatcher.ASYNC_EXISTS) {
            asyncEvd = null;
            ownsAsyncEvd = false;
            asyncHandle = EventDispatcher.OUT_OF_SCOPE;
        } else {
            CoreEvd e = (CoreEvd) asyncArg;
            e.attachOther();
            asyncEvd = e;
            ownsAsyncEvd = false;
            asyncHandle = e;
        }
    }

    static CoreIa open(String iaName, int asyncQlen, EventDispatcher asyncArg, int major, int minor,
            boolean threadSafe, OpenIaCount openIas) {
        io.jdat.RegistryEntry entry = Registry.lookup(iaName, major, minor, threadSafe);
        if (asyncQlen < 0) {
            throw Fail.param(2, "negative async EVD queue length");
        }
        if (asyncArg != null && asyncArg != EventDispatcher.ASYNC_EXISTS) {
            if (!(asyncArg instanceof CoreEvd e) || e.freed || !e.accepts(EvdFlags.ASYNC)) {
                throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, "not a live async EVD (IAO-04)");
            }
        }
        if (asyncArg == null && asyncQlen > MAX_EVD_QLEN) {
            throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEVD, "async EVD too long");
        }
        TransportProvider provider = PROVIDERS.get(entry.library());
        if (provider == null) {
            throw Fail.of(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "no transport library '" + entry.library() + "' for IA " + iaName);
        }
        return open(iaName, provider.open(iaName, entry.iaParams()), asyncQlen, asyncArg, openIas);
    }

    /**
     * The rest of {@code dat_ia_open} once the transport is open: counts the IA open and builds it. If that
     * fails (the name was removed meanwhile, the transport cannot tell its limits, the async EVD cannot be
     * made), the transport is closed and the count given back before the failure propagates.
     */
    static CoreIa open(String iaName, Transport t, int asyncQlen, EventDispatcher asyncArg,
            OpenIaCount openIas) {
        boolean counted = false;
        try {
            openIas.acquire(iaName);
            counted = true;
            CoreIa ia = new CoreIa(iaName, t, asyncQlen, asyncArg, openIas);
            ia.mbean = IaMBean.register(ia);
            return ia;
        } catch (RuntimeException | Error e) {
            if (counted) {
                openIas.release(iaName);
            }
            try {
                t.close();
            } catch (RuntimeException | Error closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ object set

    void register(CoreObject o) {
        synchronized (objects) {
            if (freed) {
                o.destroy();
                throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_IA, "IA closed");
            }
            if (objects.size() >= MAX_OBJECTS) {
                o.destroy();
                throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY, "object limit");
            }
            objects.add(o);
        }
    }

    void unregister(CoreObject o) {
        synchronized (objects) {
            if (objects.remove(o) && o instanceof CoreEp ep) {
                retired = retired.plus(ep.counters.snapshot());
            }
        }
    }

    @Override
    public DtoCounters counters() {
        checkAlive();
        synchronized (objects) {
            DtoCounters sum = retired;
            for (CoreObject o : objects) {
                if (o instanceof CoreEp ep) {
                    sum = sum.plus(ep.counters.snapshot());
                }
            }
            return sum;
        }
    }

    /** A snapshot of the live Endpoints (for the JMX MBean). */
    List<CoreEp> endpoints() {
        synchronized (objects) {
            List<CoreEp> l = new ArrayList<>();
            for (CoreObject o : objects) {
                if (o instanceof CoreEp ep) {
                    l.add(ep);
                }
            }
            return l;
        }
    }

    void addServicePoint(ServicePoint sp) {
        servicePoints.put(sp.connQual(), sp);
    }

    void removeServicePoint(ServicePoint sp) {
        servicePoints.remove(sp.connQual(), sp);
    }

    /** The PSP or RSP of this IA listening on {@code qual} ({@code dat_cr_handoff}), or {@code null}. */
    ServicePoint servicePoint(long qual) {
        return servicePoints.get(qual);
    }

    /** Reports an asynchronous error on the IA's async EVD (lost when there is none or it is full). */
    void asyncError(EventNumber number, DatHandle handle, int reason, CoreEvd source) {
        CoreEvd a = asyncEvd;
        if (a != null && a != source && !a.freed) {
            a.postAsync(number, handle, reason);
        }
    }

    // ------------------------------------------------------------------ factories

    /** {@code dat_pz_create}, called by the public API's static factory. */
    public ProtectionZone pzCreate() {
        checkAlive();
        CorePz pz = new CorePz(this);
        register(pz);
        return pz;
    }

    /** {@code dat_lmr_create}, called by the public API's static factory. */
    public Lmr lmrCreate(int memType, RegionDescription desc, long length, ProtectionZone pz, int privileges) {
        checkAlive();
        return CoreLmr.create(this, memType, desc, length, pz, privileges);
    }

    /** {@code dat_lmr_sync_rdma_read / dat_lmr_sync_rdma_write}, called by the public API's static factory. */
    public void lmrSync(LmrTriplet[] segments, long numSegments) {
        checkAlive();
        if (numSegments > 0 && segments == null) {
            throw Fail.param(2, "no segments");
        }
        if (numSegments < 0 || (numSegments > 0 && segments.length < numSegments)) {
            throw Fail.param(3, "bad segment count");
        }
        for (int i = 0; i < numSegments; i++) {
            LmrTriplet t = segments[i];
            if (t == null) {
                throw Fail.param(2, "null segment " + i);
            }
            if (t.segmentLength() == 0) {
                continue;
            }
            Region r = memory.lookup(t.lmrContext());
            if (r == null || !r.local() || r.offsetOf(t.virtualAddress(), t.segmentLength()) < 0) {
                throw Fail.param(2, "segment " + i + " outside its LMR (LSY-01)");
            }
        }
    }

    /** {@code dat_evd_create}, called by the public API's static factory. */
    public EventDispatcher evdCreate(int qlen, Cno cno, int flags) {
        checkAlive();
        if (qlen <= 0) {
            throw Fail.param(2, "queue length must be positive (EVD-01)");
        }
        if ((flags & ~EvdFlags.ALL) != 0 || flags == 0) {
            throw Fail.param(4, "undefined EVD flags 0x" + Integer.toHexString(flags));
        }
        if (qlen > MAX_EVD_QLEN) {
            throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEVD, "queue too long");
        }
        CoreCno c = Core.cnoArg(cno, this);
        CoreEvd evd = new CoreEvd(this, qlen, c, flags);
        register(evd);
        return evd;
    }

    /** {@code dat_cno_create}, called by the public API's static factory. */
    public Cno cnoCreate(ProxyAgent agent) {
        checkAlive();
        CoreCno c = new CoreCno(this, agent);
        register(c);
        return c;
    }

    /** {@code dat_ep_create}, called by the public API's static factory. */
    public Endpoint epCreate(ProtectionZone pz, EventDispatcher recv, EventDispatcher req, EventDispatcher conn, EpAttr attr) {
        checkAlive();
        CoreEp ep = CoreEp.create(this, pz, recv, req, conn, attr);
        register(ep);
        return ep;
    }

    /** {@code dat_ep_create_with_srq}, called by the public API's static factory. */
    public Endpoint epCreateWithSrq(ProtectionZone pz, EventDispatcher recv, EventDispatcher req, EventDispatcher conn,
            SharedReceiveQueue srq, EpAttr attr) {
        checkAlive();
        CoreEp ep = CoreEp.createWithSrq(this, pz, recv, req, conn, srq, attr);
        register(ep);
        return ep;
    }

    /** {@code dat_srq_create}, called by the public API's static factory. */
    public SharedReceiveQueue srqCreate(ProtectionZone pz, SrqAttr attr) {
        checkAlive();
        if (!transport.sharedReceiveQueues()) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "the " + limits.adapterName()
                    + " transport has no shared receive queues");
        }
        CoreSrq srq = CoreSrq.create(this, pz, attr);
        register(srq);
        return srq;
    }

    /** {@code dat_psp_create / dat_psp_create_any}, called by the public API's static factory. */
    public PublicServicePoint pspCreate(long connQual, boolean any, EventDispatcher evd, int pspFlags) {
        checkAlive();
        CorePsp psp = CorePsp.create(this, connQual, any, evd, pspFlags);
        register(psp);
        return psp;
    }

    /** {@code dat_rsp_create}, called by the public API's static factory. */
    public ReservedServicePoint rspCreate(long connQual, Endpoint ep, EventDispatcher evd) {
        checkAlive();
        CoreRsp rsp = CoreRsp.create(this, connQual, ep, evd);
        register(rsp);
        return rsp;
    }

    // ------------------------------------------------------------------ attributes

    @Override
    public EpAttr defaultEpAttr() {
        checkAlive();
        return new EpAttr().maxMessageSize(limits.maxMessageSize()).maxRdmaSize(limits.maxRdmaSize())
                .recvCompletionFlags(CompletionFlags.EVD_THRESHOLD).requestCompletionFlags(CompletionFlags.EVD_THRESHOLD)
                .maxRecvDtos(256).maxRequestDtos(256).maxRecvIov(Math.min(8, maxMessageIov))
                .maxRequestIov(Math.min(8, maxMessageIov))
                .maxRdmaReadIn(Math.min(4, limits.maxRdmaReadIn())).maxRdmaReadOut(Math.min(4, limits.maxRdmaReadOut()))
                .maxRdmaReadIov(8).maxRdmaWriteIov(8);
    }

    IaAttr iaAttr() {
        return new IaAttr(limits.adapterName(), "jdat", 1, 0, 1, 0, transport.address(), MAX_OBJECTS, MAX_DTO_PER_EP,
                limits.maxRdmaReadIn(), limits.maxRdmaReadOut(), MAX_OBJECTS, MAX_EVD_QLEN, maxMessageIov,
                MemoryTable.MAX_INDEX, Long.MAX_VALUE, -1L, MAX_OBJECTS, limits.maxMessageSize(), limits.maxRdmaSize(),
                MemoryTable.MAX_INDEX, -1L, MAX_OBJECTS, MAX_OBJECTS, CoreSrq.MAX_RECV, MAX_IOV, MAX_IOV,
                limits.maxRdmaReadIn(), limits.maxRdmaReadOut(),
                true, true, List.of(new NamedAttr("transport", limits.adapterName())), List.of());
    }

    ProviderAttr providerAttr() {
        boolean[][] merge = new boolean[6][6];
        for (boolean[] row : merge) {
            java.util.Arrays.fill(row, true);
        }
        int memTypes = 1 << MemType.VIRTUAL | 1 << MemType.LMR | 1 << MemType.SHARED_VIRTUAL;
        int allFlags = CompletionFlags.SUPPRESS | CompletionFlags.SOLICITED_WAIT | CompletionFlags.UNSIGNALLED
                | CompletionFlags.BARRIER_FENCE | CompletionFlags.EVD_THRESHOLD;
        return new ProviderAttr("jdat-" + limits.adapterName(), 1, 0, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, memTypes,
                IovOwnership.CONSUMER, limits.qosSupported(), allFlags, true, limits.maxPrivateDataSize(), false,
                EpCreatorForPsp.IFASKED, PzSupport.SHAREABLE, 64, merge, true,
                ProviderAttr.SRQ_WATERMARK_LOW | ProviderAttr.SRQ_WATERMARK_SOFT_HIGH | ProviderAttr.SRQ_WATERMARK_HARD_HIGH,
                true, ProviderAttr.SRQ_INFO_AVAILABLE_DTO_COUNT | ProviderAttr.SRQ_INFO_OUTSTANDING_DTO_COUNT,
                ProviderAttr.EP_RECV_INFO_NBUFS_ALLOCATED | ProviderAttr.EP_RECV_INFO_BUFS_ALLOC_SPAN, false, true, false,
                List.of());
    }

    @Override
    public QueryResult query(long iaAttrMask, long providerAttrMask) {
        checkAlive();
        Fail.checkMask(iaAttrMask, IaAttr.FIELD_ALL, 3);
        Fail.checkMask(providerAttrMask, ProviderAttr.FIELD_ALL, 5);
        return new QueryResult(asyncHandle, iaAttr(), providerAttr());
    }

    @Override
    public EventDispatcher asyncEvd() {
        checkAlive();
        return asyncHandle;
    }

    // ------------------------------------------------------------------ close

    @Override
    public void close(int iaFlags) {
        if (iaFlags != CloseFlags.ABRUPT && iaFlags != CloseFlags.GRACEFUL) {
            checkAlive();
            throw Fail.param(2, "undefined close flags " + iaFlags);
        }
        List<CoreObject> live;
        synchronized (objects) {
            checkAlive();
            if (iaFlags == CloseFlags.GRACEFUL && !objects.isEmpty()) {
                throw Fail.state(DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                        objects.size() + " object(s) still alive (IAC-03)");
            }
            markFreed();
            live = new ArrayList<>(objects);
            objects.clear();
        }
        // Dependency order: listeners and requests, endpoints, memory, event dispatchers, CNOs, PZs.
        HandleType[] order = {HandleType.PSP, HandleType.RSP, HandleType.CR, HandleType.EP, HandleType.RMR,
            HandleType.LMR, HandleType.SRQ, HandleType.EVD, HandleType.CNO, HandleType.PZ};
        for (HandleType t : order) {
            for (CoreObject o : live) {
                if (o.typeForClose() == t) {
                    try {
                        o.destroy();
                    } catch (RuntimeException e) {
                        // An abrupt close never fails because of one object.
                    }
                }
            }
        }
        if (iaFlags == CloseFlags.GRACEFUL) {
            transport.closeGracefully(); // connections closed by dat_ep_free deliver their last bytes
        } else {
            transport.close();
        }
        IaMBean b = mbean;
        if (b != null) {
            b.unregister();
        }
        if (asyncEvd != null) {
            if (ownsAsyncEvd) {
                asyncEvd.destroy();
            } else {
                asyncEvd.detachOther();
            }
        }
        openIas.release(name);
    }

    @Override
    void destroy() {
        close(CloseFlags.ABRUPT);
    }
}
