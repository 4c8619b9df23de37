package io.jdat;

/** {@code DAT_EVENT_NUMBER}: the kinds of {@link DatEvent} with their uDAPL 1.2 values (API.md §3.5). */
public enum EventNumber {
    /** {@code DAT_DTO_COMPLETION_EVENT}. */
    DTO_COMPLETION_EVENT(0x00001),
    /** {@code DAT_RMR_BIND_COMPLETION_EVENT}. */
    RMR_BIND_COMPLETION_EVENT(0x01001),
    /** {@code DAT_CONNECTION_REQUEST_EVENT}. */
    CONNECTION_REQUEST_EVENT(0x02001),
    /** {@code DAT_CONNECTION_EVENT_ESTABLISHED}. */
    CONNECTION_EVENT_ESTABLISHED(0x04001),
    /** {@code DAT_CONNECTION_EVENT_PEER_REJECTED}. */
    CONNECTION_EVENT_PEER_REJECTED(0x04002),
    /** {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}. */
    CONNECTION_EVENT_NON_PEER_REJECTED(0x04003),
    /** {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR}. */
    CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR(0x04004),
    /** {@code DAT_CONNECTION_EVENT_DISCONNECTED}. */
    CONNECTION_EVENT_DISCONNECTED(0x04005),
    /** {@code DAT_CONNECTION_EVENT_BROKEN}. */
    CONNECTION_EVENT_BROKEN(0x04006),
    /** {@code DAT_CONNECTION_EVENT_TIMED_OUT}. */
    CONNECTION_EVENT_TIMED_OUT(0x04007),
    /** {@code DAT_CONNECTION_EVENT_UNREACHABLE}. */
    CONNECTION_EVENT_UNREACHABLE(0x04008),
    /** {@code DAT_ASYNC_ERROR_EVD_OVERFLOW}. */
    ASYNC_ERROR_EVD_OVERFLOW(0x08001),
    /** {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}. */
    ASYNC_ERROR_IA_CATASTROPHIC(0x08002),
    /** {@code DAT_ASYNC_ERROR_EP_BROKEN}. */
    ASYNC_ERROR_EP_BROKEN(0x08003),
    /** {@code DAT_ASYNC_ERROR_TIMED_OUT}. */
    ASYNC_ERROR_TIMED_OUT(0x08004),
    /** {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR}. */
    ASYNC_ERROR_PROVIDER_INTERNAL_ERROR(0x08005),
    /**
     * jdat's number for the watermark events that uDAPL 1.2 gives a reason code but no event number
     * (AMB-23): an asynchronous event on the IA's async EVD whose {@link DatEvent#asyncHandle()} is the EP
     * (reason {@link AsyncReason#SRQ_SOFT_HIGH_WATERMARK_EVENT}) or the SRQ (reason
     * {@link AsyncReason#SRQ_LOW_WATERMARK_EVENT}). The value lies in the asynchronous range (0x08xxx) and is
     * used by neither DAT 1.2 nor 2.0.
     */
    ASYNC_WATERMARK_EVENT(0x08010),
    /** {@code DAT_SOFTWARE_EVENT}. */
    SOFTWARE_EVENT(0x10001);

    private static final EventNumber[] VALUES = values();

    private final int code;

    EventNumber(int code) {
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
    public static EventNumber of(int code) {
        return EnumCodes.find(VALUES, EventNumber::code, code);
    }

    /** {@return true for the connection events (range 0x04xxx) delivered to an EP's connect EVD} */
    public boolean isConnectionEvent() {
        return (code & 0xFF000) == 0x04000;
    }

    /** {@return true for the asynchronous error events (range 0x08xxx) delivered to the IA's async EVD} */
    public boolean isAsyncError() {
        return (code & 0xFF000) == 0x08000;
    }

    /** {@return the C identifier, e.g. {@code "DAT_CONNECTION_EVENT_ESTABLISHED"} (jdat's own number: its Java name)} */
    public String datName() {
        return this == ASYNC_WATERMARK_EVENT ? name() : "DAT_" + name();
    }
}
