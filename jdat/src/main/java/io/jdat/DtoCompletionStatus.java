package io.jdat;

/** {@code DAT_DTO_COMPLETION_STATUS} of DTO and RMR bind completions (API.md §3.4). */
public enum DtoCompletionStatus {
    /** {@code DAT_DTO_SUCCESS} (also {@code DAT_RMR_BIND_SUCCESS}). */
    SUCCESS(0),
    /** {@code DAT_DTO_ERR_FLUSHED} (alias {@code DAT_DTO_FAILURE}, {@code DAT_RMR_BIND_FAILURE}). */
    ERR_FLUSHED(1),
    /** {@code DAT_DTO_ERR_LOCAL_LENGTH} (alias {@code DAT_DTO_LENGTH_ERROR}). */
    ERR_LOCAL_LENGTH(2),
    /** {@code DAT_DTO_ERR_LOCAL_EP}. */
    ERR_LOCAL_EP(3),
    /** {@code DAT_DTO_ERR_LOCAL_PROTECTION}. */
    ERR_LOCAL_PROTECTION(4),
    /** {@code DAT_DTO_ERR_BAD_RESPONSE}. */
    ERR_BAD_RESPONSE(5),
    /** {@code DAT_DTO_ERR_REMOTE_ACCESS}. */
    ERR_REMOTE_ACCESS(6),
    /** {@code DAT_DTO_ERR_REMOTE_RESPONDER}. */
    ERR_REMOTE_RESPONDER(7),
    /** {@code DAT_DTO_ERR_TRANSPORT}. */
    ERR_TRANSPORT(8),
    /** {@code DAT_DTO_ERR_RECEIVER_NOT_READY}. */
    ERR_RECEIVER_NOT_READY(9),
    /** {@code DAT_DTO_ERR_PARTIAL_PACKET}. */
    ERR_PARTIAL_PACKET(10),
    /** {@code DAT_RMR_OPERATION_FAILED}. */
    RMR_OPERATION_FAILED(11);

    private static final DtoCompletionStatus[] VALUES = values();

    private final int code;

    DtoCompletionStatus(int code) {
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
    public static DtoCompletionStatus of(int code) {
        return EnumCodes.find(VALUES, DtoCompletionStatus::code, code);
    }


    /** {@return the C identifier, e.g. {@code "DAT_DTO_ERR_FLUSHED"} or {@code "DAT_RMR_OPERATION_FAILED"}} */
    public String datName() {
        return this == RMR_OPERATION_FAILED ? "DAT_RMR_OPERATION_FAILED" : "DAT_DTO_" + name();
    }
}
