package io.jdat;

import io.jdat.core.Core;

/**
 * A Protection Zone ({@code DAT_PZ_HANDLE}): ties EPs, LMRs and RMRs together; a DTO may only touch
 * memory registered in its EP's PZ. Thread-safe.
 */
public sealed interface ProtectionZone extends DatHandle, AutoCloseable permits io.jdat.core.CorePz {
    /**
     * {@code dat_pz_create}.
     *
     * @param ia the IA
     * @return a new PZ
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static ProtectionZone create(InterfaceAdapter ia) {
        return Core.ia(ia).pzCreate();
    }

    /**
     * {@code dat_pz_query}.
     *
     * @param pzParamMask {@code DAT_PZ_PARAM_MASK}
     * @return the parameters
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    PzParam query(long pzParamMask);

    /**
     * {@code dat_pz_free}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} ({@code PZ_IN_USE}) while an EP, LMR or RMR uses it,
     *                      {@code DAT_INVALID_HANDLE}
     */
    void free();

    /** {@link #free()}, for try-with-resources. */
    @Override
    default void close() {
        free();
    }
}
