package io.jdat;

/** {@code DAT_CONNECT_FLAGS} of uDAPL 1.2 (API.md §3.2). */
public final class ConnectFlags {
    /** {@code DAT_CONNECT_DEFAULT_FLAG}: no multipath. */
    public static final int DEFAULT = 0x00;
    /** {@code DAT_CONNECT_MULTIPATH_FLAG}: multipath requested. */
    public static final int MULTIPATH = 0x01;

    private ConnectFlags() {
    }
}
