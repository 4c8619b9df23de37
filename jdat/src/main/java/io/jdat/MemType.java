package io.jdat;

/** {@code DAT_MEM_TYPE}: how {@code dat_lmr_create} identifies the memory (API.md §3.2). */
public final class MemType {
    /** {@code DAT_MEM_TYPE_VIRTUAL}: a range of native memory. */
    public static final int VIRTUAL = 0x00;
    /** {@code DAT_MEM_TYPE_LMR}: the memory of an existing LMR. */
    public static final int LMR = 0x01;
    /** {@code DAT_MEM_TYPE_SHARED_VIRTUAL}: shared memory identified by a 40-byte cookie. */
    public static final int SHARED_VIRTUAL = 0x02;

    private MemType() {
    }
}
