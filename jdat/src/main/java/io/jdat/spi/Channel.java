package io.jdat.spi;

/**
 * One established connection, as the core drives it.
 *
 * <p>{@link #submit} is called with the EP's posting lock held, so submissions arrive one at a time and
 * in posting order; the transport executes them in that order and reports each completion, in the same
 * order, through {@link ChannelSink#requestCompleted}.
 */
public interface Channel {
    /** Close mode: tell the peer the connection was disconnected ({@code DISCONNECTED}). */
    int CLOSE_DISCONNECT = 0;
    /** Close mode: tell the peer the connection broke ({@code BROKEN}). */
    int CLOSE_BREAK = 1;
    /** Close mode: the peer already knows (it closed first). */
    int CLOSE_SILENT = 2;

    /**
     * {@return the local port qualifier} ({@code dat_ep_query}'s {@code local_port_qual} of the active side).
     * The peer's address and qualifier are the core's already: the ones it connected to, or the request's.
     */
    long localPortQual();

    /**
     * Starts one work request. The request object is the core's and stays valid until its completion is
     * reported.
     *
     * @param wr a validated request
     */
    void submit(WorkRequest wr);

    /**
     * Places an RDMA Write of {@code dat_ep_post_rdma_write} on the calling thread, now, if the transport can:
     * the core asks this only for a {@code SUPPRESS}ed Write of at least one byte on an EP with no request
     * outstanding (its posting lock held), whose success therefore raises no event and completes after every
     * earlier request. True means the bytes are in the target's memory and the Write succeeded: the core counts it
     * complete and queues nothing ({@link ChannelSink#requestCompleted} is not called for it). False means
     * nothing was done: the core submits the request as usual ({@link #submit}), and the transport's result is
     * reported as for any request. Default: false.
     *
     * @param wr a validated RDMA Write, valid only during this call
     * @return whether the Write was placed and succeeded
     */
    default boolean writeNow(WorkRequest wr) {
        return false;
    }

    /** A receive buffer was posted: a transport that holds messages back for lack of one may go on. */
    void recvPosted();

    /**
     * A graceful {@code dat_ep_disconnect} with nothing outstanding: the transport delivers what it accepted
     * (every byte of every request it reported complete reaches the peer), ends its direction of the
     * connection, and reports the end through {@link ChannelSink#remoteDisconnected} once the peer closed its
     * own, or {@link ChannelSink#broken} when that does not happen within a bound of its own. Meanwhile it
     * keeps receiving. Idempotent.
     *
     * @return false when the transport has nothing to wait for: the core ends the connection at once (with
     *         {@link #close} and {@link #CLOSE_DISCONNECT}), which is the default
     */
    default boolean disconnectGracefully() {
        return false;
    }

    /**
     * Stops the connection. When this returns the transport reports no further completion and takes no
     * further receive buffer; the core flushes whatever is still outstanding. Idempotent.
     *
     * @param mode {@link #CLOSE_DISCONNECT}, {@link #CLOSE_BREAK} or {@link #CLOSE_SILENT}
     */
    void close(int mode);
}
