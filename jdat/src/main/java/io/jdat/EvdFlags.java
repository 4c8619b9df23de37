package io.jdat;

/** {@code DAT_EVD_FLAGS}: the event streams an Event Dispatcher accepts (API.md §3.2). */
public final class EvdFlags {
    /** {@code DAT_EVD_SOFTWARE_FLAG}: consumer software events ({@code dat_evd_post_se}). */
    public static final int SOFTWARE = 0x001;
    /** {@code DAT_EVD_CR_FLAG}: connection requests of PSPs and RSPs. */
    public static final int CR = 0x010;
    /** {@code DAT_EVD_DTO_FLAG}: DTO completions. */
    public static final int DTO = 0x020;
    /** {@code DAT_EVD_CONNECTION_FLAG}: connection events. */
    public static final int CONNECTION = 0x040;
    /** {@code DAT_EVD_RMR_BIND_FLAG}: RMR bind completions. */
    public static final int RMR_BIND = 0x080;
    /** {@code DAT_EVD_ASYNC_FLAG}: asynchronous errors. */
    public static final int ASYNC = 0x100;
    /** {@code DAT_EVD_DEFAULT_FLAG}: every DAT stream, no software events. */
    public static final int DEFAULT = 0x1F0;
    /** Every defined bit. */
    public static final int ALL = SOFTWARE | DEFAULT;

    private EvdFlags() {
    }
}
