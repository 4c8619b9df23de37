package io.jdat.verbs;

import static io.jdat.verbs.VerbsTransport.call;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.spi.DeviceMemory;
import io.jdat.spi.WorkRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An RMR on a device with memory windows: a type-1 {@code struct ibv_mw} of the RMR's PZ ({@code ibv_alloc_mw}
 * through the context's {@code alloc_mw}). A {@code dat_rmr_bind} calls the context's {@code bind_mw} (what the
 * static inline {@code ibv_bind_mw} calls) on the EP's queue pair: the provider posts a bind work request on the
 * send queue, in order with the EP's other requests, and gives the window a new key at once, which is the RMR
 * context; the bind completes as {@code IBV_WC_BIND_MW}. Type 1, not type 2: a DAT RMR context is usable by
 * every EP of the RMR's PZ (DAT 1.2 has no RMR scope), as a type-1 window is by every QP of its PD, while a type-2
 * window answers only through the QP that bound it (docs/verbs.md).
 *
 * <p>Thread safety: {@link #bind}, {@link #invalidate} and {@link #close} exclude each other (this object's
 * monitor), so a bind never names a window being deallocated.
 */
final class VerbsWindow implements DeviceMemory.Window {
    /** {@code -Djdat.verbs.memoryWindows=false} uses the fallback even on a device with windows. */
    static final String PROPERTY = "jdat.verbs.memoryWindows";

    private final VerbsTransport t;
    private final VerbsDomain domain;
    /** The {@code struct ibv_mw}, or NULL once deallocated (or when a replacement could not be had). */
    private MemorySegment mw;
    private boolean closed;

    private VerbsWindow(VerbsTransport t, VerbsDomain domain, MemorySegment mw) {
        this.t = t;
        this.domain = domain;
        this.mw = mw;
    }

    /**
     * Whether RMRs on a device are memory windows: the device reports type-1 windows
     * ({@code IBV_DEVICE_MEM_WINDOW} in {@code device_cap_flags}) and allows some ({@code max_mw}), its context
     * has the {@code alloc_mw}, {@code bind_mw} and {@code dealloc_mw} operations, and {@link #PROPERTY} does not
     * say {@code false}. Decided by the device's capabilities, never by its name.
     *
     * @param deviceCapFlags {@code ibv_device_attr.device_cap_flags}
     * @param maxMw          {@code ibv_device_attr.max_mw}
     * @param operations     the three operations are in the context's table
     * @param property       the value of {@link #PROPERTY} ("true" when unset)
     * @return true for windows, false for the fallback (a registration per binding)
     */
    static boolean usable(int deviceCapFlags, int maxMw, boolean operations, String property) {
        return (deviceCapFlags & VerbsLayouts.IBV_DEVICE_MEM_WINDOW) != 0 && maxMw > 0 && operations
                && !"false".equalsIgnoreCase(property);
    }

    /** {@code dat_rmr_create}: {@code ibv_alloc_mw(pd, IBV_MW_TYPE_1)}. */
    static VerbsWindow open(VerbsTransport t, VerbsDomain domain) {
        return new VerbsWindow(t, domain, allocate(t, domain));
    }

    private static MemorySegment allocate(VerbsTransport t, VerbsDomain domain) {
        MemorySegment m = call(() -> (MemorySegment) Verbs.ALLOC_MW.invokeExact(t.allocMwFn, domain.pd,
                VerbsLayouts.IBV_MW_TYPE_1));
        if (m.equals(MemorySegment.NULL)) {
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY_REGION,
                    "ibv_alloc_mw failed on " + t.deviceName + " (errno " + t.v.errno() + ")");
        }
        return m.reinterpret(VerbsLayouts.MW.byteSize());
    }

    /**
     * Posts the bind described by {@code bind} (a filled {@code struct ibv_mw_bind}) on queue pair {@code qp} and
     * records the window's new key in {@code wr} (the key it has when the post fails: the bind then breaks the
     * connection and is flushed). Allocates nothing.
     *
     * @return {@code bind_mw}'s result: 0, or an errno
     */
    synchronized int bind(long qp, long bind, WorkRequest wr) {
        if (closed || mw.equals(MemorySegment.NULL)) {
            wr.windowBound(0);
            return -1;
        }
        int rc;
        try {
            rc = (int) Verbs.BIND_MW.invokeExact(t.bindMwFn, qp, mw.address(), bind);
        } catch (Throwable e) {
            rc = -1;
        }
        wr.windowBound(mw.get(ValueLayout.JAVA_INT, VerbsLayouts.MW_RKEY));
        return rc;
    }

    /** {@return the window's current key ({@code ibv_mw.rkey}), 0 when it has none} */
    synchronized int key() {
        return closed || mw.equals(MemorySegment.NULL) ? 0 : mw.get(ValueLayout.JAVA_INT, VerbsLayouts.MW_RKEY);
    }

    /**
     * A bind failed or was flushed: the device may still hold the previous binding (and rdma-core's providers
     * have already advanced {@code ibv_mw.rkey} past the device's key), so the window is deallocated and a fresh
     * one allocated in the same PD. If none can be had, later binds fail and break their connection.
     */
    @Override
    public synchronized void invalidate() {
        if (closed) {
            return;
        }
        deallocate();
        try {
            mw = allocate(t, domain);
        } catch (DatException e) {
            mw = MemorySegment.NULL;
        }
        domain.retryDeferred();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            deallocate();
        }
        domain.windowClosed(this);
    }

    private void deallocate() {
        if (!mw.equals(MemorySegment.NULL)) {
            MemorySegment m = mw;
            call(() -> (int) Verbs.DEALLOC_MW.invokeExact(t.deallocMwFn, m));
            mw = MemorySegment.NULL;
        }
    }
}
