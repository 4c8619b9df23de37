package io.jdat.verbs;

import io.jdat.DtoCompletionStatus;

/**
 * {@code enum ibv_wc_status} (verbs.h) to the DAT DTO completion status, as DAPL's openib providers map it
 * and as IWARP.md's table asks: remote protection is {@code DAT_DTO_ERR_REMOTE_ACCESS}; a remote operation
 * or invalid request error is {@code DAT_DTO_ERR_REMOTE_RESPONDER}; retries exhausted and fatal transport
 * errors are {@code DAT_DTO_ERR_TRANSPORT}; whatever the device flushed behind a failure is
 * {@code DAT_DTO_ERR_FLUSHED}.
 */
final class VerbsStatus {
    private VerbsStatus() {
    }

    /** {@code IBV_WC_SUCCESS}. */
    static final int SUCCESS = 0;
    /** {@code IBV_WC_LOC_LEN_ERR}. */
    static final int LOC_LEN_ERR = 1;
    /** {@code IBV_WC_LOC_QP_OP_ERR}. */
    static final int LOC_QP_OP_ERR = 2;
    /** {@code IBV_WC_REM_INV_REQ_ERR}. */
    static final int REM_INV_REQ_ERR = 9;
    /** {@code IBV_WC_WR_FLUSH_ERR}. */
    static final int WR_FLUSH_ERR = 5;

    private static final DtoCompletionStatus[] MAP = {
        DtoCompletionStatus.SUCCESS, // IBV_WC_SUCCESS
        DtoCompletionStatus.ERR_LOCAL_LENGTH, // IBV_WC_LOC_LEN_ERR
        DtoCompletionStatus.ERR_LOCAL_EP, // IBV_WC_LOC_QP_OP_ERR
        DtoCompletionStatus.ERR_LOCAL_EP, // IBV_WC_LOC_EEC_OP_ERR
        DtoCompletionStatus.ERR_LOCAL_PROTECTION, // IBV_WC_LOC_PROT_ERR
        DtoCompletionStatus.ERR_FLUSHED, // IBV_WC_WR_FLUSH_ERR
        DtoCompletionStatus.RMR_OPERATION_FAILED, // IBV_WC_MW_BIND_ERR
        DtoCompletionStatus.ERR_BAD_RESPONSE, // IBV_WC_BAD_RESP_ERR
        DtoCompletionStatus.ERR_LOCAL_PROTECTION, // IBV_WC_LOC_ACCESS_ERR
        DtoCompletionStatus.ERR_REMOTE_RESPONDER, // IBV_WC_REM_INV_REQ_ERR
        DtoCompletionStatus.ERR_REMOTE_ACCESS, // IBV_WC_REM_ACCESS_ERR
        DtoCompletionStatus.ERR_REMOTE_RESPONDER, // IBV_WC_REM_OP_ERR
        DtoCompletionStatus.ERR_TRANSPORT, // IBV_WC_RETRY_EXC_ERR
        DtoCompletionStatus.ERR_RECEIVER_NOT_READY, // IBV_WC_RNR_RETRY_EXC_ERR
        DtoCompletionStatus.ERR_LOCAL_PROTECTION, // IBV_WC_LOC_RDD_VIOL_ERR
        DtoCompletionStatus.ERR_REMOTE_RESPONDER, // IBV_WC_REM_INV_RD_REQ_ERR
        DtoCompletionStatus.ERR_REMOTE_RESPONDER, // IBV_WC_REM_ABORT_ERR
        DtoCompletionStatus.ERR_TRANSPORT, // IBV_WC_INV_EECN_ERR
        DtoCompletionStatus.ERR_TRANSPORT, // IBV_WC_INV_EEC_STATE_ERR
        DtoCompletionStatus.ERR_TRANSPORT, // IBV_WC_FATAL_ERR
        DtoCompletionStatus.ERR_TRANSPORT, // IBV_WC_RESP_TIMEOUT_ERR
        DtoCompletionStatus.ERR_TRANSPORT, // IBV_WC_GENERAL_ERR
    };

    /** The DAT status of a work completion status; an unknown value (hostile or newer) is a transport error. */
    static DtoCompletionStatus of(int wcStatus) {
        return wcStatus >= 0 && wcStatus < MAP.length ? MAP[wcStatus] : DtoCompletionStatus.ERR_TRANSPORT;
    }
}
