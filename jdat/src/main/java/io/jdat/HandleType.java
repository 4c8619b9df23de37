package io.jdat;

/** {@code DAT_HANDLE_TYPE}: the kind of a DAT object ({@code dat_get_handle_type}). */
public enum HandleType {
    /** {@code DAT_HANDLE_TYPE_CR}. */
    CR(0),
    /** {@code DAT_HANDLE_TYPE_EP}. */
    EP(1),
    /** {@code DAT_HANDLE_TYPE_EVD}. */
    EVD(2),
    /** {@code DAT_HANDLE_TYPE_IA}. */
    IA(3),
    /** {@code DAT_HANDLE_TYPE_LMR}. */
    LMR(4),
    /** {@code DAT_HANDLE_TYPE_PSP}. */
    PSP(5),
    /** {@code DAT_HANDLE_TYPE_PZ}. */
    PZ(6),
    /** {@code DAT_HANDLE_TYPE_RMR}. */
    RMR(7),
    /** {@code DAT_HANDLE_TYPE_RSP}. */
    RSP(8),
    /** {@code DAT_HANDLE_TYPE_CNO}. */
    CNO(9),
    /** {@code DAT_HANDLE_TYPE_SRQ}. */
    SRQ(10);

    private static final HandleType[] VALUES = values();

    private final int code;

    HandleType(int code) {
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
    public static HandleType of(int code) {
        return EnumCodes.find(VALUES, HandleType::code, code);
    }

}
