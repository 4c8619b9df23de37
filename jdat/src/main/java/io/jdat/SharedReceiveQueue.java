package io.jdat;

import io.jdat.core.Core;

/**
 * A Shared Receive Queue ({@code DAT_SRQ_HANDLE}, uDAPL 1.2): receive buffers posted once and taken by
 * whichever Endpoint created with {@link Endpoint#createWithSrq} receives a message first.
 *
 * <p>A buffer leaves the SRQ when an attached EP that is connected (or disconnect-pending) takes it for an
 * incoming message; it completes on <em>that</em> EP's receive EVD, always signalled (ECS-08). An EP that
 * finds the SRQ empty behaves like an EP with an empty receive queue (SRQ-19). When an EP disconnects, the
 * buffers it had taken complete on its receive EVD (unfinished ones {@code DAT_DTO_ERR_FLUSHED}); the
 * buffers still on the SRQ stay there for the other EPs (SPR-10).
 *
 * <p><b>Counts</b> ({@link #query}): an entry is <em>available</em> while it is on the SRQ and
 * <em>outstanding</em> from its post until the consumer dequeues its completion (or the completion is lost:
 * EVD overflow, EVD freed, EP freed). New posts need a free entry: at most {@code max_recv_dtos} are
 * outstanding.
 *
 * <p><b>Ordering:</b> per connection, receive completions follow the peer's send order; nothing else is
 * promised: not posting order, not across connections or EVDs (SRQ-24..26).
 *
 * <p><b>Concurrency:</b> thread-safe. {@link #postRecv} may be called from any number of threads while any
 * number of connections take buffers; it allocates nothing.
 */
public sealed interface SharedReceiveQueue extends DatHandle, AutoCloseable permits io.jdat.core.CoreSrq {
    /**
     * {@code dat_srq_create}: an SRQ attached to no EP (SRQ-14), with at least the requested depth and
     * segments ({@link #query} reports the actual values). Only buffers registered in {@code pz} can be
     * posted (SRQ-15).
     *
     * @param ia      the IA
     * @param pz      the SRQ's Protection Zone
     * @param srqAttr the requested attributes
     * @return the SRQ
     * @throws DatException {@code DAT_INVALID_HANDLE} (IA, PZ), {@code DAT_INVALID_PARAMETER} ({@code null} or
     *                      invalid attributes), {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static SharedReceiveQueue create(InterfaceAdapter ia, ProtectionZone pz, SrqAttr srqAttr) {
        return Core.ia(ia).srqCreate(pz, srqAttr);
    }

    /**
     * {@code dat_srq_post_recv}: adds a receive buffer that any attached EP may take (legal in every SRQ
     * state; never blocks; allocates nothing).
     *
     * @param numSegments entries of {@code localIov} to use (0: a zero-size buffer)
     * @param localIov    the scatter list, in LMRs of the SRQ's PZ with local write access
     * @param userCookie  echoed in the receive completion
     * @throws DatException {@code DAT_INSUFFICIENT_RESOURCES} ({@code max_recv_dtos} entries outstanding),
     *                      {@code DAT_INVALID_PARAMETER}, {@code DAT_PROTECTION_VIOLATION} (LMR in another PZ),
     *                      {@code DAT_PRIVILEGES_VIOLATION} (invalid LMR, no local write), {@code DAT_INVALID_HANDLE}
     */
    void postRecv(int numSegments, LmrTriplet[] localIov, long userCookie);

    /**
     * {@code dat_srq_query}.
     *
     * @param srqParamMask {@code DAT_SRQ_PARAM_MASK} ({@link SrqParam#FIELD_ALL} for all)
     * @return the parameters (all fields filled)
     * @throws DatException {@code DAT_INVALID_PARAMETER} (undefined mask bits), {@code DAT_INVALID_HANDLE}
     */
    SrqParam query(long srqParamMask);

    /**
     * {@code dat_srq_resize}: changes the depth without losing buffers or messages (SRZ-01).
     *
     * @param srqMaxRecvDto the new depth
     * @throws DatException {@code DAT_INVALID_STATE} ({@code SRQ_IN_USE}: more entries outstanding;
     *                      {@code SRQ_OPERATIONAL}: strictly below the low watermark, AMB-25), the SRQ unchanged;
     *                      {@code DAT_INVALID_PARAMETER} (&le; 0 or beyond {@code max_recv_per_srq}),
     *                      {@code DAT_INVALID_HANDLE}
     */
    void resize(int srqMaxRecvDto);

    /**
     * {@code dat_srq_set_lw}: stores the low watermark and arms a one-shot asynchronous event on the IA's
     * async EVD ({@link EventNumber#ASYNC_WATERMARK_EVENT}, handle = this SRQ, reason
     * {@link AsyncReason#SRQ_LOW_WATERMARK_EVENT}) for the first time the available count is below it: at
     * once when it already is (AMB-24), else when an EP takes a buffer. {@link Dat#SRQ_LW_DEFAULT} disarms.
     *
     * @param lowWatermark 0..max_recv_dtos
     * @throws DatException {@code DAT_INVALID_PARAMETER} (negative or above max_recv_dtos), {@code DAT_INVALID_HANDLE}
     */
    void setLw(int lowWatermark);

    /**
     * {@code dat_srq_free}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} ({@code SRQ_IN_USE}) while an EP uses it (SRF-01, AMB-02),
     *                      {@code DAT_INVALID_HANDLE}
     */
    void free();

    /** {@link #free()}, for try-with-resources. */
    @Override
    default void close() {
        free();
    }
}
