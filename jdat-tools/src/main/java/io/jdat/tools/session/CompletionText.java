package io.jdat.tools.session;

import io.jdat.DtoCompletionStatus;

/** How the tools name a completion's status in their messages. */
public final class CompletionText {
    /** What a flushed completion means, for users. */
    public static final String BROKE = " (the connection broke: the peer failed, was stopped or became unreachable; its "
            + "output says why)";

    private CompletionText() {
    }

    /**
     * The C name of a completion status.
     *
     * @param s the status
     * @return e.g. {@code DAT_DTO_ERR_FLUSHED}
     */
    public static String statusName(DtoCompletionStatus s) {
        return s == DtoCompletionStatus.RMR_OPERATION_FAILED ? "DAT_RMR_OPERATION_FAILED" : "DAT_DTO_" + s.name();
    }
}
