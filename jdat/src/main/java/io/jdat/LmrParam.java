package io.jdat;

import java.lang.foreign.MemorySegment;

/**
 * {@code DAT_LMR_PARAM} ({@code dat_lmr_query}), with the uDAPL 1.2 mask bits.
 *
 * @param iaHandle           ia_handle
 * @param memType            mem_type ({@link MemType})
 * @param regionDescription  region_desc as given to {@code dat_lmr_create}
 * @param length             length as given
 * @param pzHandle           pz_handle
 * @param memPriv            mem_priv ({@link MemPriv})
 * @param lmrContext         lmr_context
 * @param rmrContext         rmr_context (0 when no remote privilege was requested)
 * @param registeredSize     registered_size
 * @param registeredAddress  registered_address
 * @param registeredSegment  the registered memory itself (jdat: the segment that backs the range)
 */
public record LmrParam(InterfaceAdapter iaHandle, int memType, RegionDescription regionDescription, long length,
        ProtectionZone pzHandle, int memPriv, int lmrContext, int rmrContext, long registeredSize,
        long registeredAddress, MemorySegment registeredSegment) {
    /** {@code DAT_LMR_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x001L;
    /** {@code DAT_LMR_FIELD_MEM_TYPE}. */
    public static final long FIELD_MEM_TYPE = 0x002L;
    /** {@code DAT_LMR_FIELD_REGION_DESC}. */
    public static final long FIELD_REGION_DESC = 0x004L;
    /** {@code DAT_LMR_FIELD_LENGTH}. */
    public static final long FIELD_LENGTH = 0x008L;
    /** {@code DAT_LMR_FIELD_PZ_HANDLE}. */
    public static final long FIELD_PZ_HANDLE = 0x010L;
    /** {@code DAT_LMR_FIELD_MEM_PRIV}. */
    public static final long FIELD_MEM_PRIV = 0x020L;
    /** {@code DAT_LMR_FIELD_LMR_CONTEXT}. */
    public static final long FIELD_LMR_CONTEXT = 0x040L;
    /** {@code DAT_LMR_FIELD_RMR_CONTEXT}. */
    public static final long FIELD_RMR_CONTEXT = 0x080L;
    /** {@code DAT_LMR_FIELD_REGISTERED_SIZE}. */
    public static final long FIELD_REGISTERED_SIZE = 0x100L;
    /** {@code DAT_LMR_FIELD_REGISTERED_ADDRESS}. */
    public static final long FIELD_REGISTERED_ADDRESS = 0x200L;
    /** {@code DAT_LMR_FIELD_ALL} (1.2). */
    public static final long FIELD_ALL = 0x3FFL;
}
