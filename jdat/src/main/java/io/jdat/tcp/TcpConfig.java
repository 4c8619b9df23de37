package io.jdat.tcp;

import io.jdat.transport.IaParameters;
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
 *   <li>{@code mulpdu}: largest DDP segment, header included (RFC 5044 MULPDU); by default each connection
 *       sizes it from its effective MSS ({@code TCP_MAXSEG}, see {@link SocketFd}) as RFC 5044 §4.1 says for
 *       a stream without markers, {@code EMSS - (6 + EMSS mod 4)}, so that every FPDU fits one TCP
 *       segment;</li>
 *   <li>{@code p2p}: offer RFC 6581 peer-to-peer mode with a zero-length RDMA Write as the ready-to-receive
 *       message, so the passive side sees ESTABLISHED only when the active side is ready ({@code on});</li>
 *   <li>{@code rev}: the MPA revision requested, 1 or 2 (2);</li>
 *   <li>{@code pd}: largest consumer private data, 252 (fits {@code siw}'s 256 with the IRD/ORD block) up to
 *       508 (RFC 5044's 512);</li>
 *   <li>{@code peer_timeout}: the liveness bound in milliseconds, 0 (the default) for none: a connection
 *       that hears nothing from its peer for this long breaks ({@code DAT_CONNECTION_EVENT_BROKEN}); while
 *       nothing else comes, the connection asks for a sign of life with a zero-length RDMA Read every
 *       third of it (see {@code docs/liveness.md});</li>
 *   <li>{@code close_timeout}: how long, in milliseconds, a graceful disconnect or IA close waits for the
 *       peer to take every byte and close its side before the connection breaks (10000).</li>
 * </ul>
 *
 * @param bindHost  the address to bind, or the wildcard address
 * @param crc       request CRC
 * @param mulpdu    the MULPDU, 0 for the default per peer
 * @param p2p       offer peer-to-peer mode
 * @param revision  MPA revision to request
 * @param maxPd     largest consumer private data
 * @param peerTimeoutMillis  the liveness bound, 0 for none
 * @param closeTimeoutMillis how long a graceful close waits for the peer
 */
record TcpConfig(InetAddress bindHost, boolean crc, int mulpdu, boolean p2p, int revision, int maxPd,
        int peerTimeoutMillis, int closeTimeoutMillis) {
    /** The largest MULPDU: the largest multiple of 8 that fits a 16-bit ULPDU_Length. */
    static final int LOOPBACK_MULPDU = 65496;
    /** The MSS assumed when none can be read or estimated: Ethernet's 1500 less 52 bytes of headers. */
    static final int ETHERNET_MSS = 1448;
    /** The MULPDU of an Ethernet MSS (1448 - 6). */
    static final int ETHERNET_MULPDU = 1442;
    /** The smallest MULPDU this side uses, whatever the MSS (a header and some payload). */
    static final int MIN_MULPDU = 64;
    static final int DEFAULT_CLOSE_TIMEOUT_MILLIS = 10_000;
    private static final IaParameters PARAMETERS = new IaParameters("tcp",
            "host, crc=on|off, mulpdu=N, p2p=on|off, rev=1|2, pd=N, peer_timeout=MS, close_timeout=MS");

    /** Parses IA parameters; a bad word is {@code DAT_INVALID_PARAMETER}. */
    static TcpConfig parse(String params) {
        InetAddress host = null;
        boolean crc = false;
        int mulpdu = 0;
        boolean p2p = true;
        int rev = 2;
        int pd = 252;
        int peerTimeout = 0;
        int closeTimeout = DEFAULT_CLOSE_TIMEOUT_MILLIS;
        for (String w : IaParameters.words(params)) {
            String k = IaParameters.key(w);
            try {
                if (k == null) {
                    host = InetAddress.getByName(w);
                    continue;
                }
                String v = IaParameters.value(w).toLowerCase(Locale.ROOT);
                switch (k) {
                    case "crc" -> crc = PARAMETERS.onOff(v, w);
                    case "p2p" -> p2p = PARAMETERS.onOff(v, w);
                    case "mulpdu" -> mulpdu = PARAMETERS.range(v, 64, 65535, w);
                    case "rev" -> rev = PARAMETERS.range(v, 1, 2, w);
                    case "pd" -> pd = PARAMETERS.range(v, 64, Mpa.MAX_PRIVATE_DATA - Mpa.V2_BLOCK, w);
                    case "peer_timeout" -> peerTimeout = v.equals("0") ? 0 : PARAMETERS.range(v, 100, 86_400_000, w);
                    case "close_timeout" -> closeTimeout = PARAMETERS.range(v, 0, 86_400_000, w);
                    default -> throw PARAMETERS.notUnderstood(w);
                }
            } catch (UnknownHostException e) {
                throw IaParameters.invalid("tcp IA parameter: unknown host " + w);
            }
        }
        if (host == null) {
            try {
                host = InetAddress.getByName("0.0.0.0");
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
        return new TcpConfig(host, crc, mulpdu, p2p, rev, pd, peerTimeout, closeTimeout);
    }

    /** The MULPDU of the connection {@code ch}: the configured one, else one from its effective MSS. */
    int mulpduFor(java.nio.channels.SocketChannel ch) {
        if (mulpdu != 0) {
            return mulpdu;
        }
        return mulpduOfMss(SocketFd.maxSegment(ch));
    }

    /**
     * RFC 5044 §4.1 without markers: {@code MULPDU = EMSS - (6 + EMSS mod 4)}, so that an FPDU (2 bytes of
     * length, the ULPDU, its pad and 4 bytes of CRC) is at most {@code emss} bytes; capped to
     * {@link #LOOPBACK_MULPDU}, at least {@link #MIN_MULPDU}.
     */
    static int mulpduOfMss(int emss) {
        int m = emss - (6 + emss % 4);
        return Math.max(MIN_MULPDU, Math.min(m, LOOPBACK_MULPDU));
    }
}
