package io.jdat;

/**
 * {@code DAT_PSP_PARAM} ({@code dat_psp_query}).
 *
 * @param iaHandle  ia_handle
 * @param connQual  conn_qual
 * @param evdHandle evd_handle
 * @param pspFlags  psp_flags ({@link PspFlags})
 */
public record PspParam(InterfaceAdapter iaHandle, long connQual, EventDispatcher evdHandle, int pspFlags) {
    /** {@code DAT_PSP_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x01L;
    /** {@code DAT_PSP_FIELD_CONN_QUAL}. */
    public static final long FIELD_CONN_QUAL = 0x02L;
    /** {@code DAT_PSP_FIELD_EVD_HANDLE}. */
    public static final long FIELD_EVD_HANDLE = 0x04L;
    /** {@code DAT_PSP_FIELD_PSP_FLAGS}. */
    public static final long FIELD_PSP_FLAGS = 0x08L;
    /** {@code DAT_PSP_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x0FL;
}
