package io.jdat.spi;

/**
 * One request-queue entry (send, RDMA Write, RDMA Read, RMR bind) as the core hands it to a transport:
 * the local vector is validated; the remote triplet is the peer's to check. Pre-allocated per queue slot.
 */
public final class WorkRequest extends IoVector {
    /** The operation of a work request. */
    public enum Op {
        /** {@code dat_ep_post_send}. */
        SEND,
        /** {@code dat_ep_post_rdma_write}. */
        RDMA_WRITE,
        /** {@code dat_ep_post_rdma_read}. */
        RDMA_READ,
        /** {@code dat_rmr_bind}: local only, completes in queue order. */
        RMR_BIND
    }

    private Op op;
    private int completionFlags;
    private int remoteContext;
    private long remoteAddress;
    private long remoteLength;

    /**
     * A request with room for {@code capacity} local segments.
     *
     * @param capacity the EP's maximum request iov
     */
    public WorkRequest(int capacity) {
        super(capacity);
    }

    /** {@return the operation} */
    public Op op() {
        return op;
    }

    /** {@return the per-post {@link io.jdat.CompletionFlags}} */
    public int completionFlags() {
        return completionFlags;
    }

    /** {@return true when the send asked for a solicited event at the receiver} */
    public boolean solicited() {
        return (completionFlags & io.jdat.CompletionFlags.SOLICITED_WAIT) != 0;
    }

    /** {@return the peer's context (RDMA)} */
    public int remoteContext() {
        return remoteContext;
    }

    /** {@return the peer's address (RDMA)} */
    public long remoteAddress() {
        return remoteAddress;
    }

    /** {@return the bytes to transfer from/to the peer: the remote segment length (read) or local total (write)} */
    public long remoteLength() {
        return remoteLength;
    }

    /**
     * Fills the header (core only).
     *
     * @param op the operation
     * @param completionFlags the {@link io.jdat.CompletionFlags} of the post
     * @param remoteContext the peer's context (RDMA)
     * @param remoteAddress the peer's address (RDMA)
     * @param remoteLength the bytes to transfer from or to the peer
     */
    public void set(Op op, int completionFlags, int remoteContext, long remoteAddress, long remoteLength) {
        this.op = op;
        this.completionFlags = completionFlags;
        this.remoteContext = remoteContext;
        this.remoteAddress = remoteAddress;
        this.remoteLength = remoteLength;
    }
}
