package io.jdat.tcp;

import io.jdat.spi.ActiveHandler;
import io.jdat.spi.Transport;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@code dat_ep_connect} to a qualifier that is no TCP port (outside 1..65535): nobody can serve it, so it
 * is refused as a qualifier nobody listens on ({@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}, CON-08),
 * reported from a virtual thread unless cancelled first. It never reaches the port its low bits would name
 * (a qualifier never aliases another).
 */
final class UnservedQualifier implements Transport.ConnectAttempt {
    private final AtomicBoolean pending = new AtomicBoolean(true);

    private UnservedQualifier() {
    }

    /** Starts the attempt: {@code handler} hears {@link ActiveHandler#nonPeerRejected()} soon. */
    static UnservedQualifier start(TcpTransport transport, long qual, ActiveHandler handler) {
        UnservedQualifier a = new UnservedQualifier();
        transport.trace(a, "qualifier " + Long.toUnsignedString(qual) + " is not a TCP port: NON_PEER_REJECTED");
        Thread.ofVirtual().name("jdat-tcp-connect-unserved").start(() -> {
            if (a.pending.compareAndSet(true, false)) {
                handler.nonPeerRejected();
            }
        });
        return a;
    }

    /** No local port is bound: the attempt never leaves this host. */
    @Override
    public long localPortQual() {
        return 0;
    }

    @Override
    public void cancel() {
        pending.set(false);
    }

    @Override
    public String toString() {
        return "tcp connect to an unserved qualifier";
    }
}
