package io.jdat.mem;

import io.jdat.spi.ActiveHandler;
import io.jdat.transport.OutgoingAttempt;

/** An outgoing connection attempt: its outcome is reported at most once, and never after a cancel. */
final class MemAttempt extends OutgoingAttempt {
    final MemTransport transport;
    final ActiveHandler handler;

    MemAttempt(MemTransport transport, long localPortQual, ActiveHandler handler) {
        super(transport, localPortQual);
        this.transport = transport;
        this.handler = handler;
    }

    @Override
    protected void cancelled() {
        // nothing held: the request the peer sees finds the attempt no longer pending
    }
}
