package io.jdat.mem;

import io.jdat.spi.ActiveHandler;
import io.jdat.spi.Transport;
import java.util.concurrent.atomic.AtomicInteger;

/** An outgoing connection attempt: its outcome is reported at most once, and never after a cancel. */
final class MemAttempt implements Transport.ConnectAttempt {
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;

    final MemTransport transport;
    final long localPortQual;
    final ActiveHandler handler;
    private final AtomicInteger state = new AtomicInteger(PENDING);

    MemAttempt(MemTransport transport, long localPortQual, ActiveHandler handler) {
        this.transport = transport;
        this.localPortQual = localPortQual;
        this.handler = handler;
    }

    @Override
    public long localPortQual() {
        return localPortQual;
    }

    boolean pending() {
        return state.get() == PENDING;
    }

    /** Claims the right to report the outcome. */
    boolean finish() {
        return state.compareAndSet(PENDING, DONE);
    }

    @Override
    public void cancel() {
        state.compareAndSet(PENDING, CANCELLED);
    }
}
