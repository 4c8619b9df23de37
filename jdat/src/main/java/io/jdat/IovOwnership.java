package io.jdat;

/** {@code DAT_IOV_OWNERSHIP}: who owns a posted iov after the post returns. */
public enum IovOwnership {
    /** {@code DAT_IOV_CONSUMER}: the consumer owns the iov array once the post returns. */
    CONSUMER(0),
    /** {@code DAT_IOV_PROVIDER_NOMOD}. */
    PROVIDER_NOMOD(1),
    /** {@code DAT_IOV_PROVIDER_MOD}. */
    PROVIDER_MOD(2);

    private static final IovOwnership[] VALUES = values();

    private final int code;

    IovOwnership(int code) {
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
    public static IovOwnership of(int code) {
        return EnumCodes.find(VALUES, IovOwnership::code, code);
    }

}
