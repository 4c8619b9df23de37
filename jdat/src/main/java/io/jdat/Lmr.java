package io.jdat;

import io.jdat.core.Core;

/**
 * A Local Memory Region ({@code DAT_LMR_HANDLE}): registered memory that DTOs may use, and, with a
 * remote privilege, that the peer may reach through {@link #rmrContext()}.
 *
 * <p><b>Memory ownership:</b> the LMR does not own its memory. The consumer must keep the segment's
 * arena open while the LMR is registered and while transfers into or out of it may run; freeing the LMR
 * neither frees nor unmaps the memory (LMF-02). The memory must be accessible from any thread (an
 * {@code Arena.ofShared()}, {@code ofAuto()} or {@code global()} arena): providers move bytes on their own
 * threads, so memory of a confined arena is refused with {@code DAT_INVALID_PARAMETER}. Thread-safe.
 */
public sealed interface Lmr extends DatHandle, AutoCloseable permits io.jdat.core.CoreLmr {
    /**
     * {@code dat_lmr_create}. The OUT values are available on the returned LMR: {@link #lmrContext()},
     * {@link #rmrContext()}, {@link #registeredSize()}, {@link #registeredAddress()}.
     *
     * @param ia                the IA
     * @param memType           a {@link MemType} matching {@code regionDescription}
     * @param regionDescription the memory
     * @param length            bytes to register, from the start of the region
     * @param pz                the Protection Zone
     * @param memPrivileges     {@link MemPriv} bits
     * @return the new LMR
     * @throws DatException {@code DAT_LENGTH_ERROR} (length 0), {@code DAT_INVALID_PARAMETER} (also for
     *                      heap memory, a closed arena or a confined arena's memory),
     *                      {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_STATE},
     *                      {@code DAT_MODEL_NOT_SUPPORTED}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static Lmr create(InterfaceAdapter ia, int memType, RegionDescription regionDescription, long length,
            ProtectionZone pz, int memPrivileges) {
        return Core.ia(ia).lmrCreate(memType, regionDescription, length, pz, memPrivileges);
    }

    /**
     * {@code dat_lmr_sync_rdma_read}: makes local writes visible to later incoming RDMA Reads. jdat's
     * providers are coherent ({@code lmr_sync_req} is false), so this only validates the segments.
     *
     * @param ia            the IA
     * @param localSegments the segments
     * @param numSegments   how many of them
     * @throws DatException {@code DAT_INVALID_PARAMETER} (segment outside its LMR), {@code DAT_INVALID_HANDLE}
     */
    static void syncRdmaRead(InterfaceAdapter ia, LmrTriplet[] localSegments, long numSegments) {
        Core.ia(ia).lmrSync(localSegments, numSegments);
    }

    /**
     * {@code dat_lmr_sync_rdma_write}: makes completed incoming RDMA Writes visible to the CPU. Validates
     * only, as {@link #syncRdmaRead}.
     *
     * @param ia            the IA
     * @param localSegments the segments
     * @param numSegments   how many of them
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    static void syncRdmaWrite(InterfaceAdapter ia, LmrTriplet[] localSegments, long numSegments) {
        Core.ia(ia).lmrSync(localSegments, numSegments);
    }

    /**
     * {@code dat_lmr_query}.
     *
     * @param lmrParamMask {@code DAT_LMR_PARAM_MASK}
     * @return the parameters
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    LmrParam query(long lmrParamMask);

    /**
     * {@code dat_lmr_free}: deregisters; the memory stays the consumer's.
     *
     * @throws DatException {@code DAT_INVALID_STATE} ({@code LMR_IN_USE}) while an RMR is bound into it,
     *                      {@code DAT_INVALID_HANDLE}
     */
    void free();

    /** {@link #free()}, for try-with-resources. */
    @Override
    default void close() {
        free();
    }

    /** {@return the OUT {@code lmr_context} of {@code dat_lmr_create}: names this LMR in local triplets} */
    int lmrContext();

    /** {@return the OUT {@code rmr_context} of {@code dat_lmr_create}: 0 unless a remote privilege was requested} */
    int rmrContext();

    /** {@return the OUT {@code registered_size} of {@code dat_lmr_create}} */
    long registeredSize();

    /** {@return the OUT {@code registered_address} of {@code dat_lmr_create}: the address of the first registered byte} */
    long registeredAddress();

    /**
     * A triplet for {@code length} bytes at {@code offset} from {@link #registeredAddress()}.
     *
     * @param offset byte offset in the region
     * @param length bytes
     * @return {@code new LmrTriplet(lmrContext(), registeredAddress() + offset, length)}
     */
    default LmrTriplet triplet(long offset, long length) {
        return new LmrTriplet(lmrContext(), registeredAddress() + offset, length);
    }

    /**
     * A remote triplet for {@code length} bytes at {@code offset}, to hand to the peer.
     *
     * @param offset byte offset in the region
     * @param length bytes
     * @return {@code new RmrTriplet(rmrContext(), registeredAddress() + offset, length)}
     */
    default RmrTriplet remoteTriplet(long offset, long length) {
        return new RmrTriplet(rmrContext(), registeredAddress() + offset, length);
    }
}
