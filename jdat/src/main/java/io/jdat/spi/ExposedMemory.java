package io.jdat.spi;

import java.lang.foreign.MemorySegment;

/**
 * A software transport's view of the memory its IA exposes to remote access, for a transport that lets a peer
 * move RDMA bytes itself (the {@code shm} direct store: the requester copies into its mapping of the target's
 * memory after checking the access against what the target published). The core tells it of every region a
 * remote privilege reaches: an LMR registered with {@code DAT_MEM_PRIV_REMOTE_READ_FLAG} or
 * {@code ..._REMOTE_WRITE_FLAG} ({@code dat_lmr_create}, {@code dat_lmr_free}) and every RMR binding
 * ({@code dat_rmr_bind}, its unbind or re-bind, {@code dat_rmr_free}).
 *
 * <p>The core's own check ({@link ChannelSink#resolveRemote}) stays authoritative: what a transport publishes is
 * a copy for the fast path, checked with the same rule ({@link RemoteRegion#accessOffset}); anything a peer
 * cannot check against it goes the way it went before. A transport returns one from
 * {@link Transport#exposedMemory()}; mem, tcp and verbs (which has {@link DeviceMemory}) return {@code null}.
 */
public interface ExposedMemory {
    /**
     * A region became reachable under {@code context} ({@code dat_lmr_create} with a remote privilege, or a
     * {@code dat_rmr_bind}). Must not block for long; may ignore regions it cannot publish.
     *
     * @param context        the {@code rmr_context}
     * @param memory         the registered (or bound) memory; its offset 0 is {@code address}
     * @param address        the virtual address of the region's first byte, as peers name it
     * @param privileges     {@link io.jdat.MemPriv} bits of the region
     * @param protectionZone the region's Protection Zone ({@link ChannelSink#protectionZone()} of an EP in it)
     */
    void exposed(int context, MemorySegment memory, long address, int privileges, int protectionZone);

    /**
     * The region of {@code context} is no longer reachable ({@code dat_lmr_free}, an RMR unbind, re-bind or
     * {@code dat_rmr_free}). Returns only once no access through the old context can still land: a
     * peer's store that checked the context before this call has finished, and none may check it after.
     *
     * @param context        the context withdrawn
     * @param protectionZone the region's Protection Zone
     */
    void withdrawn(int context, int protectionZone);
}
