package io.jdat.shm;

import io.jdat.spi.AcceptBackoff;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import io.jdat.transport.AcceptLoop;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A listening qualifier: the Unix domain socket {@code q-<qual>} in the IA's instance directory (owner-only,
 * like the directory), with a virtual thread that accepts requesters and hands each to a {@link ShmPassive}. The
 * thread lives through accept failures (EMFILE...: a back-off, then {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR}
 * on the async EVD when they persist; {@link AcceptBackoff}, logger {@code io.jdat.shm}).
 */
final class ShmListener implements Transport.Listener {
    private static final System.Logger LOG = System.getLogger("io.jdat.shm");
    private final ShmTransport transport;
    private final long qual;
    final IncomingHandler handler;
    private final Path path;
    private final ServerSocketChannel server;
    private final AcceptBackoff backoff;
    private volatile boolean closed;

    ShmListener(ShmTransport transport, long qual, IncomingHandler handler) throws IOException {
        this.transport = transport;
        this.qual = qual;
        this.handler = handler;
        this.backoff = new AcceptBackoff(LOG, this, handler);
        this.path = ShmTransport.listenerPath(transport.instance.directory(), qual);
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            s.bind(UnixDomainSocketAddress.of(path), AcceptLoop.BACKLOG);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        this.server = s;
    }

    void start() {
        Thread.ofVirtual().name("jdat-shm-listen-" + qual).start(this::acceptLoop);
    }

    /** Accepts until closed ({@link AcceptLoop}): each requester goes to a {@link ShmPassive}. */
    private void acceptLoop() {
        AcceptLoop.run(server, backoff, () -> !closed, ch -> {
            ShmPassive p = new ShmPassive(transport, this, ch);
            p.launch("jdat-shm-passive", p::handshake);
        }, e -> transport.trace(this, "accept failed: " + e));
    }

    boolean closed() {
        return closed;
    }

    @Override
    public long connQual() {
        return qual;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        backoff.close();
        try {
            server.close();
        } catch (IOException e) {
            // gone either way
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // the instance directory goes with the IA
        }
        transport.listeners.remove(this);
    }

    @Override
    public String toString() {
        return "shm listener " + path;
    }
}
