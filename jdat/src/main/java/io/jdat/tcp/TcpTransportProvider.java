package io.jdat.tcp;

import io.jdat.transport.NamedTransportProvider;

/**
 * The {@code tcp} transport: DAT between hosts over standard iWARP (MPA / DDP / RDMAP on TCP), so a Java
 * program with no RDMA hardware can do RDMA with another host, including the Linux kernel's soft-iWARP.
 * An IA address is an {@link java.net.InetSocketAddress} (its port is ignored); a connection qualifier is
 * a TCP port. IA parameters: see {@link TcpConfig}.
 */
public final class TcpTransportProvider extends NamedTransportProvider {
    /** The library name in dat.conf. */
    public static final String NAME = "tcp";

    /** For {@link java.util.ServiceLoader}. */
    public TcpTransportProvider() {
        super(NAME, (iaName, iaParams) -> new TcpTransport(iaName, TcpConfig.parse(iaParams)));
    }
}
