package io.jdat.tcp;

import io.jdat.spi.Transport;
import io.jdat.spi.TransportProvider;

/**
 * The {@code tcp} transport: DAT between hosts over standard iWARP (MPA / DDP / RDMAP on TCP), so a Java
 * program with no RDMA hardware can do RDMA with another host, including the Linux kernel's soft-iWARP.
 * An IA address is an {@link java.net.InetSocketAddress} (its port is ignored); a connection qualifier is
 * a TCP port. IA parameters: see {@link TcpConfig}.
 */
public final class TcpTransportProvider implements TransportProvider {
    /** The library name in dat.conf. */
    public static final String NAME = "tcp";

    /** For {@link java.util.ServiceLoader}. */
    public TcpTransportProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Transport open(String iaName, String iaParams) {
        return new TcpTransport(iaName, TcpConfig.parse(iaParams));
    }
}
