package io.jdat.tcp;

import io.jdat.spi.AcceptBackoff;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import io.jdat.transport.AcceptLoop;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;

/**
 * A listening TCP port for a service point ({@code dat_psp_create}, {@code dat_rsp_create}): each accepted
 * TCP connection becomes an {@link MpaPassive} that reads the MPA Request and hands the core a
 * connection request. Accepts on a virtual thread, which lives through accept failures (EMFILE...: a back-off,
 * then {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} on the async EVD when they persist; {@link AcceptBackoff},
 * logger {@code io.jdat.tcp}).
 */
final class TcpListener implements Transport.Listener {
    private static final System.Logger LOG = System.getLogger("io.jdat.tcp");

    private final TcpTransport transport;
    private final ServerSocketChannel server;
    private final IncomingHandler handler;
    private final int port;
    private final AcceptBackoff backoff;
    private volatile boolean open = true;

    TcpListener(TcpTransport transport, InetSocketAddress bind, IncomingHandler handler) throws IOException {
        this.transport = transport;
        this.handler = handler;
        this.backoff = new AcceptBackoff(LOG, this, handler);
        ServerSocketChannel s = ServerSocketChannel.open();
        try {
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(bind, AcceptLoop.BACKLOG);
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

    /** Accepts until closed ({@link AcceptLoop}): each stream goes to an {@link MpaPassive}. */
    private void acceptLoop() {
        AcceptLoop.run(server, backoff, this::isOpen, s -> {
            MpaPassive p = new MpaPassive(transport, this, s);
            p.launch("jdat-tcp-passive-" + port, p::readRequest);
        }, e -> {
        });
    }

    @Override
    public void close() {
        open = false;
        backoff.close();
        transport.listeners.remove(this);
        try {
            server.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public String toString() {
        return "tcp listener :" + port;
    }
}
