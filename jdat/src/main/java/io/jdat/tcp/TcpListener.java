package io.jdat.tcp;

import io.jdat.spi.AcceptBackoff;
import io.jdat.spi.IncomingHandler;
import io.jdat.transport.AcceptLoop;
import io.jdat.transport.StreamListener;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A listening TCP port for a service point ({@code dat_psp_create}, {@code dat_rsp_create}): each accepted
 * TCP connection becomes an {@link MpaPassive} that reads the MPA Request and hands the core a
 * connection request. Accepts on a virtual thread, which lives through accept failures (EMFILE...: a back-off,
 * then {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} on the async EVD when they persist; {@link AcceptBackoff},
 * logger {@code io.jdat.tcp}).
 */
final class TcpListener extends StreamListener<TcpTransport> {
    private static final System.Logger LOG = System.getLogger("io.jdat.tcp");

    private final int port;

    TcpListener(TcpTransport transport, InetSocketAddress bind, IncomingHandler handler) throws IOException {
        ServerSocketChannel s = ServerSocketChannel.open();
        int bound;
        try {
            s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            s.bind(bind, AcceptLoop.BACKLOG);
            bound = ((InetSocketAddress) s.getLocalAddress()).getPort();
        } catch (IOException e) {
            s.close();
            throw e;
        }
        this.port = bound;
        super(transport, handler, s, LOG, "jdat-tcp-listen-" + bound);
        // the classes that read an MPA Request (see linkHandshake)
        linkHandshake(MethodHandles.lookup(), Mpa.class, Mpa.Frame.class, Mpa.ProtocolException.class,
                MpaPassive.class);
    }

    @Override
    public long connQual() {
        return port;
    }

    /** Each stream goes to an {@link MpaPassive}. */
    @Override
    protected void accepted(SocketChannel ch) {
        MpaPassive p = new MpaPassive(transport, this, ch);
        p.launch("jdat-tcp-passive-" + port, p::readRequest);
    }

    @Override
    public String toString() {
        return "tcp listener :" + port;
    }
}
