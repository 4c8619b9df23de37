package io.jdat;

/**
 * {@code DAT_COMPLETION_FLAGS} bit values (API.md §3.1): per-post flags and the EP's
 * {@code recv_completion_flags} / {@code request_completion_flags} attributes.
 */
public final class CompletionFlags {
    /** {@code DAT_COMPLETION_DEFAULT_FLAG}: a completion is generated and signalled. */
    public static final int DEFAULT = 0x00;
    /** {@code DAT_COMPLETION_SUPPRESS_FLAG}: no completion for a successful operation. */
    public static final int SUPPRESS = 0x01;
    /** {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}: the matching remote receive is a notification event. */
    public static final int SOLICITED_WAIT = 0x02;
    /** {@code DAT_COMPLETION_UNSIGNALLED_FLAG}: the completion is queued without notification. */
    public static final int UNSIGNALLED = 0x04;
    /** {@code DAT_COMPLETION_BARRIER_FENCE_FLAG}: start only after all earlier RDMA Reads completed. */
    public static final int BARRIER_FENCE = 0x08;
    /** {@code DAT_COMPLETION_EVD_THRESHOLD_FLAG}: waiter wake-up is governed by the wait threshold. */
    public static final int EVD_THRESHOLD = 0x10;

    private CompletionFlags() {
    }
}
