package io.jdat;

/**
 * {@code DAT_PZ_PARAM} ({@code dat_pz_query}).
 *
 * @param iaHandle ia_handle
 */
public record PzParam(InterfaceAdapter iaHandle) {
    /** {@code DAT_PZ_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x01L;
    /** {@code DAT_PZ_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x01L;
}
