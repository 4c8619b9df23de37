package io.jdat;

/**
 * {@code DAT_RMR_PARAM} ({@code dat_rmr_query}), with the mask bits.
 *
 * @param iaHandle    ia_handle
 * @param pzHandle    pz_handle
 * @param lmrTriplet  lmr_triplet of the current binding ({@code null} when unbound)
 * @param memPriv     mem_priv of the current binding
 * @param rmrContext  rmr_context of the current binding (undefined when unbound)
 */
public record RmrParam(InterfaceAdapter iaHandle, ProtectionZone pzHandle, LmrTriplet lmrTriplet, int memPriv,
        int rmrContext) {
    /** {@code DAT_RMR_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x01L;
    /** {@code DAT_RMR_FIELD_PZ_HANDLE}. */
    public static final long FIELD_PZ_HANDLE = 0x02L;
    /** {@code DAT_RMR_FIELD_LMR_TRIPLET}. */
    public static final long FIELD_LMR_TRIPLET = 0x04L;
    /** {@code DAT_RMR_FIELD_MEM_PRIV}. */
    public static final long FIELD_MEM_PRIV = 0x08L;
    /** {@code DAT_RMR_FIELD_RMR_CONTEXT}. */
    public static final long FIELD_RMR_CONTEXT = 0x10L;
    /** {@code DAT_RMR_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x1FL;
}
