package io.jdat;

/**
 * {@code DAT_EVD_PARAM} ({@code dat_evd_query}), with the mask bits.
 *
 * @param iaHandle   ia_handle
 * @param evdQlen    evd_qlen: the actual queue length (at least the requested one)
 * @param evdState   evd_state: {@link #STATE_ENABLED} or {@link #STATE_DISABLED}, or'ed with
 *                   {@link #STATE_WAITABLE} or {@link #STATE_UNWAITABLE}, or'ed with the configuration
 *                   field (value {@code & 0x30}: {@link #STATE_CONFIG_NOTIFY}, {@link #STATE_CONFIG_SOLICITED},
 *                   {@link #STATE_CONFIG_THRESHOLD})
 * @param cnoHandle  cno_handle, or {@code null}
 * @param evdFlags   evd_flags ({@link EvdFlags})
 */
public record EvdParam(InterfaceAdapter iaHandle, int evdQlen, int evdState, Cno cnoHandle, int evdFlags) {
    /** {@code DAT_EVD_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x01L;
    /** {@code DAT_EVD_FIELD_EVD_QLEN}. */
    public static final long FIELD_EVD_QLEN = 0x02L;
    /** {@code DAT_EVD_FIELD_EVD_STATE}. */
    public static final long FIELD_EVD_STATE = 0x04L;
    /** {@code DAT_EVD_FIELD_CNO}. */
    public static final long FIELD_CNO = 0x08L;
    /** {@code DAT_EVD_FIELD_EVD_FLAGS}. */
    public static final long FIELD_EVD_FLAGS = 0x10L;
    /** {@code DAT_EVD_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x1FL;

    /** {@code DAT_EVD_STATE_ENABLED}. */
    public static final int STATE_ENABLED = 0x01;
    /** {@code DAT_EVD_STATE_DISABLED}. */
    public static final int STATE_DISABLED = 0x02;
    /** {@code DAT_EVD_STATE_WAITABLE}. */
    public static final int STATE_WAITABLE = 0x04;
    /** {@code DAT_EVD_STATE_UNWAITABLE}. */
    public static final int STATE_UNWAITABLE = 0x08;
    /** {@code DAT_EVD_STATE_CONFIG_NOTIFY}. */
    public static final int STATE_CONFIG_NOTIFY = 0x10;
    /** {@code DAT_EVD_STATE_CONFIG_SOLICITED}. */
    public static final int STATE_CONFIG_SOLICITED = 0x20;
    /** {@code DAT_EVD_STATE_CONFIG_THRESHOLD}. */
    public static final int STATE_CONFIG_THRESHOLD = 0x30;
    /** The two-bit configuration field of {@link #evdState()} (AMB-31). */
    public static final int STATE_CONFIG_MASK = 0x30;
}
