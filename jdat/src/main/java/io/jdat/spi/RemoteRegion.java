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
