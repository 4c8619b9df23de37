package io.jdat.core;

import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.HandleType;
import io.jdat.InterfaceAdapter;
import io.jdat.ProtectionZone;
import io.jdat.PzParam;
import io.jdat.Rmr;
import io.jdat.spi.DeviceMemory;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code DAT_PZ_HANDLE}: counts the EPs, LMRs and RMRs that use it, so a used PZ cannot be freed. */
public final class CorePz extends CoreObject implements ProtectionZone {
    private static final AtomicInteger IDS = new AtomicInteger();
    private final AtomicInteger users = new AtomicInteger();
    /** Nonzero and unique in the process: how a transport names this PZ ({@link io.jdat.spi.ExposedMemory}). */
    final int id = IDS.incrementAndGet();
    /** The device's protection domain on a transport with {@link DeviceMemory}, else {@code null}. */
    final DeviceMemory.Domain domain;

    CorePz(CoreIa ia) {
        super(ia, HandleType.PZ, DatReturnSubtype.INVALID_HANDLE_PZ);
        DeviceMemory dm = ia.transport.deviceMemory();
        this.domain = dm == null ? null : dm.openDomain();
    }

    void addUser() {
        users.incrementAndGet();
    }

    void removeUser() {
        users.decrementAndGet();
    }

    /** {@code dat_rmr_create}, called by {@link Rmr#create}. */
    public Rmr rmrCreate() {
        checkAlive();
        int index = ia.memory.reserve();
        if (index < 0) {
            throw Fail.of(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY_REGION,
                    "memory table full");
        }
        CoreRmr rmr = new CoreRmr(ia, this, index);
        addUser();
        ia.register(rmr);
        return rmr;
    }

    @Override
    public PzParam query(long pzParamMask) {
        checkAliveAndMask(pzParamMask, PzParam.FIELD_ALL);
        return new PzParam(ia);
    }

    @Override
    public void free() {
        synchronized (this) {
            markFreedUnlessUsed(users.get(), DatReturnSubtype.INVALID_STATE_PZ_IN_USE, " EP/LMR/RMR still use the PZ");
        }
        closeDomain();
        ia.unregister(this);
    }

    @Override
    void destroy() {
        if (markFreedOnce()) {
            closeDomain();
        }
    }

    private void closeDomain() {
        if (domain != null) {
            domain.close();
        }
    }

    /** Used by the IA for diagnostics. */
    InterfaceAdapter owner() {
        return ia;
    }
}
