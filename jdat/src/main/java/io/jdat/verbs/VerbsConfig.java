package io.jdat.verbs;

import io.jdat.transport.IaParameters;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Enumeration;

/**
 * The settings of one {@code verbs} IA, from its registry entry's IA parameters (dat.conf field 7), in DAPL's
 * style ({@code "ib0 0"} in DAPL's {@code OpenIB-cma} lines): the RDMA network interface name or its IPv4
 * address, then optionally the device port (0 or absent: the port rdma_cm picks for the address).
 *
 * <pre>
 *   ofa-siw0 u1.2 threadsafe default verbs jdat.1.0 "eth0 0" ""
 *   ofa-mlx5 u1.2 threadsafe default verbs jdat.1.0 "192.168.10.5 1" ""
 * </pre>
 *
 * @param address the IA address: the interface's first IPv4 address, or the address given
 * @param netdev  the interface name as given, or {@code null} when an address was given
 * @param port    the device port, 0 for any
 */
record VerbsConfig(InetAddress address, String netdev, int port) {
    /** Parses IA parameters; a bad word is {@code DAT_INVALID_PARAMETER}. */
    static VerbsConfig parse(String params) {
        String[] w = IaParameters.words(params);
        if (w.length == 0) {
            throw IaParameters.invalid("verbs IA parameters: expected \"<netdev|IPv4 address> [port]\", e.g. \"ib0 0\"");
        }
        if (w.length > 2) {
            throw IaParameters.invalid("verbs IA parameters: too many words in \"" + params.trim()
                    + "\" (expected \"<netdev|IPv4 address> [port]\")");
        }
        int port = 0;
        if (w.length == 2) {
            try {
                port = Integer.parseInt(w[1]);
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 0 || port > 255) {
                throw IaParameters.invalid("verbs IA parameter: port " + w[1]
                        + " is not 0..255");
            }
        }
        String name = w[0];
        if (looksLikeIpv4(name)) {
            try {
                return new VerbsConfig(InetAddress.getByName(name), null, port);
            } catch (UnknownHostException e) {
                throw IaParameters.invalid("verbs IA parameter: bad address " + name);
            }
        }
        return new VerbsConfig(netdevAddress(name), name, port);
    }

    private static boolean looksLikeIpv4(String w) {
        return w.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    }

    private static InetAddress netdevAddress(String name) {
        try {
            NetworkInterface ni = NetworkInterface.getByName(name);
            if (ni == null) {
                throw IaParameters.invalid("verbs IA parameter: no network interface "
                        + name);
            }
            for (Enumeration<InetAddress> e = ni.getInetAddresses(); e.hasMoreElements();) {
                InetAddress a = e.nextElement();
                if (a instanceof Inet4Address) {
                    return a;
                }
            }
            throw IaParameters.invalid("verbs IA parameter: interface " + name
                    + " has no IPv4 address");
        } catch (SocketException e) {
            throw IaParameters.invalid("verbs IA parameter: " + name + ": " + e);
        }
    }
}
