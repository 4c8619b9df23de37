package io.jdat.spi;

/** The core's passive side of an accepted request. */
public interface PassiveHandler {
    /**
     * The connection is up.
     *
     * @param channel the connection
     * @return the core's receive side, which the transport delivers into
     */
    ChannelSink established(Channel channel);

    /** The accept could not complete (the requester gave up or vanished): {@code ACCEPT_COMPLETION_ERROR}. */
    void acceptFailed();
}
