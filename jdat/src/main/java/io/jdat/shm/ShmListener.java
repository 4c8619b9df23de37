package io.jdat.shm;

import io.jdat.spi.AcceptBackoff;
import io.jdat.spi.IncomingHandler;
import io.jdat.transport.AcceptLoop;
import io.jdat.transport.StreamListener;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A listening qualifier: the Unix domain socket {@code q-<qual>} in the IA's instance directory (owner-only,
 * like the directory), with a virtual thread that accepts requesters and hands each to a {@link ShmPassive}. The
 * thread lives through accept failures (EMFILE...: a back-off, then {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR}
 * on the async EVD when they persist; {@link AcceptBackoff}, logger {@code io.jdat.shm}).
 */
final class ShmListener extends StreamListener<ShmTransport> {
    private static final System.Logger LOG = System.getLogger("io.jdat.shm");
    private final long qual;
    private final Path path;

    ShmListener(ShmTransport transport, long qual, IncomingHandler handler) throws IOException {
        Path path = ShmTransport.listenerPath(transport.instance.directory(), qual);
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            s.bind(UnixDomainSocketAddress.of(path), AcceptLoop.BACKLOG);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        this.qual = qual;
        this.path = path;
        super(transport, handler, s, LOG, "jdat-shm-listen-" + qual);
        // the classes that read a connection request (see linkHandshake)
        linkHandshake(MethodHandles.lookup(), ShmPassive.class, CmMessage.class, CmMessage.Frame.class,
                CmMessage.Request.class);
    }

    /** Each requester goes to a {@link ShmPassive}. */
    @Override
    protected void accepted(SocketChannel ch) {
        ShmPassive p = new ShmPassive(transport, this, ch);
        p.launch("jdat-shm-passive", p::handshake);
    }

    @Override
    public long connQual() {
        return qual;
    }

    /** The socket file goes with the socket. */
    @Override
    protected void released() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // the instance directory goes with the IA
        }
    }

    @Override
    public String toString() {
        return "shm listener " + path;
    }
}
