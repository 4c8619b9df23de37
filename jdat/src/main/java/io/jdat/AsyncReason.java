package io.jdat;

/** The {@code reason} codes of asynchronous error events (API.md §3.6). */
public final class AsyncReason {
    /** {@code DAT_IA_CATASTROPHIC_ERROR} (IA, unaffiliated). */
    public static final int IA_CATASTROPHIC_ERROR = 0;
    /** {@code DAT_IA_OTHER_ERROR}. */
    public static final int IA_OTHER_ERROR = 1;
    /** {@code DAT_EP_TRANSFER_TO_ERROR}. */
    public static final int EP_TRANSFER_TO_ERROR = 0;
    /** {@code DAT_EP_OTHER_ERROR}. */
    public static final int EP_OTHER_ERROR = 1;
    /** {@code DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT}. */
    public static final int SRQ_SOFT_HIGH_WATERMARK_EVENT = 2;
    /** {@code DAT_EVD_OVERFLOW_ERROR}. */
    public static final int EVD_OVERFLOW_ERROR = 0;
    /** {@code DAT_EVD_OTHER_ERROR}. */
    public static final int EVD_OTHER_ERROR = 1;
    /** {@code DAT_SRQ_TRANSFER_TO_ERROR}. */
    public static final int SRQ_TRANSFER_TO_ERROR = 0;
    /** {@code DAT_SRQ_OTHER_ERROR}. */
    public static final int SRQ_OTHER_ERROR = 1;
    /** {@code DAT_SRQ_LOW_WATERMARK_EVENT}. */
    public static final int SRQ_LOW_WATERMARK_EVENT = 2;

    private AsyncReason() {
    }
}
