package io.jdat.shm;

import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A listening qualifier: the Unix domain socket {@code q-<qual>} in the IA's instance directory (owner-only,
 * like the directory), with a virtual thread that accepts requesters and hands each to a {@link ShmPassive}.
 */
final class ShmListener implements Transport.Listener {
    private final ShmTransport transport;
    private final long qual;
    final IncomingHandler handler;
    private final Path path;
    private final ServerSocketChannel server;
    private volatile boolean closed;

    ShmListener(ShmTransport transport, long qual, IncomingHandler handler) throws IOException {
        this.transport = transport;
        this.qual = qual;
        this.handler = handler;
        this.path = ShmTransport.listenerPath(transport.instance.directory(), qual);
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            s.bind(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            s.close();
            throw e;
        }
        this.server = s;
    }

    void start() {
        Thread.ofVirtual().name("jdat-shm-listen-" + qual).start(this::acceptLoop);
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    transport.trace(this, "accept failed: " + e);
                }
                return;
            }
            ShmPassive p = new ShmPassive(transport, this, ch);
            transport.incoming.add(p);
            Thread.ofVirtual().name("jdat-shm-passive").start(p::handshake);
        }
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
