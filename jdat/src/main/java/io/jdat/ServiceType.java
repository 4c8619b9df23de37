package io.jdat;

/** {@code DAT_SERVICE_TYPE}: only reliable connected service exists in 1.2. */
public enum ServiceType {
    /** {@code DAT_SERVICE_TYPE_RC}. */
    RC(0);

    private static final ServiceType[] VALUES = values();

    private final int code;

    ServiceType(int code) {
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
    public static ServiceType of(int code) {
        return EnumCodes.find(VALUES, ServiceType::code, code);
    }

}
