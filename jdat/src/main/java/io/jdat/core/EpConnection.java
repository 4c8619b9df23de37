package io.jdat.core;

import static io.jdat.core.EpStateMachine.State.ACTIVE_CONNECTION_PENDING;
import static io.jdat.core.EpStateMachine.State.COMPLETION_PENDING;
import static io.jdat.core.EpStateMachine.State.CONNECTED;
import static io.jdat.core.EpStateMachine.State.DISCONNECT_PENDING;

import io.jdat.CloseFlags;
import io.jdat.ConnectFlags;
import io.jdat.Dat;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.EventNumber;
import io.jdat.Qos;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.Channel;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.IncomingRequest;
import io.jdat.spi.PassiveHandler;
import io.jdat.spi.Transport;
import java.net.SocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The connection side of one {@link CoreEp}: {@code dat_ep_connect}, {@code dat_ep_dup_connect},
 * {@code dat_cr_accept} with the EP, the service-point reservations, establishment, {@code dat_ep_disconnect}
 * and every way into DISCONNECTED (API.md §7.2, §7.5). It is the {@link ActiveHandler} and
 * {@link PassiveHandler} the transport reports a connection attempt to; the established connection's data
 * path is the EP itself ({@link ChannelSink}).
 *
 * <p><b>Locks.</b> The EP's locks ({@link CoreEp#txLock} then {@link CoreEp#lock}) guard everything here;
 * no transport is called while the EP's state lock is held. The state changes go through the EP's
 * {@link EpStateMachine}.
 */
final class EpConnection implements ActiveHandler, PassiveHandler {
    private final CoreEp ep;
    private final EpStateMachine sm;

    // Guarded by ep.lock.
    Transport.ConnectAttempt attempt;
    private ScheduledFuture<?> timeoutTask;
    SocketAddress remoteAddress;
    long remotePortQual;
    long localPortQual;
    private long connectedQual;
    private int connectFlags;
    private byte[] peerPrivateData = new byte[0];
    /** The CR that carries this EP (PASSIVE / TENTATIVE_CONNECTION_PENDING). */
    private CoreCr pendingCr;
    /** The RSP this EP is reserved by (RESERVED). */
    CoreRsp rsp;

    EpConnection(CoreEp ep, EpStateMachine sm) {
        this.ep = ep;
        this.sm = sm;
    }

    /** A provider-created EP carried by {@code cr} (PSP-04): its addresses come from the request. */
    void carriedBy(CoreCr cr) {
        pendingCr = cr;
        peerOf(cr);
    }

    /** The peer is the one of {@code cr}'s request; the local port qualifier is the one it arrived on (EPQ-03). */
    private void peerOf(CoreCr cr) {
        IncomingRequest.Fields f = cr.request.fields();
        remoteAddress = f.remoteAddress();
        remotePortQual = f.remotePortQual();
        localPortQual = f.connQual();
    }

    // ================================================================== active side

    /** {@code dat_ep_connect}. */
    void connect(SocketAddress addr, long qual, int timeout, int pdSize, byte[] pd, int qos, int flags) {
        connectTo(addr, qual, timeout, pdSize, pd, qos, flags, 0);
    }

    /** {@code dat_ep_dup_connect}: connects to where {@code dup} is connected. */
    void dupConnect(CoreEp dup, int timeout, int pdSize, byte[] pd, int qos) {
        SocketAddress addr;
        long qual;
        int flags;
        dup.lock.lock();
        try {
            EpStateMachine.State s = dup.sm.current();
            if (s != CONNECTED) {
                throw Fail.state(EpStateMachine.subtype(s), "dup_ep_handle is not connected (EPQ-06)");
            }
            addr = dup.connection.remoteAddress;
            qual = dup.connection.connectedQual;
            flags = dup.connection.connectFlags;
        } finally {
            dup.lock.unlock();
        }
        connectTo(addr, qual, timeout, pdSize, pd, qos, flags, -1);
    }

    /**
     * The common part of connect and dup_connect; {@code shift} maps connect's argument positions (timeout
     * is argument 4) to the caller's (-1 for dup_connect, whose timeout is argument 3).
     */
    private void connectTo(SocketAddress addr, long qual, int timeout, int pdSize, byte[] pd, int qos, int flags,
            int shift) {
        CoreIa ia = ep.ia;
        if (addr == null) {
            throw Fail.param(2, "no remote IA address (CON-25)");
        }
        if (timeout == 0) {
            throw Fail.param(4 + shift, "timeout must be positive (CON-17)");
        }
        byte[] data = privateData(pdSize, pd, 5 + shift);
        if ((qos & ~Qos.ALL) != 0) {
            throw Fail.param(7 + shift, "undefined QoS bits");
        }
        if ((qos & ~ia.limits.qosSupported()) != 0) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "QoS 0x" + Integer.toHexString(qos) + " (CON-06)");
        }
        if ((flags & ~ConnectFlags.MULTIPATH) != 0) {
            throw Fail.param(8, "undefined connect flags");
        }
        if ((flags & ConnectFlags.MULTIPATH) != 0) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "multipath is not supported");
        }
        if (!ia.transport.isValidAddress(addr)) {
            throw Fail.of(DatReturnType.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED,
                    "not an address of this transport: " + addr + " (CON-12)");
        }
        int ird;
        int ord;
        ep.txLock.lock();
        ep.lock.lock();
        try {
            ep.checkAlive();
            sm.connect(ep.configured());
            remoteAddress = addr;
            remotePortQual = qual;
            connectedQual = qual;
            connectFlags = flags;
            ird = ep.attr().maxRdmaReadIn();
            ord = ep.attr().maxRdmaReadOut();
        } finally {
            ep.lock.unlock();
            ep.txLock.unlock();
        }
        Transport.ConnectAttempt at = ia.transport.connect(addr, qual, data, ird, ord, this, ep.resources());
        boolean cancel;
        ep.lock.lock();
        try {
            EpStateMachine.State s = sm.current();
            cancel = s != ACTIVE_CONNECTION_PENDING && s != CONNECTED;
            if (s == ACTIVE_CONNECTION_PENDING) {
                attempt = at;
                localPortQual = at.localPortQual();
                if (timeout != Dat.TIMEOUT_INFINITE) {
                    timeoutTask = Timers.schedule(this::connectTimedOut, Integer.toUnsignedLong(timeout),
                            TimeUnit.MICROSECONDS);
                }
            }
        } finally {
            ep.lock.unlock();
        }
        if (cancel) {
            at.cancel();
        }
    }

    /** Checks private data against the provider limit (CON-18/19, CRA-03) and copies it. */
    byte[] privateData(int size, byte[] pd, int arg) {
        int max = ep.ia.limits.maxPrivateDataSize();
        if (size < 0 || size > max) {
            throw Fail.param(arg, "private data size " + size + " outside 0.." + max);
        }
        if (size > 0 && (pd == null || pd.length < size)) {
            throw Fail.param(arg + 1, "private data shorter than its size");
        }
        return size == 0 ? new byte[0] : java.util.Arrays.copyOf(pd, size);
    }

    /** §7.2 consumer timeout expired: ACTIVE_CONNECTION_PENDING → DISCONNECTED, TIMED_OUT. */
    private void connectTimedOut() {
        Transport.ConnectAttempt at;
        ep.lock.lock();
        try {
            if (sm.current() != ACTIVE_CONNECTION_PENDING) {
                return;
            }
            at = attempt;
        } finally {
            ep.lock.unlock();
        }
        if (at != null) {
            at.cancel();
        }
        enterDisconnectedFrom(ACTIVE_CONNECTION_PENDING, EventNumber.CONNECTION_EVENT_TIMED_OUT, Channel.CLOSE_SILENT);
    }

    @Override
    public ChannelSink established(Channel ch, byte[] pd) {
        ep.lock.lock();
        try {
            if (sm.current() != ACTIVE_CONNECTION_PENDING || ep.freed) {
                return null;
            }
            ep.channel = ch;
            localPortQual = ch.localPortQual();
            peerPrivateData = pd == null ? new byte[0] : pd;
            sm.activeEstablished();
            cancelTimer();
            attempt = null;
            connectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, peerPrivateData);
            return ep;
        } finally {
            ep.lock.unlock();
        }
    }

    @Override
    public void peerRejected() {
        enterDisconnectedFrom(ACTIVE_CONNECTION_PENDING, EventNumber.CONNECTION_EVENT_PEER_REJECTED,
                Channel.CLOSE_SILENT);
    }

    @Override
    public void nonPeerRejected() {
        enterDisconnectedFrom(ACTIVE_CONNECTION_PENDING, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED,
                Channel.CLOSE_SILENT);
    }

    @Override
    public void unreachable() {
        enterDisconnectedFrom(ACTIVE_CONNECTION_PENDING, EventNumber.CONNECTION_EVENT_UNREACHABLE,
                Channel.CLOSE_SILENT);
    }

    // ================================================================== passive side

    /** {@code dat_cr_accept} with this EP (called by {@link CoreCr}); the CR is consumed on success. */
    void accept(CoreCr cr, byte[] pd) {
        ep.txLock.lock();
        ep.lock.lock();
        try {
            ep.checkAlive();
            sm.accept(cr.carriedEp == null, cr.carriedEp == ep, ep.configured());
            pendingCr = null;
            peerOf(cr);
            connectedQual = localPortQual;
        } finally {
            ep.lock.unlock();
            ep.txLock.unlock();
        }
        cr.request.accept(this, pd, ep.attr().maxRdmaReadIn(), ep.attr().maxRdmaReadOut(), ep.resources());
    }

    /** The RSP delivered its request: RESERVED → PASSIVE_CONNECTION_PENDING. */
    void reservedRequestArrived(CoreCr cr) {
        ep.lock.lock();
        try {
            rsp = null;
            pendingCr = cr;
            sm.rspRequestArrived();
            peerOf(cr);
        } finally {
            ep.lock.unlock();
        }
    }

    /**
     * {@code dat_cr_reject} of the request that carries this EP: PASSIVE_CONNECTION_PENDING → UNCONNECTED,
     * TENTATIVE_CONNECTION_PENDING → provider control (a provider-created EP is destroyed).
     */
    void requestRejected() {
        ep.lock.lock();
        try {
            pendingCr = null;
            remoteAddress = null;
            remotePortQual = 0;
            sm.crReject();
        } finally {
            ep.lock.unlock();
        }
        if (ep.providerCreated) {
            ep.destroy();
            ep.ia.unregister(ep);
        }
    }

    /** {@code dat_rsp_create}: UNCONNECTED → RESERVED. */
    void reserve(CoreRsp r) {
        ep.lock.lock();
        try {
            sm.rspCreate();
            rsp = r;
        } finally {
            ep.lock.unlock();
        }
    }

    /** {@code dat_rsp_free}: RESERVED → UNCONNECTED (only by the RSP that reserved the EP). */
    void unreserve(CoreRsp r) {
        ep.lock.lock();
        try {
            if (rsp == r && sm.rspFree()) {
                rsp = null;
            }
        } finally {
            ep.lock.unlock();
        }
    }

    @Override
    public ChannelSink established(Channel ch) {
        ep.lock.lock();
        try {
            if (sm.current() != COMPLETION_PENDING || ep.freed) {
                return null;
            }
            ep.channel = ch;
            sm.passiveEstablished();
            connectionEvent(EventNumber.CONNECTION_EVENT_ESTABLISHED, null);
            return ep;
        } finally {
            ep.lock.unlock();
        }
    }

    @Override
    public void acceptFailed() {
        enterDisconnectedFrom(COMPLETION_PENDING, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
                Channel.CLOSE_SILENT);
    }

    // ================================================================== disconnect

    /** {@code dat_ep_disconnect} (flags checked by the caller). */
    void disconnect(int flags) {
        Transport.ConnectAttempt at = null;
        boolean graceful = false;
        ep.txLock.lock();
        try {
            ep.lock.lock();
            try {
                EpStateMachine.State s = sm.current();
                switch (s) {
                    case DISCONNECTED:
                        return; // DSC-13
                    case UNCONNECTED, RESERVED, PASSIVE_CONNECTION_PENDING, TENTATIVE_CONNECTION_PENDING:
                        throw EpStateMachine.invalid(s, "disconnect (DSC-14)");
                    case DISCONNECT_PENDING:
                        if (flags == CloseFlags.GRACEFUL) {
                            return; // DSC-08, AMB-15
                        }
                        break;
                    case CONNECTED:
                        if (flags == CloseFlags.GRACEFUL) {
                            // DSC-06: let outstanding requests finish. State first, then the counters
                            // again: a completion that ran before DP was visible saw state C and did not
                            // end the disconnect, so if nothing is left now, end it here (the
                            // completion side does the same check the other way round).
                            sm.gracefulDisconnect();
                            if (!ep.requests().empty()) {
                                return;
                            }
                            graceful = true;
                        }
                        break;
                    case ACTIVE_CONNECTION_PENDING:
                        at = attempt;
                        break;
                    default:
                        break;
                }
            } finally {
                ep.lock.unlock();
            }
            if (at != null) {
                at.cancel();
            }
            if (graceful) {
                endGracefulDisconnect();
                return;
            }
            enterDisconnected(EventNumber.CONNECTION_EVENT_DISCONNECTED, Channel.CLOSE_DISCONNECT);
        } finally {
            ep.txLock.unlock();
        }
    }

    /**
     * A graceful disconnect whose requests all finished: the transport drains the connection and reports its
     * end ({@link Channel#disconnectGracefully}: DISCONNECTED once the peer has everything); a transport with
     * nothing to wait for ends it now.
     */
    void endGracefulDisconnect() {
        ep.txLock.lock();
        try {
            Channel ch = ep.channel;
            if (sm.current() != DISCONNECT_PENDING || (ch != null && ch.disconnectGracefully())) {
                return;
            }
            enterDisconnected(EventNumber.CONNECTION_EVENT_DISCONNECTED, Channel.CLOSE_DISCONNECT);
        } finally {
            ep.txLock.unlock();
        }
    }

    /**
     * A transport's report about an established connection: it counts only while the EP is CONNECTED or
     * DISCONNECT_PENDING. A report that arrives late (the consumer already disconnected, reset and is
     * connecting again) must not end the next connection attempt (§7.2 allows no BROKEN in ACP).
     */
    void enterDisconnectedFromConnection(EventNumber event, int closeMode) {
        ep.txLock.lock();
        try {
            if (sm.connectedOrDraining()) {
                enterDisconnected(event, closeMode);
            }
        } finally {
            ep.txLock.unlock();
        }
    }

    /** Enters D only if the EP is still in {@code from} (connection outcomes race with other transitions). */
    private void enterDisconnectedFrom(EpStateMachine.State from, EventNumber event, int closeMode) {
        ep.txLock.lock();
        try {
            if (sm.current() != from) {
                return;
            }
            enterDisconnected(event, closeMode);
        } finally {
            ep.txLock.unlock();
        }
    }

    /**
     * Enters DISCONNECTED (§7.5): stops the transport, flushes every outstanding request and receive, then
     * reports {@code event} on the connect EVD, so that completions precede the connection event (DSC-12).
     */
    void enterDisconnected(EventNumber event, int closeMode) {
        ep.txLock.lock();
        try {
            Channel ch;
            ep.lock.lock();
            try {
                if (ep.freed || !sm.disconnected()) {
                    return;
                }
                ep.flushPending = true;
                ch = ep.channel;
                cancelTimer();
            } finally {
                ep.lock.unlock();
            }
            if (ch != null) {
                ch.close(closeMode);
            }
            ep.lock.lock();
            try {
                ep.flushLocked();
                ep.flushPending = false;
                if (event != null) {
                    connectionEvent(event, null);
                }
            } finally {
                ep.lock.unlock();
            }
        } finally {
            ep.txLock.unlock();
        }
    }

    /** Reports a connection event to the connect EVD and to JFR ({@link JfrEvents}); EP lock held. */
    private void connectionEvent(EventNumber n, byte[] pd) {
        JfrEvents.connection(ep, n, remoteAddress, connectedQual);
        CoreEvd evd = ep.connectEvd();
        if (evd != null) {
            evd.postConnection(n, ep, pd);
        }
    }

    /** Cancels the connect timeout, if any (EP lock held). */
    void cancelTimer() {
        ScheduledFuture<?> t = timeoutTask;
        if (t != null) {
            t.cancel(false);
            timeoutTask = null;
        }
    }

    /** {@code dat_ep_reset}: forgets the old connection (txLock and the EP lock held). */
    void clear() {
        attempt = null;
        remoteAddress = null;
        remotePortQual = 0;
        localPortQual = 0;
        peerPrivateData = new byte[0];
    }
}
