package io.jdat.core;

import io.jdat.spi.ActiveHandler;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import java.net.SocketAddress;

/**
 * A transport for core tests that only open an IA: it has no address, listens and connects nowhere (both fail the
 * test if reached) and closes quietly. A test gives it the {@link #limits()} it needs.
 */
abstract class InertTransport implements Transport {
    @Override
    public SocketAddress address() {
        return null;
    }

    @Override
    public boolean isValidAddress(SocketAddress address) {
        return false;
    }

    @Override
    public Listener listen(long connQual, boolean any, IncomingHandler handler) {
        throw new AssertionError("not reached");
    }

    @Override
    public ConnectAttempt connect(SocketAddress remote, long remoteConnQual, byte[] privateData, int ird, int ord,
            ActiveHandler handler) {
        throw new AssertionError("not reached");
    }

    @Override
    public void close() {
    }
}
