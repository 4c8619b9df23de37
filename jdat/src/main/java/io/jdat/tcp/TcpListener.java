package io.jdat.tcp;

import io.jdat.spi.AcceptBackoff;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

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

    /**
     * Accepts until closed. A failed accept is retried with a back-off and reported when it persists
     * ({@link AcceptBackoff}); the loop ends only when the listener is closed, or, logged and reported, when
     * its socket was closed under it or an unexpected error escapes.
     */
    private void acceptLoop() {
        Throwable stop = null;
        try {
            while (open) {
                SocketChannel s;
                try {
                    s = server.accept();
                } catch (ClosedChannelException e) {
                    stop = e;
                    break;
                } catch (IOException e) {
                    if (!open) {
                        break;
                    }
                    backoff.failed(e);
                    continue;
                }
                backoff.accepted();
                try {
                    MpaPassive p = new MpaPassive(transport, this, s);
                    transport.incoming.add(p);
                    Thread.ofVirtual().name("jdat-tcp-passive-" + port).start(p::readRequest);
                } catch (RuntimeException | OutOfMemoryError e) {
                    // No thread for this one (e.g. out of memory): drop it, keep listening.
                    closeQuietly(s);
                    backoff.failed(e);
                }
            }
        } catch (RuntimeException | Error e) {
            stop = e;
            throw e;
        } finally {
            if (open && !transport.closed()) {
                backoff.stopped(stop != null ? stop : new IllegalStateException("accept loop ended"));
            }
        }
    }

    private static void closeQuietly(SocketChannel s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
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
