package io.jdat.mem;

import io.jdat.spi.ActiveHandler;
import io.jdat.spi.IncomingRequest;
import io.jdat.spi.PassiveHandler;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** A connection request delivered to a listener; answered once by accept, reject or refuse. */
final class MemRequest implements IncomingRequest {
    private final MemAttempt attempt;
    private final MemTransport passive;
    private final long qual;
    private final byte[] privateData;
    private final AtomicBoolean answered = new AtomicBoolean();

    MemRequest(MemAttempt attempt, MemTransport passive, long qual, byte[] privateData) {
        this.attempt = attempt;
        this.passive = passive;
        this.qual = qual;
        this.privateData = privateData;
    }

    @Override
    public SocketAddress remoteAddress() {
        return attempt.transport.address();
    }

    @Override
    public long remotePortQual() {
        return attempt.localPortQual();
    }

    @Override
    public long connQual() {
        return qual;
    }

    @Override
    public byte[] privateData() {
        return privateData;
    }

    private boolean answer() {
        passive.requests.remove(this);
        return answered.compareAndSet(false, true);
    }

    @Override
    public void accept(PassiveHandler handler, byte[] acceptData, int rdmaReadIn, int rdmaReadOut) {
        if (!answer()) {
            return;
        }
        MemFabric.cm(() -> {
            if (passive.closed() && attempt.finish()) {
                attempt.handler.nonPeerRejected(); // CON-08: the acceptor's IA closed before the handshake
            }
            if (passive.closed() || attempt.transport.closed() || !attempt.finish()) {
                handler.acceptFailed(); // CRA-07: the requester gave up or vanished
                return;
            }
            MemConnection c = new MemConnection(attempt.transport, attempt.localPortQual(), passive, qual);
            c.establish(attempt.handler, acceptData, handler);
        });
    }

    @Override
    public void reject() {
        turnDown(ActiveHandler::peerRejected);
    }

    @Override
    public void refuse() {
        turnDown(ActiveHandler::nonPeerRejected);
    }

    /** Answers the request with no connection: the requester hears {@code outcome}, unless it gave up first. */
    private void turnDown(Consumer<ActiveHandler> outcome) {
        if (answer()) {
            MemFabric.cm(() -> {
                if (attempt.finish()) {
                    outcome.accept(attempt.handler);
                }
            });
        }
    }
}
