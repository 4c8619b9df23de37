package io.jdat.tcp;

import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A listening TCP port for a service point ({@code dat_psp_create}, {@code dat_rsp_create}): each accepted
 * TCP connection becomes an {@link MpaPassive} that reads the MPA Request and hands the core a
 * connection request. Accepts on a virtual thread.
 */
final class TcpListener implements Transport.Listener {
    private final TcpTransport transport;
    private final ServerSocketChannel server;
    private final IncomingHandler handler;
    private final int port;
    private volatile boolean open = true;

    TcpListener(TcpTransport transport, InetSocketAddress bind, IncomingHandler handler) throws IOException {
        this.transport = transport;
        this.handler = handler;
        ServerSocketChannel s = ServerSocketChannel.open();
        try {
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(bind, 128);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        this.server = s;
        this.port = ((InetSocketAddress) s.getLocalAddress()).getPort();
        Thread.ofVirtual().name("jdat-tcp-listen-" + port).start(this::acceptLoop);
    }

    @Override
    public long connQual() {
        return port;
    }

    boolean isOpen() {
        return open && !transport.closed();
    }

    IncomingHandler handler() {
        return handler;
    }

    private void acceptLoop() {
        while (open) {
            SocketChannel s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            MpaPassive p = new MpaPassive(transport, this, s);
            transport.incoming.add(p);
            Thread.ofVirtual().name("jdat-tcp-passive-" + port).start(p::readRequest);
        }
    }

    @Override
    public void close() {
        open = false;
        transport.listeners.remove(this);
        try {
            server.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
