package io.jdat;

/** {@code DAT_PSP_FLAGS} (API.md §3.2). */
public final class PspFlags {
    /** {@code DAT_PSP_CONSUMER_FLAG}: the consumer supplies the EP to {@code dat_cr_accept}. */
    public static final int CONSUMER = 0x00;
    /** {@code DAT_PSP_PROVIDER_FLAG}: the provider creates an EP for each connection request. */
    public static final int PROVIDER = 0x01;

    private PspFlags() {
    }
}
