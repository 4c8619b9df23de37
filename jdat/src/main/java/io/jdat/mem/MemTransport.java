package io.jdat.mem;

import io.jdat.DatReturnType;
import io.jdat.DatException;
import io.jdat.Qos;
import io.jdat.spi.ActiveHandler;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;
import io.jdat.spi.TransportLimits;
import io.jdat.transport.IaTransport;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/** The {@code mem} transport of one open IA. */
final class MemTransport extends IaTransport<MemAddress, MemConnection> {
    /** What {@code mem} can carry: messages and RDMA up to 1 GiB, 256 bytes of private data. */
    static final TransportLimits LIMITS = new TransportLimits(1L << 30, 1L << 30, 256, 64, 64,
            Qos.BEST_EFFORT | Qos.HIGH_THROUGHPUT | Qos.LOW_LATENCY, "mem");
    private static final AtomicLong PORTS = new AtomicLong(49152);

    MemTransport(MemAddress address) {
        super("mem", address, LIMITS);
        MemFabric.up(this);
    }

    @Override
    public boolean isValidAddress(SocketAddress a) {
        return a instanceof MemAddress;
    }

    @Override
    public Listener listen(long qual, boolean any, IncomingHandler handler) {
        if (any) {
            return listenOnAny(q -> tryListen(q, handler));
        }
        MemListener l = tryListen(qual, handler);
        if (l == null) {
            throw new DatException(DatReturnType.CONN_QUAL_IN_USE, "qualifier " + qual + " in use at " + address());
        }
        return l;
    }

    private MemListener tryListen(long qual, IncomingHandler handler) {
        MemFabric.Key key = new MemFabric.Key(address(), qual);
        MemListener l = new MemListener(this, key, handler);
        if (MemFabric.LISTENERS.putIfAbsent(key, l) != null) {
            return null;
        }
        listeners.add(l);
        return l;
    }

    @Override
    public ConnectAttempt connect(SocketAddress remote, long remoteQual, byte[] privateData, int ird, int ord,
            ActiveHandler handler) {
        MemAttempt attempt = new MemAttempt(this, PORTS.getAndIncrement(), handler);
        MemAddress to = (MemAddress) remote;
        MemFabric.cm(() -> {
            if (!attempt.pending()) {
                return;
            }
            if (!MemFabric.reachable(to)) {
                if (attempt.finish()) {
                    handler.unreachable();
                }
                return;
            }
            MemListener l = MemFabric.LISTENERS.get(new MemFabric.Key(to, remoteQual));
            if (l == null || l.transport.closed()) {
                if (attempt.finish()) {
                    handler.nonPeerRejected();
                }
                return;
            }
            MemRequest req = new MemRequest(attempt, l.transport, remoteQual, privateData);
            l.transport.incoming.add(req);
            if (!l.handler.onRequest(req)) {
                req.refuse();
            }
        });
        return attempt;
    }

    @Override
    protected void abandon(MemConnection c) {
        c.abandon(this);
    }

    @Override
    protected void releaseResources() {
        MemFabric.down(this);
    }
}
