package io.jdat.mem;

import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;

/** A listening qualifier of a {@link MemTransport}. */
final class MemListener implements Transport.Listener {
    final MemTransport transport;
    final MemFabric.Key key;
    final IncomingHandler handler;

    MemListener(MemTransport transport, MemFabric.Key key, IncomingHandler handler) {
        this.transport = transport;
        this.key = key;
        this.handler = handler;
    }

    @Override
    public long connQual() {
        return key.qual();
    }

    @Override
    public void close() {
        MemFabric.LISTENERS.remove(key, this);
        transport.listeners.remove(this);
    }
}
