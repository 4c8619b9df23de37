package io.jdat;

/**
 * {@code DAT_RSP_PARAM} ({@code dat_rsp_query}).
 *
 * @param iaHandle  ia_handle
 * @param connQual  conn_qual
 * @param evdHandle evd_handle
 * @param epHandle  ep_handle
 */
public record RspParam(InterfaceAdapter iaHandle, long connQual, EventDispatcher evdHandle, Endpoint epHandle) {
    /** {@code DAT_RSP_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x01L;
    /** {@code DAT_RSP_FIELD_CONN_QUAL}. */
    public static final long FIELD_CONN_QUAL = 0x02L;
    /** {@code DAT_RSP_FIELD_EVD_HANDLE}. */
    public static final long FIELD_EVD_HANDLE = 0x04L;
    /** {@code DAT_RSP_FIELD_EP_HANDLE}. */
    public static final long FIELD_EP_HANDLE = 0x08L;
    /** {@code DAT_RSP_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x0FL;
}
