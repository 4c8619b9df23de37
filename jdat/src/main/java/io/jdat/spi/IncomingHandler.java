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

    /**
     * The listener cannot accept requests ({@link AcceptBackoff}): it has failed for a while and keeps
     * retrying, or ({@code stopped}) it has stopped for good. Called from the listener's thread, once per
     * failure episode; the core reports it on the IA's async EVD.
     *
     * @param cause   the last failure
     * @param stopped true when the listener will not accept again
     */
    default void acceptFailing(Throwable cause, boolean stopped) {
    }
}
