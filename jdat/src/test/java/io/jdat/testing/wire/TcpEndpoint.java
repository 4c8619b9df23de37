package io.jdat.testing.wire;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One end of a TCP connection as seen in a capture: an IP address and a port.
 *
 * @param address the IPv4 or IPv6 address
 * @param port the TCP port, 0 to 65535
 */
public record TcpEndpoint(InetAddress address, int port) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if {@code address} is null
     * @throws IllegalArgumentException if {@code port} is outside 0 to 65535
     */
    public TcpEndpoint {
        Objects.requireNonNull(address, "address");
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /**
     * The same endpoint as a socket address.
     *
     * @return a resolved socket address for this address and port
     */
    public InetSocketAddress socketAddress() {
        return new InetSocketAddress(address, port);
    }

    /**
     * The endpoint as {@code 10.9.0.2:45946} (IPv4) or {@code [::1]:7174} (IPv6).
     *
     * @return the textual form, without host name lookup
     */
    @Override
    public String toString() {
        String host = address.getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
