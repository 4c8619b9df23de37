package io.jdat;

/** {@code DAT_MEM_PRIV_FLAGS}: memory access privileges of LMRs and RMRs (API.md §3.2). */
public final class MemPriv {
    /** {@code DAT_MEM_PRIV_NONE_FLAG}. */
    public static final int NONE = 0x00;
    /** {@code DAT_MEM_PRIV_LOCAL_READ_FLAG}: local DTOs may read (send and RDMA Write sources). */
    public static final int LOCAL_READ = 0x01;
    /** {@code DAT_MEM_PRIV_REMOTE_READ_FLAG}: the peer may RDMA Read. */
    public static final int REMOTE_READ = 0x02;
    /** {@code DAT_MEM_PRIV_LOCAL_WRITE_FLAG}: local DTOs may write (receive and RDMA Read sinks). */
    public static final int LOCAL_WRITE = 0x10;
    /** {@code DAT_MEM_PRIV_REMOTE_WRITE_FLAG}: the peer may RDMA Write. */
    public static final int REMOTE_WRITE = 0x20;
    /** {@code DAT_MEM_PRIV_ALL_FLAG}. */
    public static final int ALL = 0x33;
    /** {@code DAT_MEM_PRIV_READ_FLAG} (compatibility: local and remote read). */
    public static final int READ = 0x03;
    /** {@code DAT_MEM_PRIV_WRITE_FLAG} (compatibility: local and remote write). */
    public static final int WRITE = 0x30;

    private MemPriv() {
    }
}
