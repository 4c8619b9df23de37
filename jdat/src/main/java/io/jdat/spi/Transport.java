package io.jdat.spi;

import io.jdat.DatException;
import java.net.SocketAddress;

/**
 * The transport side of one open IA: its address, its listeners and its outgoing connection attempts.
 * Thread-safe.
 */
public interface Transport {
    /** {@return this IA's address ({@code ia_address_ptr})} */
    SocketAddress address();

    /** {@return what this transport can carry} */
    TransportLimits limits();

    /**
     * True when {@code address} is of a kind this transport can reach; the core returns
     * {@code DAT_INVALID_ADDRESS} synchronously otherwise (CON-12).
     *
     * @param address the local IA address
     * @return whether the core may hand {@code address} to {@link #connect}
     */
    boolean isValidAddress(SocketAddress address);

    /**
     * Starts listening.
     *
     * @param connQual the qualifier, ignored when {@code any}
     * @param any      pick a free non-privileged qualifier ({@code dat_psp_create_any})
     * @param handler  receives each request
     * @return the listener; its qualifier is {@link Listener#connQual()}
     * @throws DatException {@code DAT_CONN_QUAL_IN_USE}, {@code DAT_CONN_QUAL_UNAVAILABLE},
     *                      {@code DAT_INVALID_PARAMETER} ({@code DAT_INVALID_ARG2}) for a qualifier this
     *                      transport can never serve (tcp: outside 1..65535)
     */
    Listener listen(long connQual, boolean any, IncomingHandler handler);

    /**
     * Starts an active connection attempt. The outcome is reported exactly once to {@code handler},
     * from a transport thread, unless the attempt is cancelled first.
     *
     * @param remote         the peer IA address (already checked with {@link #isValidAddress})
     * @param remoteConnQual the peer's qualifier; one this transport can never serve is reported as
     *                       {@code nonPeerRejected}, never as another qualifier
     * @param privateData    the requester's private data
     * @param rdmaReadIn     this EP's incoming RDMA Read depth (IRD)
     * @param rdmaReadOut    this EP's outgoing RDMA Read depth (ORD)
     * @param handler        the active side of the core
     * @return the attempt, cancellable until its outcome is reported
     */
    ConnectAttempt connect(SocketAddress remote, long remoteConnQual, byte[] privateData, int rdmaReadIn,
            int rdmaReadOut, ActiveHandler handler);

    /**
     * {@link #connect(SocketAddress, long, byte[], int, int, ActiveHandler)} with the EP's resources, which a
     * device transport needs to create the queue pair; the core always calls this one. Software transports
     * keep the default, which ignores them.
     *
     * @param remote         the peer's IA address
     * @param remoteConnQual the peer's connection qualifier
     * @param privateData    the consumer's private data (may be empty)
     * @param rdmaReadIn     the EP's incoming RDMA Read depth (IRD)
     * @param rdmaReadOut    the EP's outgoing RDMA Read depth (ORD)
     * @param handler        receives the outcome
     * @param resources      the EP's protection domain, queue sizes and receive side
     * @return the attempt
     */
    default ConnectAttempt connect(SocketAddress remote, long remoteConnQual, byte[] privateData, int rdmaReadIn,
            int rdmaReadOut, ActiveHandler handler, EndpointResources resources) {
        return connect(remote, remoteConnQual, privateData, rdmaReadIn, rdmaReadOut, handler);
    }

    /**
     * The device memory of a transport that registers memory and checks remote access in hardware, or
     * {@code null} (the default) for a software transport, whose remote accesses the core checks.
     *
     * @return the device memory, or {@code null}
     */
    default DeviceMemory deviceMemory() {
        return null;
    }

    /**
     * Where a software transport that lets peers move RDMA bytes themselves learns of the IA's remotely reachable
     * memory ({@code dat_lmr_create}/{@code dat_lmr_free}, {@code dat_rmr_bind}/unbind), or {@code null} (the
     * default): the core alone checks and serves remote access.
     *
     * @return the listener, or {@code null}
     */
    default ExposedMemory exposedMemory() {
        return null;
    }

    /**
     * Whether {@code dat_srq_create} is supported; when not, the core fails it with
     * {@code DAT_MODEL_NOT_SUPPORTED}. Default true (the core keeps shared receive queues itself).
     *
     * @return whether shared receive queues are supported
     */
    default boolean sharedReceiveQueues() {
        return true;
    }

    /**
     * Consumer-driven progress: called by a thread that polls or spin-waits on one of this IA's event
     * dispatchers and found nothing. A transport that receives on its own threads may move incoming bytes on
     * the calling thread instead, so that a polling consumer sees them at once and no second thread busies a
     * core. Must not block; must allocate nothing once warmed up.
     *
     * @return true when it made progress (the caller should look again at once)
     */
    default boolean progress() {
        return false;
    }

    /**
     * The consumer that was polling stops (it is about to park in a wait): the transport's own progress, if
     * it has any, takes over at once.
     */
    default void pollerIdle() {
    }

    /**
     * A consumer's {@code dat_evd_dequeue} on one of this IA's event dispatchers returned an event (without
     * calling {@link #progress}): the consumer is busy, not gone. A transport whose own thread stands aside
     * while a consumer polls counts these as the consumer's presence (a consumer handling the events of many
     * connections dequeues for a long time between two polls). On every successful dequeue: must be a plain or
     * opaque store at most (no fence, no allocation, no clock read). Default: nothing.
     */
    default void eventDequeued() {
    }

    /**
     * Closes the transport: listeners stop, every connection is aborted (peers see
     * {@code DAT_CONNECTION_EVENT_BROKEN}) without calling back into the core.
     */
    void close();

    /**
     * Closes the transport for {@code dat_ia_close} with {@code DAT_CLOSE_GRACEFUL_FLAG}: every endpoint is
     * gone, but connections they closed may still be handing their last bytes to the peer; a transport lets
     * them finish (within a bound of its own) before it closes as {@link #close} does. The default is
     * {@link #close}.
     */
    default void closeGracefully() {
        close();
    }

    /** A listening qualifier. */
    interface Listener {
        /** {@return the qualifier listened on} */
        long connQual();

        /** Stops listening; later requests are refused as if nobody listened. Idempotent. */
        void close();
    }

    /** An outgoing connection attempt. */
    interface ConnectAttempt {
        /** {@return the local port qualifier the attempt uses (CON-03)} */
        long localPortQual();

        /**
         * Abandons the attempt (timeout, disconnect, free): no outcome is reported afterwards, and a
         * later accept by the peer fails with {@code ACCEPT_COMPLETION_ERROR} on its side.
         */
        void cancel();
    }
}
