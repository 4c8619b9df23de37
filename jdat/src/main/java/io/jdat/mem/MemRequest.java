package io.jdat.mem;

import io.jdat.spi.ActiveHandler;
import io.jdat.spi.PassiveHandler;
import io.jdat.transport.ReceivedRequest;
import java.util.function.Consumer;

/** A connection request delivered to a listener; answered once by accept, reject or refuse. */
final class MemRequest extends ReceivedRequest {
    private final MemAttempt attempt;
    private final MemTransport passive;
    private final long qual;

    MemRequest(MemAttempt attempt, MemTransport passive, long qual, byte[] privateData) {
        super(new Fields(attempt.transport.address(), attempt.localPortQual(), qual, privateData));
        this.attempt = attempt;
        this.passive = passive;
        this.qual = qual;
    }

    private boolean answer() {
        passive.incoming.remove(this);
        return claimAnswer();
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

    /** The passive IA closes: the request is refused (the requester hears NON_PEER_REJECTED). */
    @Override
    protected void abort() {
        refuse();
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
