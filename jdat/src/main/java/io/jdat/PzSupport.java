package io.jdat;

/** {@code DAT_PZ_SUPPORT} of the 1.2 header. */
public enum PzSupport {
    /** {@code DAT_PZ_UNIQUE}. */
    UNIQUE(0),
    /** {@code DAT_PZ_SAME}. */
    SAME(1),
    /** {@code DAT_PZ_SHAREABLE}. */
    SHAREABLE(2);

    private static final PzSupport[] VALUES = values();

    private final int code;

    PzSupport(int code) {
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
    public static PzSupport of(int code) {
        return EnumCodes.find(VALUES, PzSupport::code, code);
    }

}
