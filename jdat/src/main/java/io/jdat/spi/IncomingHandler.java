package io.jdat.spi;

/** The core's listening side: a service point. */
public interface IncomingHandler {
    /**
     * A connection request arrived.
     *
     * @param request the request
     * @return {@code false} when it cannot be queued (backlog full, service point gone): the transport then
     *         refuses it and the requester gets {@code NON_PEER_REJECTED}
     */
    boolean onRequest(IncomingRequest request);
}
