package io.jdat.spi;

import java.lang.foreign.MemorySegment;

/**
 * The result of {@link ChannelSink#resolveRemote}: where an incoming RDMA may touch memory. A transport
 * owns one instance per connection and reuses it, so checking allocates nothing.
 */
public final class RemoteRegion {
    /** The access is allowed. */
    public static final int OK = 0;
    /** Bad context, bounds, privilege or Protection Zone: the connection must break. */
    public static final int ACCESS_ERROR = 1;
    /** The target EP no longer accepts RDMA: the operation is flushed. */
    public static final int CLOSED = 2;

    private MemorySegment segment;
    private long offset;

    /** An empty result, for a transport to reuse; the core fills it with {@link #set}. */
    public RemoteRegion() {
    }

    /** {@return the registered memory to access} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return the offset of the first byte in {@link #segment()}} */
    public long offset() {
        return offset;
    }

    /**
     * The rule of a remote access, in one place for the core ({@link ChannelSink#resolveRemote}) and for a
     * transport that checks at the requester what the target published ({@link ExposedMemory}): the region
     * grants {@code privilege}, is in the target EP's Protection Zone, and contains
     * {@code [address, address + length)}. Overflow-safe for hostile values; allocation-free.
     *
     * @param regionAddress    the virtual address of the region's first byte
     * @param regionLength     the region's length
     * @param regionPrivileges the region's {@link io.jdat.MemPriv} bits
     * @param samePz           whether the region's PZ is the target EP's
     * @param privilege        {@link io.jdat.MemPriv#REMOTE_READ} or {@link io.jdat.MemPriv#REMOTE_WRITE}
     * @param address          the target address of the access
     * @param length           its length, at least 1 (a zero-length access is not checked at all)
     * @return the offset of {@code address} in the region, or -1 when the access is refused
     */
    public static long accessOffset(long regionAddress, long regionLength, int regionPrivileges, boolean samePz,
            int privilege, long address, long length) {
        if ((regionPrivileges & privilege) == 0 || !samePz) {
            return -1;
        }
        return offsetIn(regionAddress, regionLength, address, length);
    }

    /**
     * The offset of {@code [address, address + length)} inside the region {@code [regionAddress, +regionLength)},
     * or -1 when it is not contained. Overflow-safe for hostile values.
     *
     * @param regionAddress the region's first byte
     * @param regionLength  the region's length
     * @param address       the range's first byte
     * @param length        the range's length
     * @return the offset, or -1
     */
    public static long offsetIn(long regionAddress, long regionLength, long address, long length) {
        if (length < 0) {
            return -1;
        }
        long off = address - regionAddress;
        if (address < regionAddress || off > regionLength || length > regionLength - off) {
            return -1;
        }
        return off;
    }

    /**
     * Sets the result (called by the core).
     *
     * @param segment the memory
     * @param offset the byte offset
     */
    public void set(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
    }
}
