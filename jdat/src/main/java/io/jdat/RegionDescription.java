package io.jdat;

import java.lang.foreign.MemorySegment;

/**
 * {@code DAT_REGION_DESCRIPTION}: what {@code dat_lmr_create} registers, one variant per
 * {@link MemType}.
 *
 * <p>Registered memory must be native ({@link MemorySegment#isNative()}): a NIC, and jdat's
 * transports, address it by its virtual address. Registering does not take ownership: the consumer
 * keeps the segment's arena alive for as long as the LMR (and any RMR bound into it) is in use;
 * closing the arena earlier makes later transfers into that memory fail with an error completion.
 */
public sealed interface RegionDescription {
    /**
     * {@code for_va}: a range of native memory ({@link MemType#VIRTUAL}).
     *
     * @param segment the memory
     */
    record ForVa(MemorySegment segment) implements RegionDescription {
    }

    /**
     * {@code for_lmr_handle}: the memory of an existing LMR ({@link MemType#LMR}).
     *
     * @param lmr the LMR
     */
    record ForLmr(Lmr lmr) implements RegionDescription {
    }

    /**
     * {@code for_shared_memory}: shared memory named by a {@value Dat#LMR_COOKIE_SIZE}-byte cookie
     * ({@link MemType#SHARED_VIRTUAL}); registrations with equal cookies must name the same memory.
     *
     * @param segment the memory
     * @param sharedMemoryId the shared memory identifier
     */
    record ForSharedMemory(MemorySegment segment, byte[] sharedMemoryId) implements RegionDescription {
    }

    /**
     * A {@link MemType#VIRTUAL} region description.
     *
     * @param segment the memory
     * @return A {@link MemType#VIRTUAL} region description
     */
    static RegionDescription forVa(MemorySegment segment) {
        return new ForVa(segment);
    }

    /**
     * A {@link MemType#LMR} region description.
     *
     * @param lmr the LMR
     * @return A {@link MemType#LMR} region description
     */
    static RegionDescription forLmr(Lmr lmr) {
        return new ForLmr(lmr);
    }

    /**
     * A {@link MemType#SHARED_VIRTUAL} region description.
     *
     * @param segment the memory
     * @param sharedMemoryId the shared memory identifier
     * @return A {@link MemType#SHARED_VIRTUAL} region description
     */
    static RegionDescription forSharedMemory(MemorySegment segment, byte[] sharedMemoryId) {
        return new ForSharedMemory(segment, sharedMemoryId);
    }
}
