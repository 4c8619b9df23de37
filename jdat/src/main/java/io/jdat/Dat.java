package io.jdat;

/**
 * DAT special values and limits of {@code dat.h} / {@code udat.h} (API.md §1).
 *
 * <p>jdat keeps the C conventions for counts and timeouts: a {@code DAT_COUNT} is an {@code int}, a
 * {@code DAT_TIMEOUT} an {@code int} of microseconds read as unsigned, and {@code DAT_HANDLE_NULL}
 * is Java {@code null}.
 */
public final class Dat {
    /** {@code DAT_VERSION_MAJOR} of the API jdat implements. */
    public static final int VERSION_MAJOR = 1;
    /** {@code DAT_VERSION_MINOR} of the API jdat implements. */
    public static final int VERSION_MINOR = 2;
    /** {@code DAT_THREADSAFE} as the {@code dat_ia_open} macro passes it (DAT_FALSE in the 1.2 headers). */
    public static final boolean THREADSAFE = false;
    /** {@code DAT_TIMEOUT_INFINITE}: {@code (DAT_TIMEOUT) ~0}, no time limit. */
    public static final int TIMEOUT_INFINITE = 0xFFFFFFFF;
    /** {@code DAT_VALUE_UNKNOWN}: a count the provider cannot report (-2). */
    public static final int VALUE_UNKNOWN = -2;
    /** {@code DAT_WATERMARK_INFINITE}: no watermark (-1). */
    public static final int WATERMARK_INFINITE = -1;
    /** {@code DAT_HW_DEFAULT}: the default EP soft high watermark (= {@link #WATERMARK_INFINITE}). */
    public static final int HW_DEFAULT = WATERMARK_INFINITE;
    /** {@code DAT_SRQ_LW_DEFAULT}: SRQ low watermark disabled. */
    public static final int SRQ_LW_DEFAULT = 0;
    /** {@code DAT_OPTIMAL_ALIGNMENT}: the portable buffer alignment in bytes. */
    public static final int OPTIMAL_ALIGNMENT = 256;
    /** {@code DAT_NAME_MAX_LENGTH}: IA names are shorter than this (the C limit includes the NUL). */
    public static final int NAME_MAX_LENGTH = 256;
    /** {@code DAT_LMR_COOKIE_SIZE}: the size of a shared-memory identifier, compared in full. */
    public static final int LMR_COOKIE_SIZE = 40;

    private Dat() {
    }
}
