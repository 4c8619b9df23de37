package io.jdat.spi;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** A connection request as the transport received it; exactly one of accept, reject, refuse is called. */
public interface IncomingRequest {
    /**
     * What a connection request carries, as {@code dat_cr_query} reports it and the accepting EP keeps it.
     *
     * @param remoteAddress  the requester's IA address
     * @param remotePortQual the requester's local port qualifier
     * @param connQual       the qualifier the request was addressed to
     * @param privateData    the requester's private data (the array is the core's to keep)
     */
    record Fields(SocketAddress remoteAddress, long remotePortQual, long connQual, byte[] privateData) {
        /**
         * The fields of a request from a peer on an IP network (iWARP over TCP, rdma_cm): its IA address is its
         * host (port 0), its port qualifier its port.
         *
         * @param peer        the peer's socket address
         * @param connQual    the qualifier the request was addressed to
         * @param privateData the requester's private data
         * @return the fields
         */
        public static Fields fromInet(InetSocketAddress peer, long connQual, byte[] privateData) {
            return new Fields(new InetSocketAddress(peer.getAddress(), 0), peer.getPort(), connQual, privateData);
        }
    }

    /** {@return what the request carries}: the same object on every call */
    Fields fields();

    /**
     * Accepts. The transport completes the handshake asynchronously and reports to {@code passive}:
     * {@link PassiveHandler#established} or {@link PassiveHandler#acceptFailed}.
     *
     * @param passive     the accepting EP's core side
     * @param privateData the acceptor's private data
     * @param rdmaReadIn  the accepting EP's incoming RDMA Read depth (IRD)
     * @param rdmaReadOut the accepting EP's outgoing RDMA Read depth (ORD)
     */
    void accept(PassiveHandler passive, byte[] privateData, int rdmaReadIn, int rdmaReadOut);

    /**
     * {@link #accept(PassiveHandler, byte[], int, int)} with the accepting EP's resources, which a device
     * transport needs to create the queue pair; the core always calls this one. The default ignores them.
     *
     * @param passive     the accepting EP's core side
     * @param privateData the acceptor's private data
     * @param rdmaReadIn  the accepting EP's incoming RDMA Read depth (IRD)
     * @param rdmaReadOut the accepting EP's outgoing RDMA Read depth (ORD)
     * @param resources   the EP's protection domain, queue sizes and receive side
     */
    default void accept(PassiveHandler passive, byte[] privateData, int rdmaReadIn, int rdmaReadOut,
            EndpointResources resources) {
        accept(passive, privateData, rdmaReadIn, rdmaReadOut);
    }

    /** Rejects on behalf of the consumer: the requester gets {@code PEER_REJECTED}. */
    void reject();

    /** Refuses as the provider (nobody can take it): the requester gets {@code NON_PEER_REJECTED}. */
    void refuse();
}
