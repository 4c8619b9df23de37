package io.jdat.spi;

/** The core's active side of a connection attempt: the transport reports the outcome here once. */
public interface ActiveHandler {
    /**
     * The peer accepted and the transport handshake finished.
     *
     * @param channel     the connection
     * @param privateData the acceptor's private data
     * @return the core's receive side, which the transport delivers into; {@code null} when the EP no
     *         longer wants the connection (it timed out or was aborted meanwhile): the transport then drops
     *         the channel and the acceptor gets {@code ACCEPT_COMPLETION_ERROR}
     */
    ChannelSink established(Channel channel, byte[] privateData);

    /** The peer consumer rejected the request ({@code DAT_CONNECTION_EVENT_PEER_REJECTED}). */
    void peerRejected();

    /** Nobody listens, the backlog is full, or a transport error ({@code NON_PEER_REJECTED}). */
    void nonPeerRejected();

    /** The peer host cannot be reached ({@code DAT_CONNECTION_EVENT_UNREACHABLE}). */
    void unreachable();
}
