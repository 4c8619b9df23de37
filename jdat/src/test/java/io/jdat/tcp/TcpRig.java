package io.jdat.tcp;

import io.jdat.DtoCompletionStatus;
import io.jdat.spi.ChannelSink;
import io.jdat.spi.RecvBuffer;
import io.jdat.spi.RemoteRegion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A TCP connection over loopback wrapped as a {@link TcpConnection} of a transport (no IA, no MPA) and
 * started with a sink that takes nothing ({@link IdleSink}, unless a test gives its own), and its raw peer:
 * for tests of the progress thread and the data path's calls.
 */
final class TcpRig implements AutoCloseable {
    final TcpTransport transport;
    final ServerSocketChannel server = ServerSocketChannel.open();
    final SocketChannel peer;
    /** The connection's socket. */
    final SocketChannel mine;
    final TcpConnection conn;

    /** @param name the transport's (and its progress thread's) name */
    TcpRig(String name) throws Exception {
        this(name, new IdleSink(), false);
    }

    /**
     * @param name      the transport's (and its progress thread's) name
     * @param followMss the connection's MULPDU (1024 at first) follows its MSS, as an IA's without a configured
     *                  {@code mulpdu} does
     */
    TcpRig(String name, boolean followMss) throws Exception {
        this(name, new IdleSink(), followMss);
    }

    /**
     * @param name      the transport's (and its progress thread's) name
     * @param sink      what the connection reports to in place of the core
     * @param followMss as in {@link #TcpRig(String, boolean)}
     */
    TcpRig(String name, ChannelSink sink, boolean followMss) throws Exception {
        this(name, sink, 1024, followMss);
    }

    /**
     * @param name      the transport's (and its progress thread's) name
     * @param sink      what the connection reports to in place of the core
     * @param mulpdu    the connection's MULPDU
     * @param followMss as in {@link #TcpRig(String, boolean)}
     */
    TcpRig(String name, ChannelSink sink, int mulpdu, boolean followMss) throws Exception {
        transport = new TcpTransport(name, TcpConfig.parse("127.0.0.1"));
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        peer = SocketChannel.open(server.getLocalAddress());
        mine = server.accept();
        conn = new TcpConnection(transport, mine, false, mulpdu, 4, 4, false, false, followMss);
        transport.connections.add(conn);
        conn.start(sink);
    }

    @Override
    public void close() throws Exception {
        transport.close();
        peer.close();
        server.close();
    }

    /** A sink with no receive buffers and no memory: nothing in these tests reaches it but completions. */
    static class IdleSink implements ChannelSink {
        @Override
        public RecvBuffer takeRecv() {
            return null;
        }

        @Override
        public void completeRecv(RecvBuffer buffer, long length, boolean solicited) {
        }

        @Override
        public boolean isAccepting() {
            return true;
        }

        @Override
        public int resolveRemote(int rmrContext, long address, long length, int privilege, RemoteRegion out) {
            return RemoteRegion.CLOSED;
        }

        @Override
        public void placed() {
        }

        @Override
        public int holdSource(int rmrContext, long address, long length, RemoteRegion out) {
            return RemoteRegion.ACCESS_ERROR;
        }

        @Override
        public void sourced() {
        }

        @Override
        public void requestCompleted(DtoCompletionStatus status, long length) {
        }

        @Override
        public void remoteDisconnected() {
        }

        @Override
        public void broken() {
        }
    }
}
