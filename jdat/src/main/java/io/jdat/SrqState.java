package io.jdat;

/** {@code DAT_SRQ_STATE}: the states of a Shared Receive Queue with their uDAPL 1.2 values (API.md §4.8, §8). */
public enum SrqState {
    /** {@code DAT_SRQ_STATE_OPERATIONAL}: EPs take buffers, the consumer posts them. */
    OPERATIONAL(0),
    /** {@code DAT_SRQ_STATE_ERROR}: the SRQ failed (never entered on jdat's transports: nothing there fails an SRQ). */
    ERROR(1);

    private static final SrqState[] VALUES = values();

    private final int code;

    SrqState(int code) {
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
    public static SrqState of(int code) {
        return EnumCodes.find(VALUES, SrqState::code, code);
    }

    /** {@return the C identifier, e.g. {@code "DAT_SRQ_STATE_OPERATIONAL"}} */
    public String datName() {
        return "DAT_SRQ_STATE_" + name();
    }
}
