package io.jdat.verbs;

import static io.jdat.verbs.VerbsTransport.call;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.spi.DeviceMemory;
import io.jdat.spi.DeviceSrq;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Protection Zone's device protection domain ({@code ibv_alloc_pd}) and its registrations
 * ({@code ibv_reg_mr}). A PD that the device still finds in use when the PZ is freed (a queue pair being torn
 * down on the progress thread) is released when the IA closes.
 */
final class VerbsDomain implements DeviceMemory.Domain {
    private static final Map<VerbsTransport, Set<VerbsDomain>> OPEN = new ConcurrentHashMap<>();

    private final VerbsTransport t;
    final MemorySegment pd;
    private final Set<Registration> registrations = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** The PD was deallocated (guarded by this). */
    private boolean released;

    VerbsDomain(VerbsTransport t, MemorySegment pd) {
        this.t = t;
        this.pd = pd;
        OPEN.computeIfAbsent(t, k -> ConcurrentHashMap.newKeySet()).add(this);
    }

    @Override
    public DeviceMemory.Registration register(MemorySegment memory, int privileges) {
        int access = VerbsTransport.access(privileges);
        MemorySegment mr = call(() -> (MemorySegment) t.v.regMr.invokeExact(pd, memory, memory.byteSize(), access));
        if (mr.equals(MemorySegment.NULL)) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY_REGION,
                    "ibv_reg_mr of " + memory.byteSize() + " bytes failed on " + t.deviceName
                            + " (errno " + t.v.errno() + "; is RLIMIT_MEMLOCK large enough? see docs/verbs.md)");
        }
        mr = mr.reinterpret(VerbsLayouts.MR.byteSize());
        Registration r = new Registration(mr, mr.get(ValueLayout.JAVA_INT, VerbsLayouts.offset(VerbsLayouts.MR, "lkey")),
                mr.get(ValueLayout.JAVA_INT, VerbsLayouts.offset(VerbsLayouts.MR, "rkey")));
        registrations.add(r);
        return r;
    }

    @Override
    public DeviceSrq createSrq(int maxRecvs, int maxRecvIov, DeviceSrq.Sink sink) {
        return VerbsSrq.create(t, pd, maxRecvs, maxRecvIov, sink);
    }

    @Override
    public void close() {
        closed = true;
        if (registrations.isEmpty() && dealloc()) {
            Set<VerbsDomain> s = OPEN.get(t);
            if (s != null) {
                s.remove(this);
            }
        }
    }

    /** {@code ibv_dealloc_pd} once: true when the PD is released (now or before); false while something uses it. */
    private synchronized boolean dealloc() {
        if (!released) {
            released = call(() -> (int) t.v.deallocPd.invokeExact(pd)) == 0;
        }
        return released;
    }

    /** Releases the PDs of freed PZs that a queue pair held when they were freed (after a QP is destroyed). */
    static void retryClosed(VerbsTransport t) {
        Set<VerbsDomain> s = OPEN.get(t);
        if (s == null) {
            return;
        }
        for (VerbsDomain d : s) {
            if (d.closed && d.registrations.isEmpty() && d.dealloc()) {
                s.remove(d);
            }
        }
    }

    /** Releases every registration and PD still held when {@code t} closes. */
    static void closeAll(VerbsTransport t) {
        Set<VerbsDomain> s = OPEN.remove(t);
        if (s == null) {
            return;
        }
        for (VerbsDomain d : s) {
            for (Registration r : d.registrations) {
                r.close();
            }
            d.dealloc();
        }
    }

    /** One {@code struct ibv_mr}. */
    final class Registration implements DeviceMemory.Registration {
        private final MemorySegment mr;
        private final int lkey;
        private final int rkey;
        private boolean released;

        Registration(MemorySegment mr, int lkey, int rkey) {
            this.mr = mr;
            this.lkey = lkey;
            this.rkey = rkey;
        }

        @Override
        public int localKey() {
            return lkey;
        }

        @Override
        public int remoteKey() {
            return rkey;
        }

        @Override
        public synchronized void close() {
            if (released) {
                return;
            }
            released = true;
            call(() -> (int) t.v.deregMr.invokeExact(mr));
            registrations.remove(this);
            if (closed && registrations.isEmpty()) {
                VerbsDomain.this.close();
            }
        }
    }
}
