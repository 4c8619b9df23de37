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
 * A Protection Zone's device protection domain ({@code ibv_alloc_pd}), its registrations ({@code ibv_reg_mr})
 * and, on a device with them, its memory windows ({@link VerbsWindow}). A PD that the device still finds in use
 * when the PZ is freed (a queue pair being torn down on the progress thread) is released when the IA closes. A
 * registration the device refuses to deregister because a window is still bound into it (an unbind posted but not
 * yet executed when the LMR is freed) is deregistered again after a queue pair is destroyed, after a window is
 * replaced or deallocated, at the domain's next registration, and at the latest when the IA closes.
 */
final class VerbsDomain implements DeviceMemory.Domain {
    private static final Map<VerbsTransport, Set<VerbsDomain>> OPEN = new ConcurrentHashMap<>();

    private final VerbsTransport t;
    final MemorySegment pd;
    private final Set<Registration> registrations = ConcurrentHashMap.newKeySet();
    private final Set<VerbsWindow> windows = ConcurrentHashMap.newKeySet();
    /** Registrations whose {@code ibv_dereg_mr} failed (a window still bound into them): retried. */
    private final Set<Registration> deferred = ConcurrentHashMap.newKeySet();
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
        retryDeferred();
        // On a device with windows every registration may have an RMR bound into it (IBV_ACCESS_MW_BIND).
        int access = VerbsTransport.access(privileges) | (t.memoryWindows ? VerbsLayouts.IBV_ACCESS_MW_BIND : 0);
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
    public DeviceMemory.Window openWindow() {
        if (!t.memoryWindows) {
            return null; // the fallback: the core registers each binding
        }
        VerbsWindow w = VerbsWindow.open(t, this);
        windows.add(w);
        return w;
    }

    /** A window was deallocated: it no longer holds the PD or a registration. */
    void windowClosed(VerbsWindow w) {
        windows.remove(w);
        retryDeferred();
        if (closed && registrations.isEmpty() && windows.isEmpty()) {
            close();
        }
    }

    /** Deregisters the registrations whose deregistration a bound window refused. */
    void retryDeferred() {
        if (deferred.isEmpty()) {
            return;
        }
        for (Registration r : deferred) {
            r.deregister();
        }
        if (closed && registrations.isEmpty() && windows.isEmpty()) {
            close();
        }
    }

    @Override
    public DeviceSrq createSrq(int maxRecvs, int maxRecvIov, DeviceSrq.Sink sink) {
        return VerbsSrq.create(t, pd, maxRecvs, maxRecvIov, sink);
    }

    @Override
    public void close() {
        closed = true;
        if (registrations.isEmpty() && windows.isEmpty() && dealloc()) {
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
            d.retryDeferred();
            if (d.closed && d.registrations.isEmpty() && d.windows.isEmpty() && d.dealloc()) {
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
            for (VerbsWindow w : d.windows) {
                w.close();
            }
            for (Registration r : d.registrations) {
                r.close();
                r.deregister(); // one a window held: the windows are gone now
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
        /** Deregistered at the device (guarded by this). */
        private boolean gone;

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

        /** {@return the {@code struct ibv_mr} a window bind names} */
        long mrAddress() {
            return mr.address();
        }

        @Override
        public void close() {
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
            }
            deregister();
        }

        /** {@code ibv_dereg_mr}; when a window bound into it makes the device refuse, it is kept to retry. */
        void deregister() {
            synchronized (this) {
                if (gone) {
                    return;
                }
                int rc = call(() -> (int) t.v.deregMr.invokeExact(mr));
                if (rc != 0 && !windows.isEmpty()) {
                    deferred.add(this);
                    return;
                }
                gone = true;
                deferred.remove(this);
                registrations.remove(this);
            }
            if (closed && registrations.isEmpty() && windows.isEmpty()) {
                VerbsDomain.this.close();
            }
        }
    }
}
