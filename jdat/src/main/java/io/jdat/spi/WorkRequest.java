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
    private DeviceMemory.Window window;
    private DeviceMemory.Registration windowRegistration;
    private long windowAddress;
    private long windowLength;
    private int windowPrivileges;
    private int windowKey;

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

    /**
     * Fills the window part of an {@link Op#RMR_BIND} (core only; every bind sets it, {@code window} null when
     * the RMR has no device window). A bind of length 0 unbinds: {@code registration} is then the LMR registration
     * the window was bound into (a device needs a region to name even for an empty bind), or {@code null} when
     * the window is not bound (nothing for the device to do).
     *
     * @param window       the RMR's device window ({@code dat_rmr_bind})
     * @param registration the LMR's device registration the window is bound into
     * @param address      the bound range's virtual address
     * @param length       the bound range's length (0: unbind)
     * @param privileges   the {@link io.jdat.MemPriv} remote privileges of the binding
     */
    public void bindWindow(DeviceMemory.Window window, DeviceMemory.Registration registration, long address,
            long length, int privileges) {
        this.window = window;
        this.windowRegistration = registration;
        this.windowAddress = address;
        this.windowLength = length;
        this.windowPrivileges = privileges;
        this.windowKey = 0;
    }

    /** {@return the device window an {@link Op#RMR_BIND} binds, or {@code null} (no window: the fallback)} */
    public DeviceMemory.Window window() {
        return window;
    }

    /** {@return the LMR registration the window is bound into, or {@code null} (an unbind of an unbound window)} */
    public DeviceMemory.Registration windowRegistration() {
        return windowRegistration;
    }

    /** {@return the bound range's virtual address} */
    public long windowAddress() {
        return windowAddress;
    }

    /** {@return the bound range's length; 0 unbinds} */
    public long windowLength() {
        return windowLength;
    }

    /** {@return the binding's {@link io.jdat.MemPriv} remote privileges} */
    public int windowPrivileges() {
        return windowPrivileges;
    }

    /** {@return the key the device gave the window when the bind was posted (0: not posted), the RMR context} */
    public int windowKey() {
        return windowKey;
    }

    /**
     * Records the key the device gave the window (transport only, in {@code Channel.submit}).
     *
     * @param key the window's new key ({@code ibv_mw.rkey} after {@code ibv_bind_mw})
     */
    public void windowBound(int key) {
        this.windowKey = key;
    }
}
