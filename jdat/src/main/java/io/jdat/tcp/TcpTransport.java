package io.jdat.tcp;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.Qos;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import io.jdat.transport.SelectorTransport;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;

/**
 * The {@code tcp} transport of one open IA: its listeners ({@link TcpListener}), its connection attempts
 * ({@link MpaActive}), its connections ({@link TcpConnection}) and their progress thread
 * ({@link TcpProgress}).
 *
 * <p>Connection events are logged through {@link System.Logger} {@code io.jdat.tcp} at {@code DEBUG}; the system
 * property {@code jdat.tcp.trace=true} raises them to {@code INFO}, which the default backend prints.
 */
final class TcpTransport extends SelectorTransport<InetSocketAddress, TcpConnection, TcpProgress> {
    /** Messages and RDMA up to 1 GiB; the configured private data; IRD and ORD up to 64. */
    static final long MAX_TRANSFER = 1L << 30;
    static final int MAX_READ_DEPTH = 64;

    final TcpConfig config;

    TcpTransport(String iaName, TcpConfig config) {
        InetAddress host = config.bindHost();
        if (host.isAnyLocalAddress()) {
            try {
                host = InetAddress.getLocalHost();
            } catch (UnknownHostException e) {
                host = InetAddress.getLoopbackAddress();
            }
        }
        super("tcp", new InetSocketAddress(host, 0), new TransportLimits(MAX_TRANSFER, MAX_TRANSFER, config.maxPd(),
                MAX_READ_DEPTH, MAX_READ_DEPTH, Qos.BEST_EFFORT | Qos.HIGH_THROUGHPUT, "tcp"),
                new TcpProgress(iaName));
        this.config = config;
    }

    @Override
    public boolean isValidAddress(SocketAddress a) {
        return a instanceof InetSocketAddress i && !i.isUnresolved();
    }

    /** True when {@code qual} names a TCP port (1..65535): the only qualifiers tcp serves; no other aliases one. */
    static boolean isPort(long qual) {
        return qual >= 1 && qual <= 65535;
    }

    @Override
    public Listener listen(long connQual, boolean any, IncomingHandler handler) {
        if (!any && !isPort(connQual)) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    "connection qualifier " + Long.toUnsignedString(connQual) + " is not a TCP port (1..65535)");
        }
        try {
            TcpListener l = new TcpListener(this, new InetSocketAddress(config.bindHost(), any ? 0 : (int) connQual),
                    handler);
            l.start();
            return l;
        } catch (BindException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("in use")) {
                throw new DatException(DatReturnType.CONN_QUAL_IN_USE, "TCP port " + connQual + " is in use");
            }
            throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE, "cannot listen on TCP port " + connQual + ": " + m);
        } catch (IOException e) {
            throw new DatException(DatReturnType.CONN_QUAL_UNAVAILABLE, "cannot listen: " + e.getMessage());
        }
    }

    @Override
    public ConnectAttempt connect(SocketAddress remote, long remoteConnQual, byte[] privateData, int ird, int ord,
            ActiveHandler handler) {
        if (!isPort(remoteConnQual)) {
            return UnservedQualifier.start(this, remoteConnQual, handler);
        }
        InetSocketAddress r = (InetSocketAddress) remote;
        return MpaActive.start(this, new InetSocketAddress(r.getAddress(), (int) remoteConnQual), privateData,
                ird, ord, handler);
    }

    /**
     * {@code dat_ia_close} graceful: connections still closing gracefully (their EPs disconnected or freed)
     * first hand the peer their last bytes and see its FIN, for at most {@code close_timeout}; then as
     * {@link #close}.
     */
    @Override
    public void closeGracefully() {
        stopListening();
        long deadline = System.nanoTime() + config.closeTimeoutMillis() * 1_000_000L;
        for (TcpConnection c : connections) {
            if (!c.closed) {
                c.close(io.jdat.spi.Channel.CLOSE_DISCONNECT); // none should be left: their EPs are gone
            }
        }
        while (!connections.isEmpty() && System.nanoTime() - deadline < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000L);
        }
        close();
    }

    @Override
    protected void abandon(TcpConnection c) {
        c.abandon();
    }

    @Override
    protected void releaseResources() {
        progress.shutdown();
    }
}
