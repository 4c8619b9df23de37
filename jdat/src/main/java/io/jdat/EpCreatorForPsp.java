package io.jdat;

/** {@code DAT_EP_CREATOR_FOR_PSP}: whether the provider can create EPs for PSP requests. */
public enum EpCreatorForPsp {
    /** {@code DAT_PSP_CREATES_EP_NEVER}. */
    NEVER(0),
    /** {@code DAT_PSP_CREATES_EP_IFASKED}. */
    IFASKED(1),
    /** {@code DAT_PSP_CREATES_EP_ALWAYS}. */
    ALWAYS(2);

    private static final EpCreatorForPsp[] VALUES = values();

    private final int code;

    EpCreatorForPsp(int code) {
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
    public static EpCreatorForPsp of(int code) {
        return EnumCodes.find(VALUES, EpCreatorForPsp::code, code);
    }

}
