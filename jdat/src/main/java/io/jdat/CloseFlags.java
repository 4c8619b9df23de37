package io.jdat;

/** {@code DAT_CLOSE_FLAGS} for {@code dat_ia_close} and {@code dat_ep_disconnect} (API.md §3.2). */
public final class CloseFlags {
    /** {@code DAT_CLOSE_ABRUPT_FLAG}. */
    public static final int ABRUPT = 0x00;
    /** {@code DAT_CLOSE_GRACEFUL_FLAG}. */
    public static final int GRACEFUL = 0x01;
    /** {@code DAT_CLOSE_DEFAULT} (= abrupt). */
    public static final int DEFAULT = ABRUPT;

    private CloseFlags() {
    }
}
