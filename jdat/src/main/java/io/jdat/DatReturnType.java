package io.jdat;

/**
 * The TYPE part of a {@code DAT_RETURN} (bits 29..16), with the uDAPL <b>1.2</b> numeric values
 * (API.md §2.2; not the DAT 2.0 ones: {@link #NOT_IMPLEMENTED} is {@code 0x0FFF0000}).
 *
 * <p>{@link #code()} is the value of {@code DAT_GET_TYPE(rc)}; the C identifier is {@code "DAT_" + name()}.
 */
public enum DatReturnType {
    /** {@code DAT_SUCCESS}: The operation was successful. */
    SUCCESS(0x00000000),
    /** {@code DAT_ABORT}: Operation aborted because the IA was closed or the EVD destroyed. */
    ABORT(0x00010000),
    /** {@code DAT_CONN_QUAL_IN_USE}: The connection qualifier is already in use. */
    CONN_QUAL_IN_USE(0x00020000),
    /** {@code DAT_INSUFFICIENT_RESOURCES}: The operation failed due to resource limitations. */
    INSUFFICIENT_RESOURCES(0x00030000),
    /** {@code DAT_INTERNAL_ERROR}: Provider internal error. */
    INTERNAL_ERROR(0x00040000),
    /** {@code DAT_INVALID_HANDLE}: Invalid DAT handle. */
    INVALID_HANDLE(0x00050000),
    /** {@code DAT_INVALID_PARAMETER}: Invalid parameter. */
    INVALID_PARAMETER(0x00060000),
    /** {@code DAT_INVALID_STATE}: An object is in a state that does not allow the operation. */
    INVALID_STATE(0x00070000),
    /** {@code DAT_LENGTH_ERROR}: A buffer is too small for the data. */
    LENGTH_ERROR(0x00080000),
    /** {@code DAT_MODEL_NOT_SUPPORTED}: The requested model is not supported by the provider. */
    MODEL_NOT_SUPPORTED(0x00090000),
    /** {@code DAT_PROVIDER_NOT_FOUND}: No provider is registered under that name. */
    PROVIDER_NOT_FOUND(0x000A0000),
    /** {@code DAT_PRIVILEGES_VIOLATION}: A memory region lacks the access right the operation needs. */
    PRIVILEGES_VIOLATION(0x000B0000),
    /** {@code DAT_PROTECTION_VIOLATION}: Protection Zone mismatch. */
    PROTECTION_VIOLATION(0x000C0000),
    /** {@code DAT_QUEUE_EMPTY}: The queue is empty. */
    QUEUE_EMPTY(0x000D0000),
    /** {@code DAT_QUEUE_FULL}: The queue is full. */
    QUEUE_FULL(0x000E0000),
    /** {@code DAT_TIMEOUT_EXPIRED}: The timeout expired. */
    TIMEOUT_EXPIRED(0x000F0000),
    /** {@code DAT_PROVIDER_ALREADY_REGISTERED}: A provider is already registered under that name. */
    PROVIDER_ALREADY_REGISTERED(0x00100000),
    /** {@code DAT_PROVIDER_IN_USE}: The provider is in use. */
    PROVIDER_IN_USE(0x00110000),
    /** {@code DAT_INVALID_ADDRESS}: Invalid address. */
    INVALID_ADDRESS(0x00120000),
    /** {@code DAT_INTERRUPTED_CALL}: The wait was interrupted. */
    INTERRUPTED_CALL(0x00130000),
    /** {@code DAT_CONN_QUAL_UNAVAILABLE}: No connection qualifier is available. */
    CONN_QUAL_UNAVAILABLE(0x00140000),
    /** {@code DAT_NOT_IMPLEMENTED}: Not implemented by the provider. */
    NOT_IMPLEMENTED(0x0FFF0000);

    private static final DatReturnType[] VALUES = values();

    private final int code;

    DatReturnType(int code) {
        this.code = code;
    }

    /** {@return the numeric TYPE value ({@code DAT_GET_TYPE}), already shifted into bits 29..16} */
    public int code() {
        return code;
    }

    /** {@return the C identifier, e.g. {@code "DAT_INVALID_STATE"}} */
    public String datName() {
        return "DAT_" + name();
    }

    /**
     * The type whose code equals {@code DAT_GET_TYPE(rc)}.
     *
     * @param rc a whole {@code DAT_RETURN} word or a bare type
     * @return the type, or {@code null} when the value names no 1.2 type
     */
    public static DatReturnType ofReturn(int rc) {
        int t = rc & DatReturn.TYPE_MASK;
        for (DatReturnType v : VALUES) {
            if (v.code == t) {
                return v;
            }
        }
        return null;
    }
}
