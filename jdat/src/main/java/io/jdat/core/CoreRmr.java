package io.jdat.core;

import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Endpoint;
import io.jdat.HandleType;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.Rmr;
import io.jdat.RmrParam;
import io.jdat.spi.DeviceMemory;
import io.jdat.spi.ExposedMemory;
import io.jdat.spi.WorkRequest;

/**
 * {@code DAT_RMR_HANDLE}: a memory window. It owns one index of the IA's {@link MemoryTable}; every bind
 * publishes a new {@link Region} under a fresh key, so the previous context stops working (RMB-06).
 */
public final class CoreRmr extends CoreObject implements Rmr {
    private final CorePz pz;
    private final int index;
    /** The current binding, or {@code null}; guarded by {@code this}. */
    private Region binding;
    /** The device registration standing for the current binding (transports with device memory). */
    private DeviceMemory.Registration deviceBinding;
    /** The device memory window ({@code ibv_alloc_mw}) when the device has them, else {@code null}. */
    private final DeviceMemory.Window window;
    /** With a window: the core's token of the last bind or unbind applied (what its work request carries). */
    private int windowToken;
    private LmrTriplet boundTriplet;
    private int boundPriv;
    private int lastContext;

    CoreRmr(CoreIa ia, CorePz pz, int index) {
        super(ia, HandleType.RMR, DatReturnSubtype.INVALID_HANDLE_RMR);
        this.pz = pz;
        this.index = index;
        try {
            this.window = pz.domain == null ? null : pz.domain.openWindow();
        } catch (RuntimeException e) {
            ia.memory.release(index);
            throw e;
        }
    }

    CorePz pz() {
        return pz;
    }

    @Override
    public RmrParam query(long mask) {
        checkAliveAndMask(mask, RmrParam.FIELD_ALL);
        synchronized (this) {
            return new RmrParam(ia, pz, boundTriplet, boundPriv, lastContext);
        }
    }

    @Override
    public int bind(LmrTriplet triplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags) {
        checkAlive();
        CoreEp e = Core.epArg(ep, ia);
        if (triplet == null) {
            throw Fail.param(2, "no LMR triplet");
        }
        if ((memPrivileges & ~MemPriv.ALL) != 0) {
            throw Fail.param(3, "undefined privilege bits");
        }
        CompletionRules.checkRequestPostFlags(completionFlags, e.requestFlags(), false, 6);
        Region target = null;
        int priv = memPrivileges & (MemPriv.REMOTE_READ | MemPriv.REMOTE_WRITE);
        if (triplet.segmentLength() != 0) {
            Region lmr = ia.memory.lookup(triplet.lmrContext());
            if (lmr == null || !lmr.local()) {
                throw Fail.of(DatReturnType.PRIVILEGES_VIOLATION, "invalid LMR context");
            }
            if (lmr.pz() != pz || e.pz() != pz) {
                throw Fail.of(DatReturnType.PROTECTION_VIOLATION, "LMR, RMR and EP must share one PZ");
            }
            if (((priv & MemPriv.REMOTE_READ) != 0 && (lmr.privileges() & MemPriv.LOCAL_READ) == 0)
                    || ((priv & MemPriv.REMOTE_WRITE) != 0 && (lmr.privileges() & MemPriv.LOCAL_WRITE) == 0)) {
                throw Fail.of(DatReturnType.PRIVILEGES_VIOLATION, "RMR privilege needs the LMR's local one (RMB-08)");
            }
            long off = lmr.offsetOf(triplet.virtualAddress(), triplet.segmentLength());
            if (off < 0) {
                throw Fail.param(2, "range outside its LMR (RMB-12)");
            }
            target = lmr;
        }
        return e.postBind(this, triplet, target, priv, userCookie, completionFlags);
    }

    /**
     * Applies a bind accepted by the EP (called with the EP's posting lock held, in queue order) and fills the
     * window part of its work request.
     *
     * @return the new context (with a device window: the core's own token of this bind, see {@link #postedContext})
     */
    int applyBind(LmrTriplet triplet, Region lmr, int priv, WorkRequest wr) {
        synchronized (this) {
            if (window != null) {
                // A device window: the bind is a work request on the EP's queue; an unbind names the region the
                // window is bound into (null: not bound, nothing for the device to do).
                Region target = lmr != null ? lmr : binding;
                wr.bindWindow(window, target == null ? null : target.lmr().registration,
                        lmr == null ? 0 : triplet.virtualAddress(), lmr == null ? 0 : triplet.segmentLength(), priv);
            } else {
                wr.bindWindow(null, null, 0, 0, 0);
            }
            unbindLocked();
            if (lmr == null) {
                boundTriplet = null;
                boundPriv = 0;
                if (window != null) {
                    windowToken = ia.memory.nextContext(index); // an unbind is a device bind too
                    return windowToken;
                }
                return lastContext;
            }
            int ctx = ia.memory.nextContext(index);
            windowToken = ctx;
            long off = lmr.offsetOf(triplet.virtualAddress(), triplet.segmentLength());
            if (pz.domain != null && window == null) {
                // A device checks remote access itself: the binding is a registration of the bound range with
                // the bound privileges, and its remote key is the context (jdat's memory-window fallback,
                // docs/verbs.md). Unbinding deregisters it, so the old context stops matching at the device.
                deviceBinding = pz.domain.register(lmr.segment().asSlice(off, triplet.segmentLength()),
                        priv | (lmr.privileges() & (MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE)));
                ctx = deviceBinding.remoteKey();
            }
            binding = new Region(ctx, lmr.segment().asSlice(off, triplet.segmentLength()), triplet.virtualAddress(),
                    triplet.segmentLength(), pz, priv, lmr.lmr(), false);
            lmr.lmr().boundRmrs.incrementAndGet();
            ia.memory.publish(index, binding);
            ExposedMemory exposed = ia.transport.exposedMemory();
            if (exposed != null && priv != 0) {
                exposed.exposed(ctx, binding.segment(), binding.address(), priv, pz.id);
            }
            boundTriplet = triplet;
            boundPriv = priv;
            lastContext = ctx;
            return ctx;
        }
    }

    /**
     * The context {@code dat_rmr_bind} returns once its work request was handed to the transport: with a device
     * window, the key the device gave the window when the bind was posted ({@code ctx} is then the core's token of
     * the bind, which {@link #bindFailed} compares); otherwise {@code ctx}.
     */
    int postedContext(WorkRequest wr, int ctx) {
        if (window == null) {
            return ctx;
        }
        synchronized (this) {
            int key = wr.windowKey();
            if (ctx == windowToken) { // not already overtaken by a later bind
                lastContext = key;
            }
            return key;
        }
    }

    /**
     * A bind applied when it was posted did not complete successfully (flushed, RMB-05): withdraws it if it
     * is still the current binding, so that a failed bind grants no access and holds no LMR. A device window whose
     * last bind or unbind failed may still hold an earlier binding at the device: it is replaced by a fresh one.
     *
     * @param context the context the bind returned (with a device window: the core's token of the bind)
     */
    void bindFailed(int context) {
        synchronized (this) {
            if (binding != null && binding.context() == context) {
                unbindLocked();
                boundTriplet = null;
                boundPriv = 0;
            }
            if (window != null && context == windowToken) {
                windowToken = 0;
                window.invalidate();
            }
        }
    }

    /** The context a bind would return without applying it (for a bind posted in DISCONNECTED). */
    int peekContext() {
        synchronized (this) {
            return lastContext;
        }
    }

    private void unbindLocked() {
        if (deviceBinding != null) {
            deviceBinding.close();
            deviceBinding = null;
        }
        if (binding != null) {
            ia.memory.publish(index, null);
            if (binding.privileges() != 0) {
                // RMB-06: once the unbind (or re-bind) is done, no byte of a peer's Write through the old context
                // lands and none is read for a peer's Read: wait for a placement or a source read the core
                // admitted (Withdrawal), then for a peer's direct store
                Withdrawal.await(ia, binding.context());
                ExposedMemory exposed = ia.transport.exposedMemory();
                if (exposed != null) {
                    exposed.withdrawn(binding.context(), pz.id);
                }
            }
            binding.lmr().boundRmrs.decrementAndGet();
            binding = null;
        }
    }

    @Override
    public void free() {
        synchronized (this) {
            markFreed();
            unbindLocked();
            if (window != null) {
                window.close();
            }
        }
        ia.memory.release(index);
        pz.removeUser();
        ia.unregister(this);
    }

    @Override
    void destroy() {
        synchronized (this) {
            if (!markFreedOnce()) {
                return;
            }
            unbindLocked();
            if (window != null) {
                window.close();
            }
        }
        ia.memory.release(index);
        pz.removeUser();
    }
}
