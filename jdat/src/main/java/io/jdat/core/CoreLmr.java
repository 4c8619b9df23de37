package io.jdat.core;

import io.jdat.Dat;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.HandleType;
import io.jdat.Lmr;
import io.jdat.LmrParam;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.spi.DeviceMemory;
import io.jdat.spi.ExposedMemory;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code DAT_LMR_HANDLE}: a registered range in the IA's {@link MemoryTable}. One context serves as
 * {@code lmr_context} and, when a remote privilege was requested, as {@code rmr_context} (as an iWARP
 * STag does).
 */
public final class CoreLmr extends CoreObject implements Lmr {
    private final int memType;
    private final RegionDescription description;
    private final long length;
    private final CorePz pz;
    private final int privileges;
    private final int index;
    private final byte[] sharedId;
    final Region region;
    /** The device registration on a transport with {@link DeviceMemory} (its rkey is the rmr_context). */
    final DeviceMemory.Registration registration;
    /** The device's local key, put in every I/O vector entry naming this LMR (0 without a device). */
    final int deviceKey;
    /** RMRs currently bound into this LMR (LMF-01). */
    final AtomicInteger boundRmrs = new AtomicInteger();

    private CoreLmr(CoreIa ia, int memType, RegionDescription description, long length, CorePz pz, int privileges,
            int index, MemorySegment memory) {
        super(ia, HandleType.LMR, DatReturnSubtype.INVALID_HANDLE_LMR);
        this.memType = memType;
        this.description = description;
        this.length = length;
        this.pz = pz;
        this.privileges = privileges;
        this.index = index;
        this.sharedId = description instanceof RegionDescription.ForSharedMemory sm ? sm.sharedMemoryId().clone() : null;
        int context = ia.memory.nextContext(index);
        this.region = new Region(context, memory, memory.address(), memory.byteSize(), pz, privileges, this, true);
        this.registration = pz.domain == null ? null : pz.domain.register(memory, privileges);
        this.deviceKey = registration == null ? 0 : registration.localKey();
        ia.memory.publish(index, region);
        ExposedMemory exposed = ia.transport.exposedMemory();
        if (exposed != null && (privileges & REMOTE) != 0) {
            exposed.exposed(context, memory, memory.address(), privileges, pz.id);
        }
    }

    private static final int REMOTE = MemPriv.REMOTE_READ | MemPriv.REMOTE_WRITE;

    /** {@code dat_lmr_create}. */
    static CoreLmr create(CoreIa ia, int memType, RegionDescription desc, long length, ProtectionZone pzHandle,
            int privileges) {
        CorePz pz = Core.pzArg(pzHandle, ia, false);
        if ((privileges & ~MemPriv.ALL) != 0) {
            throw Fail.param(6, "undefined privilege bits 0x" + Integer.toHexString(privileges));
        }
        if (memType < MemType.VIRTUAL || memType > MemType.SHARED_VIRTUAL) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "memory type " + memType);
        }
        if (desc == null) {
            throw Fail.param(3, "no region description");
        }
        MemorySegment memory;
        switch (desc) {
            case RegionDescription.ForVa v when memType == MemType.VIRTUAL -> {
                memory = registrable(v.segment(), length);
            }
            case RegionDescription.ForLmr l when memType == MemType.LMR -> {
                CoreLmr other = Core.lmrArg(l.lmr(), ia);
                memory = other.region.segment();
                length = memory.byteSize();
            }
            case RegionDescription.ForSharedMemory s when memType == MemType.SHARED_VIRTUAL -> {
                memory = registrable(s.segment(), length);
                ia.sharedMemory.claim(s.sharedMemoryId(), memory);
            }
            default -> throw Fail.param(3, "region description " + desc.getClass().getSimpleName()
                    + " does not match memory type " + memType);
        }
        int index = ia.memory.reserve();
        if (index < 0) {
            if (desc instanceof RegionDescription.ForSharedMemory s) {
                ia.sharedMemory.release(s.sharedMemoryId());
            }
            throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY_REGION,
                    "memory table full");
        }
        CoreLmr lmr;
        try {
            lmr = new CoreLmr(ia, memType, desc, length, pz, privileges, index, memory);
        } catch (RuntimeException e) {
            // The device refused the registration.
            ia.memory.release(index);
            if (desc instanceof RegionDescription.ForSharedMemory s) {
                ia.sharedMemory.release(s.sharedMemoryId());
            }
            throw e;
        }
        pz.addUser();
        ia.register(lmr);
        return lmr;
    }

    /** A thread that owns no segment: a segment it cannot access is confined to some thread. Never started. */
    private static final Thread NOT_THE_OWNER = Thread.ofPlatform().unstarted(() -> { });

    private static MemorySegment registrable(MemorySegment segment, long length) {
        if (length == 0) {
            throw Fail.of(DatReturnType.LENGTH_ERROR, "zero-length registration (AMB-20)");
        }
        if (segment == null) {
            throw Fail.param(3, "no memory segment");
        }
        if (!segment.isNative()) {
            throw Fail.param(3, "only native memory can be registered");
        }
        if (length < 0 || length > segment.byteSize()) {
            throw Fail.param(4, "length " + length + " outside the segment of " + segment.byteSize() + " bytes");
        }
        if (!segment.scope().isAlive()) {
            throw Fail.param(3, "the segment's arena is closed");
        }
        if (!segment.isAccessibleBy(NOT_THE_OWNER)) {
            // Providers move bytes on their own threads (the peer's poster, a receive or RNR thread), where a
            // confined segment throws WrongThreadException; a global view of it would outlive its arena.
            throw Fail.param(3, "memory of a confined arena cannot be registered: allocate it from "
                    + "Arena.ofShared(), Arena.ofAuto() or Arena.global()");
        }
        return segment.asSlice(0, length);
    }

    @Override
    public LmrParam query(long mask) {
        checkAliveAndMask(mask, LmrParam.FIELD_ALL);
        return new LmrParam(ia, memType, description, length, pz, privileges, region.context(), rmrContext(),
                region.length(), region.address(), region.segment());
    }

    @Override
    public void free() {
        synchronized (this) {
            markFreedUnlessUsed(boundRmrs.get(), DatReturnSubtype.INVALID_STATE_LMR_IN_USE, " RMR(s) bound into it");
        }
        release();
        ia.unregister(this);
    }

    private void release() {
        if (registration != null) {
            registration.close();
        }
        // out of the table first: from here every incoming access through the context is refused
        ia.memory.release(index);
        if ((privileges & REMOTE) != 0) {
            // dat_lmr_free's promise: when it returns, no byte of a peer's Write lands in the region and none is
            // read for a peer's Read. Wait for a placement or a source read the core admitted (Withdrawal), then
            // for a peer's direct store (ExposedMemory).
            Withdrawal.await(ia, region.context());
            ExposedMemory exposed = ia.transport.exposedMemory();
            if (exposed != null) {
                exposed.withdrawn(region.context(), pz.id);
            }
        }
        if (sharedId != null) {
            ia.sharedMemory.release(sharedId);
        }
        pz.removeUser();
    }

    @Override
    void destroy() {
        if (markFreedOnce()) {
            release();
        }
    }

    @Override
    public int lmrContext() {
        checkAlive();
        return region.context();
    }

    @Override
    public int rmrContext() {
        checkAlive();
        if ((privileges & (MemPriv.REMOTE_READ | MemPriv.REMOTE_WRITE)) == 0) {
            return 0;
        }
        return registration != null ? registration.remoteKey() : region.context();
    }

    @Override
    public long registeredSize() {
        checkAlive();
        return region.length();
    }

    @Override
    public long registeredAddress() {
        checkAlive();
        return region.address();
    }

    /** {@link Dat#LMR_COOKIE_SIZE} check shared by the shared-memory registry. */
    static boolean validCookie(byte[] cookie) {
        return cookie != null && cookie.length == Dat.LMR_COOKIE_SIZE;
    }
}
