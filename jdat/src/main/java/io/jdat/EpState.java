package io.jdat;

/** {@code DAT_EP_STATE}: the endpoint states with their uDAPL 1.2 values (API.md §3.3, §7). */
public enum EpState {
    /** {@code DAT_EP_STATE_UNCONNECTED}: quiescent, created or reset. */
    UNCONNECTED(0),
    /** {@code DAT_EP_STATE_UNCONFIGURED_UNCONNECTED}: unconnected, lacking a PZ or a connect EVD. */
    UNCONFIGURED_UNCONNECTED(1),
    /** {@code DAT_EP_STATE_RESERVED}: bound to a Reserved Service Point. */
    RESERVED(2),
    /** {@code DAT_EP_STATE_UNCONFIGURED_RESERVED}. */
    UNCONFIGURED_RESERVED(3),
    /** {@code DAT_EP_STATE_PASSIVE_CONNECTION_PENDING}: an RSP EP whose request awaits accept or reject. */
    PASSIVE_CONNECTION_PENDING(4),
    /** {@code DAT_EP_STATE_UNCONFIGURED_PASSIVE}. */
    UNCONFIGURED_PASSIVE(5),
    /** {@code DAT_EP_STATE_ACTIVE_CONNECTION_PENDING}: connect requested, waiting for the reply. */
    ACTIVE_CONNECTION_PENDING(6),
    /** {@code DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING}: a provider-created EP handed over in a PSP request. */
    TENTATIVE_CONNECTION_PENDING(7),
    /** {@code DAT_EP_STATE_UNCONFIGURED_TENTATIVE}. */
    UNCONFIGURED_TENTATIVE(8),
    /** {@code DAT_EP_STATE_CONNECTED}. */
    CONNECTED(9),
    /** {@code DAT_EP_STATE_DISCONNECT_PENDING}: graceful disconnect draining outstanding requests. */
    DISCONNECT_PENDING(10),
    /** {@code DAT_EP_STATE_DISCONNECTED} (alias {@code DAT_EP_STATE_ERROR}). */
    DISCONNECTED(11),
    /** {@code DAT_EP_STATE_COMPLETION_PENDING}: the passive side accepted, waiting for the transport. */
    COMPLETION_PENDING(12);

    private static final EpState[] VALUES = values();

    private final int code;

    EpState(int code) {
        this.code = code;
    }

    /** {@return the numeric value of the C enumerator} */
    public int code() {
        return code;
    }

    /**
     * The constant with this numeric value, or {@code null}.
     *
     * @param code the numeric value
     * @return the constant with this numeric value, or {@code null}
     */
    public static EpState of(int code) {
        return EnumCodes.find(VALUES, EpState::code, code);
    }


    /** {@return the C identifier, e.g. {@code "DAT_EP_STATE_CONNECTED"}} */
    public String datName() {
        return "DAT_EP_STATE_" + name();
    }
}
