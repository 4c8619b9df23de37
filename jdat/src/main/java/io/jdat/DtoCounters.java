package io.jdat;

/**
 * A snapshot of the data transfer counters of an Endpoint ({@link Endpoint#counters()}) or of an Interface
 * Adapter ({@link InterfaceAdapter#counters()}, the sum over its Endpoints, freed ones included). A jdat
 * extension: DAT 1.2 has no counters (DAT 2.0's IB extensions have {@code dat_query_counters}).
 *
 * <p>Requests are the DTOs of {@code dat_ep_post_send}, {@code dat_ep_post_rdma_read} and
 * {@code dat_ep_post_rdma_write} ({@code dat_rmr_bind} is not counted); receives are those of
 * {@code dat_ep_post_recv} (an SRQ Endpoint counts the SRQ receives it completed, and posts none itself).
 * A DTO counts once as posted, and once more as completed (status {@code DAT_DTO_SUCCESS}), flushed
 * ({@code DAT_DTO_ERR_FLUSHED}) or failed (any other status) when it completes - whether or not its
 * completion was reported to an EVD ({@code DAT_COMPLETION_SUPPRESS_FLAG}). Bytes are the transferred
 * lengths of the successful completions. A DTO posted in the DISCONNECTED state counts as posted and flushed.
 *
 * <p>The counters are plain fields the Endpoint's posting and completion paths update without allocating
 * or synchronising: a snapshot taken while transfers run may be a moment behind; once the consumer has
 * dequeued a completion, the snapshot includes it.
 *
 * @param requestsPosted    requests posted
 * @param requestsCompleted requests completed successfully
 * @param requestsFlushed   requests completed with {@code DAT_DTO_ERR_FLUSHED}
 * @param requestErrors     requests completed with any other error
 * @param requestBytes      bytes moved by successful requests
 * @param recvsPosted       receives posted
 * @param recvsCompleted    receives completed successfully
 * @param recvsFlushed      receives completed with {@code DAT_DTO_ERR_FLUSHED}
 * @param recvErrors        receives completed with any other error
 * @param recvBytes         bytes received by successful receives
 */
public record DtoCounters(long requestsPosted, long requestsCompleted, long requestsFlushed, long requestErrors,
        long requestBytes, long recvsPosted, long recvsCompleted, long recvsFlushed, long recvErrors,
        long recvBytes) {
    /** All zero. */
    public static final DtoCounters ZERO = new DtoCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * The sum of two snapshots.
     *
     * @param o the other snapshot
     * @return this plus {@code o}, field by field
     */
    public DtoCounters plus(DtoCounters o) {
        return new DtoCounters(requestsPosted + o.requestsPosted, requestsCompleted + o.requestsCompleted,
                requestsFlushed + o.requestsFlushed, requestErrors + o.requestErrors, requestBytes + o.requestBytes,
                recvsPosted + o.recvsPosted, recvsCompleted + o.recvsCompleted, recvsFlushed + o.recvsFlushed,
                recvErrors + o.recvErrors, recvBytes + o.recvBytes);
    }

    /**
     * The difference of two snapshots, e.g. what one phase of a program did.
     *
     * @param earlier an earlier snapshot of the same object
     * @return this minus {@code earlier}, field by field
     */
    public DtoCounters minus(DtoCounters earlier) {
        return new DtoCounters(requestsPosted - earlier.requestsPosted, requestsCompleted - earlier.requestsCompleted,
                requestsFlushed - earlier.requestsFlushed, requestErrors - earlier.requestErrors,
                requestBytes - earlier.requestBytes, recvsPosted - earlier.recvsPosted,
                recvsCompleted - earlier.recvsCompleted, recvsFlushed - earlier.recvsFlushed,
                recvErrors - earlier.recvErrors, recvBytes - earlier.recvBytes);
    }

    /** {@return the requests and receives posted} */
    public long posted() {
        return requestsPosted + recvsPosted;
    }

    /** {@return the requests and receives completed successfully} */
    public long completed() {
        return requestsCompleted + recvsCompleted;
    }

    /** {@return the requests and receives flushed} */
    public long flushed() {
        return requestsFlushed + recvsFlushed;
    }

    /** {@return the requests and receives completed with an error other than flushed} */
    public long errors() {
        return requestErrors + recvErrors;
    }

    /** {@return the bytes moved by successful requests and receives} */
    public long bytes() {
        return requestBytes + recvBytes;
    }

    /** {@return the requests and receives posted and not completed yet} */
    public long outstanding() {
        return requestsPosted - requestsCompleted - requestsFlushed - requestErrors
                + recvsPosted - recvsCompleted - recvsFlushed - recvErrors;
    }
}
