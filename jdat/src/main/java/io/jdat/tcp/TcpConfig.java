package io.jdat.tcp;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The settings of one {@code tcp} IA, from its registry entry's IA parameters (dat.conf field 7): a
 * space-separated list whose first word may be the host to bind, then {@code key=value} words.
 *
 * <pre>
 *   127.0.0.1 crc=on mulpdu=1442 p2p=on rev=2 pd=252
 * </pre>
 *
 * <ul>
 *   <li>host: the local address the IA binds and reports; empty means every interface (the reported
 *       address is then this host's name, else loopback);</li>
 *   <li>{@code crc}: ask for MPA CRC32c ({@code off} by default, as {@code siw}); a peer that asks gets it;</li>
 *   <li>{@code mulpdu}: largest DDP segment, header included (RFC 5044 MULPDU); default 65496 towards a
 *       loopback peer, else 1442 (an Ethernet MSS of 1448 minus MPA's 6 bytes);</li>
 *   <li>{@code p2p}: offer RFC 6581 peer-to-peer mode with a zero-length RDMA Write as the ready-to-receive
 *       message, so the passive side sees ESTABLISHED only when the active side is ready ({@code on});</li>
 *   <li>{@code rev}: the MPA revision requested, 1 or 2 (2);</li>
 *   <li>{@code pd}: largest consumer private data, 252 (fits {@code siw}'s 256 with the IRD/ORD block) up to
 *       508 (RFC 5044's 512).</li>
 * </ul>
 *
 * @param bindHost  the address to bind, or the wildcard address
 * @param crc       request CRC
 * @param mulpdu    the MULPDU, 0 for the default per peer
 * @param p2p       offer peer-to-peer mode
 * @param revision  MPA revision to request
 * @param maxPd     largest consumer private data
 */
record TcpConfig(InetAddress bindHost, boolean crc, int mulpdu, boolean p2p, int revision, int maxPd) {
    /** The MULPDU towards loopback peers: the largest multiple of 8 that fits a 16-bit ULPDU_Length. */
    static final int LOOPBACK_MULPDU = 65496;
    /** The MULPDU towards other peers. */
    static final int ETHERNET_MULPDU = 1442;

    /** Parses IA parameters; a bad word is {@code DAT_INVALID_PARAMETER}. */
    static TcpConfig parse(String params) {
        InetAddress host = null;
        boolean crc = false;
        int mulpdu = 0;
        boolean p2p = true;
        int rev = 2;
        int pd = 252;
        String s = params == null ? "" : params.trim();
        if (!s.isEmpty()) {
            for (String w : s.split("\\s+")) {
                int eq = w.indexOf('=');
                try {
                    if (eq < 0) {
                        host = InetAddress.getByName(w);
                        continue;
                    }
                    String k = w.substring(0, eq).toLowerCase(Locale.ROOT);
                    String v = w.substring(eq + 1).toLowerCase(Locale.ROOT);
                    switch (k) {
                        case "crc" -> crc = onOff(v, w);
                        case "p2p" -> p2p = onOff(v, w);
                        case "mulpdu" -> mulpdu = range(v, 64, 65535, w);
                        case "rev" -> rev = range(v, 1, 2, w);
                        case "pd" -> pd = range(v, 64, Mpa.MAX_PRIVATE_DATA - Mpa.V2_BLOCK, w);
                        default -> throw bad(w);
                    }
                } catch (UnknownHostException e) {
                    throw new DatException(DatReturnType.INVALID_PARAMETER, "tcp IA parameter: unknown host " + w);
                }
            }
        }
        if (host == null) {
            try {
                host = InetAddress.getByName("0.0.0.0");
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
        return new TcpConfig(host, crc, mulpdu, p2p, rev, pd);
    }

    /** The MULPDU towards {@code peer}. */
    int mulpduFor(InetAddress peer) {
        if (mulpdu != 0) {
            return mulpdu;
        }
        return peer.isLoopbackAddress() ? LOOPBACK_MULPDU : ETHERNET_MULPDU;
    }

    private static boolean onOff(String v, String w) {
        return switch (v) {
            case "on", "1", "true", "yes" -> true;
            case "off", "0", "false", "no" -> false;
            default -> throw bad(w);
        };
    }

    private static int range(String v, int lo, int hi, String w) {
        try {
            int n = Integer.parseInt(v);
            if (n >= lo && n <= hi) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new DatException(DatReturnType.INVALID_PARAMETER,
                "tcp IA parameter " + w + ": expected " + lo + ".." + hi);
    }

    private static DatException bad(String w) {
        return new DatException(DatReturnType.INVALID_PARAMETER, "tcp IA parameter not understood: " + w
                + " (host, crc=on|off, mulpdu=N, p2p=on|off, rev=1|2, pd=N)");
    }
}
