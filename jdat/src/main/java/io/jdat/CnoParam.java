package io.jdat;

/**
 * {@code DAT_CNO_PARAM} of uDAPL 1.2 ({@code dat_cno_query}), with the mask bits.
 *
 * @param iaHandle ia_handle
 * @param agent    agent, or {@code null} ({@code DAT_OS_WAIT_PROXY_AGENT_NULL})
 */
public record CnoParam(InterfaceAdapter iaHandle, ProxyAgent agent) {
    /** {@code DAT_CNO_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x1L;
    /** {@code DAT_CNO_FIELD_AGENT}. */
    public static final long FIELD_AGENT = 0x2L;
    /** {@code DAT_CNO_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x3L;
}
