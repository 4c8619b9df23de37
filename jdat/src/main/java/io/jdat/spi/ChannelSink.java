package io.jdat.spi;

import io.jdat.DtoCompletionStatus;

/**
 * The core's side of one connection, called by the transport. Receive-path calls for one connection
 * come from one thread at a time. {@link #holdSource} and {@link #sourced}, the reads of an incoming RDMA Read's
 * source, also come from one thread at a time per connection: the receive path's on mem and shm, the transmit
 * path's on tcp (which sends Read Responses), so there they may run concurrently with the receive path's calls.
 */
public interface ChannelSink {
    /**
     * Takes the next posted receive buffer for an incoming message.
     *
     * @return the buffer, or {@code null} when none is posted or the EP no longer accepts messages (see
     *         {@link #isAccepting()})
     */
    RecvBuffer takeRecv();

    /**
     * Takes the next posted receive buffer while this EP's connection is being set up (the core's
     * ACTIVE/COMPLETION_PENDING states), for a device that must hold receive buffers before the peer can
     * send (an RDMA NIC, which has no receiver-not-ready wait on iWARP). Completed later with
     * {@link #completeRecv} in order, or flushed by the core if the connection does not come up. Software
     * transports never call it.
     *
     * @return the buffer, or {@code null} when none is posted, the EP is not setting up a connection, or its
     *         receives come from a shared receive queue
     */
    default RecvBuffer takeRecvInSetup() {
        return null;
    }

    /**
     * Completes a buffer taken with {@link #takeRecv}.
     *
     * @param buffer    the buffer
     * @param length    the message length; larger than the buffer's capacity, or negative for a message
     *                  the transport could not place, the core reports {@code DAT_DTO_ERR_LOCAL_LENGTH}
     * @param solicited the sender asked for a solicited event
     */
    void completeRecv(RecvBuffer buffer, long length, boolean solicited);

    /** {@return true while the EP takes incoming messages and RDMA (connected or disconnect-pending)} */
    boolean isAccepting();

    /**
     * Checks an incoming RDMA access against this EP's IA memory tables and Protection Zone: context,
     * bounds, privilege, PZ — before any byte moves. A zero-length access names no memory and passes
     * unchecked (its {@code out} segment is {@link java.lang.foreign.MemorySegment#NULL}); a read the EP's
     * {@code max_rdma_read_in} does not admit is an access error (RDR-17).
     *
     * <p>An admitted RDMA Write ({@link io.jdat.MemPriv#REMOTE_WRITE}, at least one byte) holds the region until
     * {@link #placed}: the transport copies the bytes and then calls it, on every path, before it resolves the next
     * access of this EP. A {@code dat_lmr_free} or RMR unbind of the region returns only once no such hold is left,
     * so no byte of an incoming Write lands after it returned. A hold covers one bounded copy (a record, what one
     * socket read brings), never a wait for the peer: a Write whose bytes arrive over several receive passes is
     * resolved again, for the bytes still to come, in each pass; a refusal then is the in-flight Write failing
     * (LMF-04). A hold kept longer than a second has the connection broken.
     *
     * <p>An admitted RDMA Read ({@link io.jdat.MemPriv#REMOTE_READ}) holds nothing: the transport reads its source
     * only under {@link #holdSource}, for each bounded read.
     *
     * @param rmrContext the remote context (STag)
     * @param address    the target address
     * @param length     bytes
     * @param privilege  {@link io.jdat.MemPriv#REMOTE_READ} or {@link io.jdat.MemPriv#REMOTE_WRITE}
     * @param out        receives the memory to access when the check passes
     * @return {@link RemoteRegion#OK}, {@link RemoteRegion#ACCESS_ERROR} or {@link RemoteRegion#CLOSED}
     */
    int resolveRemote(int rmrContext, long address, long length, int privilege, RemoteRegion out);

    /**
     * The bytes of the RDMA Write that {@link #resolveRemote} admitted last are placed (or the copy gave up): the
     * region's hold ends. Harmless when nothing is held. Must not block.
     */
    void placed();

    /**
     * Holds the source of an incoming RDMA Read that {@link #resolveRemote} admitted, for one bounded read of it:
     * {@code length} bytes at {@code address}, checked again as the memory tables have them now (context, bounds,
     * privilege, PZ; not the EP's state: Read Responses owed at a graceful disconnect still go). When admitted the
     * region is held until {@link #sourced}: the transport reads the bytes (a copy, a cross-memory write, one
     * non-blocking socket send of a view of them) and then calls it, on every path, before it holds the next
     * source. A {@code dat_lmr_free} or RMR unbind of the region returns only once no such hold is left, so no byte
     * of the region is read for a peer after it returned. A hold covers one bounded read, never a wait for the
     * peer or for socket space: a Read served over several passes (chunks, Read Response FPDUs) is held again for
     * each; a refusal then is the in-flight Read failing (LMF-04), and the transport breaks the connection. A
     * hold kept longer than a second has the connection broken.
     *
     * @param rmrContext the Read's source context (STag)
     * @param address    the first byte to read
     * @param length     bytes; 0 holds nothing
     * @param out        receives the memory to read when admitted
     * @return {@link RemoteRegion#OK}, or {@link RemoteRegion#ACCESS_ERROR} (nothing held)
     */
    int holdSource(int rmrContext, long address, long length, RemoteRegion out);

    /**
     * The read of the source that {@link #holdSource} admitted last is done (or gave up): the region's hold ends.
     * Harmless when nothing is held. Must not block.
     */
    void sourced();

    /**
     * The identity of this EP's Protection Zone, as {@link ExposedMemory} names the PZ of a region: nonzero,
     * unique among the process's PZs, fixed while connected (EPM-09). A transport that lets the peer check an
     * access itself publishes it for the peer. 0 (the default) means unknown: no peer-side check.
     *
     * @return the PZ's identity, or 0
     */
    default int protectionZone() {
        return 0;
    }

    /**
     * The oldest submitted request finished.
     *
     * @param status its status
     * @param length bytes transferred
     */
    void requestCompleted(DtoCompletionStatus status, long length);

    /** The peer disconnected. */
    void remoteDisconnected();

    /** The connection broke (peer gone, protocol or protection error, no receive buffer in time). */
    void broken();
}
