package io.jdat.tools.dtest;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.ProviderAttr;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.tools.session.IaSession;
import io.jdat.tools.session.SampleFailure;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * dtest over DAT: a client and a server that speak the exchange of DAPL's {@code dtest} ({@code test/dtest/dtest.c}
 * of uDAPL 2.1), so that either side can be the real {@code dtest} on a kernel RDMA device (rdma_cm over soft-iWARP)
 * and the other this program. The phases, in dtest's default mode:
 *
 * <ol>
 *   <li><b>server info</b>: before it listens, dtest's server accepts one plain TCP connection on port
 *       {@value #DEFAULT_INFO_PORT} and writes a {@value #INFO_MESSAGE}-byte message
 *       {@code "%04hx:%08x:%08x:%08x:%s"} (UCM LID, UCM QPN, scope id, IPv4 address, provider name; see
 *       {@link ServerInfo}); its client reads that message first and opens the IA the server named. Our server
 *       sends it after its service point exists; our client reads it, reports it and connects to the host it was
 *       given (which also works through port forwards);</li>
 *   <li><b>connect</b> on qualifier {@value #DEFAULT_CONN_QUAL} with {@value #PRIVATE_DATA} bytes of private data
 *       {@code 1, 2, ..., 48}; the server checks them, adds one to each and accepts with them; the client checks
 *       {@code 2, ..., 49};</li>
 *   <li><b>RMR exchange</b>: each side Sends a {@value #TRIPLET}-byte {@code DAT_RMR_TRIPLET} naming its receive
 *       buffer (address as a big-endian 64-bit word, then segment length and {@code rmr_context} as big-endian
 *       32-bit words) into one of {@value #MSG_BUF_COUNT} receives posted before the connection;</li>
 *   <li><b>RDMA Write</b>: each side writes {@code burst} times the whole buffer, {@code "client RDMA write data..."}
 *       (or {@code server}) followed by dtest's fill, into the peer's buffer, one completion in {@code signal rate};
 *       then the client Sends the triplet again and waits for the server's, the server the other way round. The
 *       side that got the message checks every byte of its buffer against what the peer wrote;</li>
 *   <li><b>RDMA Read</b>: each side writes {@code "client RDMA read data..."} (or {@code server}) at the head of its
 *       buffer, reads the peer's buffer {@value #MAX_RDMA_RD} times and Sends the triplet a third time. dtest does
 *       not order a read against the peer's rewrite of its head, so every byte read must be either what the peer's
 *       read phase put there or what our RDMA Writes left there;</li>
 *   <li><b>ping-pong</b>: each side posts {@value #MSG_BURST} receives of the buffer size, waits (dtest sleeps one
 *       second, so that the peer's receives are posted too), then the client Sends {@value #MSG_BURST} messages of
 *       the buffer size with first byte {@code 0x55} and the server answers each with first byte {@code 0xAA}. The
 *       length, cookie and first byte of every message are checked (the rest is whatever the sender's buffer held,
 *       which dtest leaves unset);</li>
 *   <li><b>disconnect</b>: the client disconnects, the server waits for the end of the connection.</li>
 * </ol>
 *
 * <p>Both sides check every completion's status, cookie and length as dtest does. A run passes only when every
 * phase passed; anything else is a {@link SampleFailure} naming the phase and the first bad byte.
 */
public final class Dtest {
    /** dtest's {@code SERVER_CONN_QUAL}. */
    public static final int DEFAULT_CONN_QUAL = 45248;
    /** dtest's {@code CONN_PORT}: where its server hands out the server info. */
    public static final int DEFAULT_INFO_PORT = 15828;
    /** dtest's {@code CONN_MSG_SIZE}. */
    public static final int INFO_MESSAGE = 128;
    /** Bytes of private data each way. */
    public static final int PRIVATE_DATA = 48;
    /** {@code sizeof(DAT_RMR_TRIPLET)} of DAT 2.0: address (8), segment length (4), rmr_context (4). */
    public static final int TRIPLET = RmrTriplet.BYTES;
    /** dtest's {@code MSG_BUF_COUNT}: the RMR messages each side receives. */
    public static final int MSG_BUF_COUNT = 3;
    /** dtest's {@code MAX_RDMA_RD}: RDMA Reads in the read phase, and the EP's IRD and ORD. */
    public static final int MAX_RDMA_RD = 4;
    /** dtest's {@code msg_burst}: messages in the ping-pong. */
    public static final int MSG_BURST = 100;
    /** The largest buffer this port allows (dtest's compiled-in default; each side registers 2 x 103 of them). */
    public static final int MAX_SIZE = 4 * 1024 * 1024;
    /** How long the client tries again while nothing listens on the server info port. */
    public static final long DEFAULT_CONNECT_MILLIS = 3000;
    /** The provider name our server hands out when none is configured: Debian's dat.conf entry for iWARP. */
    public static final String DEFAULT_PROVIDER = "ofa-v2-iwarp";

    private static final int RQ_CNT = MSG_BUF_COUNT + MSG_BURST;
    private static final int SQ_CNT = MSG_BUF_COUNT + MAX_RDMA_RD + MSG_BURST;
    private static final long SEND_COOKIE = 0xaaaa;
    private static final long READ_COOKIE = 0x9999;
    private static final byte PING = 0x55;
    private static final byte PONG = (byte) 0xaa;

    /**
     * One run's settings.
     *
     * @param iaName        the IA
     * @param host          the server's host (client: the server info and, for IP transports, the IA address);
     *                      unused by the server
     * @param iaAddress     the server's IA address for a transport that is not IP (e.g. {@code mem}), or
     *                      {@code null} for {@code host}
     * @param connQual      the connection qualifier
     * @param infoPort      the TCP port of the server info
     * @param size          the buffer size, dtest's {@code -b}, 1..{@value #MAX_SIZE}
     * @param burst         RDMA Writes per side, dtest's {@code -B}
     * @param signalRate    one Write completion in this many, dtest's {@code -S} (at most {@code burst})
     * @param polling       poll with {@code dat_evd_dequeue} instead of {@code dat_evd_wait}, dtest's {@code -p}
     * @param verbose       print every step, dtest's {@code -v}
     * @param timeoutMillis the longest wait for one event (dtest waits forever)
     * @param provider      the provider name the server hands out (the peer's dat.conf entry)
     * @param advertise     the IPv4 address the server hands out, or {@code null} for the IA's
     * @param settleMillis  the pause between posting the ping-pong receives and the first ping (dtest: 1 s)
     * @param connectMillis client: how long to try again while nothing listens on the server info port (connection
     *                      refused, no answer) before failing; a port that accepts and closes again (a port forward
     *                      whose server has not started yet) is tried until {@code timeoutMillis}
     */
    public record Config(String iaName, String host, SocketAddress iaAddress, int connQual, int infoPort, int size,
            int burst, int signalRate, boolean polling, boolean verbose, long timeoutMillis, String provider,
            String advertise, long settleMillis, long connectMillis) {
        /** Checks the ranges. */
        public Config {
            if (size < 1 || size > MAX_SIZE) {
                throw new IllegalArgumentException("buffer size " + size + " outside 1.." + MAX_SIZE);
            }
            if (burst < 1 || signalRate < 1) {
                throw new IllegalArgumentException("burst and signal rate must be at least 1");
            }
            if (provider == null || provider.isEmpty() || provider.length() > 63 || !provider.matches("\\S+")) {
                throw new IllegalArgumentException("provider name '" + provider + "': 1..63 characters, no spaces");
            }
            signalRate = Math.min(signalRate, burst);
            if (connectMillis < 1) {
                throw new IllegalArgumentException("connect timeout " + connectMillis + " ms: at least 1");
            }
        }

        /** Settings with the default connect timeout, {@value #DEFAULT_CONNECT_MILLIS} ms. */
        public Config(String iaName, String host, SocketAddress iaAddress, int connQual, int infoPort, int size,
                int burst, int signalRate, boolean polling, boolean verbose, long timeoutMillis, String provider,
                String advertise, long settleMillis) {
            this(iaName, host, iaAddress, connQual, infoPort, size, burst, signalRate, polling, verbose, timeoutMillis,
                    provider, advertise, settleMillis, DEFAULT_CONNECT_MILLIS);
        }

        /** Settings as dtest's defaults, except a 4 KiB buffer and 1000 Writes. */
        public static Config defaults(String iaName, String host) {
            return new Config(iaName, host, null, DEFAULT_CONN_QUAL, DEFAULT_INFO_PORT, 4096, 1000, 10, false, false,
                    30_000, DEFAULT_PROVIDER, null, 1000);
        }
    }

    /**
     * dtest's server info message: {@code "%04hx:%08x:%08x:%08x:%s"} in a {@value #INFO_MESSAGE}-byte buffer. The
     * address is the {@code s_addr} word of a little-endian host printed as a number, so 10.0.2.15 is
     * {@code 0f02000a}; UCM servers send LID and QPN instead and a zero address.
     *
     * @param lid      the UCM LID (0 for rdma_cm)
     * @param qpn      the UCM QP number (0 for rdma_cm)
     * @param scopeId  the UCM scope id
     * @param sinAddr  the IPv4 address as dtest prints it
     * @param provider the dat.conf name of the server's provider
     */
    public record ServerInfo(int lid, int qpn, int scopeId, int sinAddr, String provider) {
        private static final Pattern FORMAT = Pattern.compile(
                "([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,8}):(\\S{1,63})");

        /** The info of an rdma_cm server at {@code address}. */
        public static ServerInfo of(Inet4Address address, String provider) {
            byte[] a = address.getAddress();
            int sin = (a[0] & 0xFF) | (a[1] & 0xFF) << 8 | (a[2] & 0xFF) << 16 | (a[3] & 0xFF) << 24;
            return new ServerInfo(0, 0, 0, sin, provider);
        }

        /**
         * Parses the message as dtest's client does ({@code sscanf} of the text before the first NUL).
         *
         * @throws SampleFailure when it does not have dtest's five fields
         */
        public static ServerInfo parse(byte[] msg) {
            int n = 0;
            while (n < msg.length && msg[n] != 0) {
                n++;
            }
            String s = new String(msg, 0, n, StandardCharsets.ISO_8859_1);
            Matcher m = FORMAT.matcher(s);
            if (!m.lookingAt()) {
                throw new SampleFailure("the server info is not dtest's \"lid:qpn:scope:address:provider\": \""
                        + s + "\"");
            }
            return new ServerInfo(Integer.parseUnsignedInt(m.group(1), 16), Integer.parseUnsignedInt(m.group(2), 16),
                    Integer.parseUnsignedInt(m.group(3), 16), Integer.parseUnsignedInt(m.group(4), 16), m.group(5));
        }

        /** The {@value #INFO_MESSAGE}-byte message, NUL-padded. */
        public byte[] encode() {
            String s = String.format(Locale.ROOT, "%04x:%08x:%08x:%08x:%s", lid & 0xFFFF, qpn, scopeId, sinAddr,
                    provider);
            byte[] b = new byte[INFO_MESSAGE];
            byte[] t = s.getBytes(StandardCharsets.ISO_8859_1);
            System.arraycopy(t, 0, b, 0, Math.min(t.length, INFO_MESSAGE - 1));
            return b;
        }

        /** The server's IPv4 address, or {@code null} when the message carries none (UCM). */
        public InetAddress address() {
            if (sinAddr == 0) {
                return null;
            }
            byte[] a = {(byte) sinAddr, (byte) (sinAddr >>> 8), (byte) (sinAddr >>> 16), (byte) (sinAddr >>> 24)};
            try {
                return InetAddress.getByAddress(a);
            } catch (UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * What a run did.
     *
     * @param writes        RDMA Writes posted (and the peer's buffer image verified after them)
     * @param reads         RDMA Reads completed and verified
     * @param pingPongs     ping-pong messages received and verified
     * @param writeMicros   time of the write phase, from the first Write to the peer's message, microseconds
     * @param pingPongMicros time of the ping-pong, from the first message on, microseconds
     * @param ending        the connection event that ended the run (DISCONNECTED, or BROKEN when the peer reset)
     */
    public record Result(int writes, int reads, int pingPongs, double writeMicros, double pingPongMicros,
            EventNumber ending) {
    }

    /** Changes what a side sends, for the tests that check that the other side notices. */
    interface Tamper {
        /** The connect private data (client) or the accept private data (server). */
        default void privateData(byte[] pd) {
        }

        /** The RDMA Write source, after it was filled. */
        default void writeSource(MemorySegment source) {
        }

        /** A ping-pong message before it is sent. */
        default void message(MemorySegment message, int index) {
        }
    }

    private static final Tamper NONE = new Tamper() {
    };

    private final Config cfg;
    private final PrintWriter out;
    private final Tamper tamper;
    private boolean server;
    private Resources o;
    private int recvMsgIndex;
    private RmrTriplet remote;
    private final DatEvent ev = new DatEvent();

    /**
     * A run with {@code cfg}, printing to {@code out}.
     *
     * @param cfg the settings
     * @param out where the steps and the summary go
     */
    public Dtest(Config cfg, PrintWriter out) {
        this(cfg, out, NONE);
    }

    Dtest(Config cfg, PrintWriter out, Tamper tamper) {
        this.cfg = cfg;
        this.out = out;
        this.tamper = tamper;
    }

    // ------------------------------------------------------------------ the data

    /** The text at the head of the RDMA Write source of the client (or server). */
    public static String writeText(boolean server) {
        return (server ? "server" : "client") + " RDMA write data...";
    }

    /** The text a side puts at the head of its buffer when its read phase starts. */
    public static String readText(boolean server) {
        return (server ? "server" : "client") + " RDMA read data...";
    }

    /**
     * What the RDMA Writes of the client (or server) put into the peer's buffer: dtest fills its source with
     * {@code 'b'} and copies {@link #writeText} with its NUL over the head.
     *
     * @param server the writer
     * @param size   the buffer size
     * @return {@code size} bytes
     */
    public static byte[] writeImage(boolean server, int size) {
        byte[] b = new byte[size];
        java.util.Arrays.fill(b, (byte) 'b');
        strcpy(b, writeText(server));
        return b;
    }

    /**
     * The peer's buffer as its read phase leaves it: what our Writes put there ({@code written}), with the peer's
     * {@link #readText} and its NUL over the head.
     */
    static byte[] readImage(boolean peerIsServer, byte[] written) {
        byte[] b = written.clone();
        strcpy(b, readText(peerIsServer));
        return b;
    }

    /** C's strcpy into a buffer of the data size: what fits of the text and its NUL. */
    private static void strcpy(byte[] b, String text) {
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i <= t.length && i < b.length; i++) {
            b[i] = i < t.length ? t[i] : 0;
        }
    }

    private static void strcpy(MemorySegment m, String text) {
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i <= t.length && i < m.byteSize(); i++) {
            m.set(ValueLayout.JAVA_BYTE, i, i < t.length ? t[i] : 0);
        }
    }

    /**
     * Checks an RDMA Read's result: every byte must be the one of {@code before} or of {@code after} at its
     * offset (the peer may rewrite its head while we read).
     *
     * @return the offset of the first byte that is neither, or -1
     */
    static long verifyEither(MemorySegment got, byte[] before, byte[] after) {
        for (int i = 0; i < before.length; i++) {
            byte g = got.get(ValueLayout.JAVA_BYTE, i);
            if (g != before[i] && g != after[i]) {
                return i;
            }
        }
        return -1;
    }

    /** The text before the first NUL of {@code m}, at most 64 characters, for messages. */
    static String text(MemorySegment m) {
        int n = 0;
        while (n < m.byteSize() && n < 64 && m.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(m.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    // ------------------------------------------------------------------ the two sides

    /**
     * The client: reads the server info, connects, runs every phase, disconnects.
     *
     * @return what it did
     * @throws SampleFailure naming the phase that failed
     */
    public Result client() {
        server = false;
        ServerInfo info = readServerInfo();
        InetAddress advertised = info.address();
        if (advertised == null) {
            throw new SampleFailure(String.format("the server info names a UCM endpoint (LID 0x%x, QPN 0x%x), not an"
                    + " IP address: the server does not run an rdma_cm provider", info.lid(), info.qpn()));
        }
        say("server info: provider " + info.provider() + ", address " + advertised.getHostAddress() + " (we connect to "
                + cfg.host() + ")");
        try (Resources objs = new Resources(cfg)) {
            o = objs;
            header("client");
            connectClient();
            return phases();
        } finally {
            o = null;
        }
    }

    /**
     * The server: listens, hands out the server info to one client, takes one connection and runs every phase.
     *
     * @return what it did
     * @throws SampleFailure naming the phase that failed
     */
    public Result server() {
        server = true;
        try (Resources objs = new Resources(cfg)) {
            o = objs;
            header("server");
            PublicServicePoint psp = PublicServicePoint.create(o.ia, cfg.connQual(), o.crEvd, PspFlags.CONSUMER);
            sendServerInfo();
            say("waiting for a connection request on qualifier " + cfg.connQual());
            ConnectionRequest cr = awaitRequest(psp);
            acceptServer(cr);
            psp.free();
            return phases();
        } finally {
            o = null;
        }
    }

    private void header(String side) {
        ProviderAttr p = o.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr();
        out.printf("jdat dtest %s: provider %s %d.%d, IA \"%s\", %s, connection qualifier %d, buffer %d bytes,"
                + " %d RDMA Writes (1 in %d signalled), %s%n", side, p.providerName(), p.providerVersionMajor(),
                p.providerVersionMinor(), cfg.iaName(), side.equals("client") ? "server " + cfg.host()
                        : "server info on port " + cfg.infoPort(), cfg.connQual(), cfg.size(), cfg.burst(),
                cfg.signalRate(), cfg.polling() ? "polling (dat_evd_dequeue)" : "waiting (dat_evd_wait)");
        out.flush();
    }

    private Result phases() {
        exchangeRmr();
        double writeMicros = writePhase();
        int reads = readPhase();
        double ppMicros = pingPong();
        EventNumber end = disconnect();
        say(String.format(Locale.ROOT, "message ping-pong: %d x %d bytes, total %.2f us, latency %.2f us",
                MSG_BURST, cfg.size(), ppMicros, ppMicros / MSG_BURST / 2));
        say(String.format(Locale.ROOT, "RDMA write (bi-direction): total %.2f us, %d x %d bytes, %.2f MB/s",
                writeMicros, 2 * cfg.burst(), cfg.size(), 2.0 * cfg.burst() * cfg.size() / writeMicros));
        return new Result(cfg.burst(), reads, MSG_BURST, writeMicros, ppMicros, end);
    }

    // ------------------------------------------------------------------ server info

    /**
     * Reads the server info. Where nothing listens (connection refused, no answer), tries again for
     * {@code connectMillis} only, then fails naming the fix; a port that accepts and closes at once (a port
     * forward whose server has not started yet) is tried again until {@code timeoutMillis}.
     */
    private ServerInfo readServerInfo() {
        long start = System.nanoTime();
        long connectMillis = Math.min(cfg.connectMillis(), cfg.timeoutMillis());
        long refusedDeadline = start + connectMillis * 1_000_000L;
        long deadline = start + Math.max(cfg.timeoutMillis(), cfg.connectMillis()) * 1_000_000L;
        String where = cfg.host() + ":" + cfg.infoPort();
        boolean forwarded = false;
        for (;;) {
            try (Socket s = new Socket()) {
                try {
                    s.connect(new InetSocketAddress(cfg.host(), cfg.infoPort()),
                            (int) Math.clamp(connectMillis, 1, 10_000));
                } catch (IOException e) {
                    if (System.nanoTime() - refusedDeadline >= 0) {
                        throw new SampleFailure("no dtest server at " + where + " (" + reason(e) + " for "
                                + connectMillis + " ms): start 'jdat dtest -s' or 'dtest -s' there first, or "
                                + "check -h and --info-port");
                    }
                    pause(100);
                    continue;
                }
                s.setSoTimeout((int) Math.min(cfg.timeoutMillis(), Integer.MAX_VALUE));
                byte[] msg = new byte[INFO_MESSAGE];
                new DataInputStream(s.getInputStream()).readFully(msg);
                verbose("server info: \"" + new String(msg, StandardCharsets.ISO_8859_1).replace("\0", "") + "\"");
                return ServerInfo.parse(msg);
            } catch (SocketTimeoutException e) {
                throw new SampleFailure("no server info from " + where + " within " + cfg.timeoutMillis()
                        + " ms: is a dtest server (dtest -s) listening there, and not something else?");
            } catch (IOException e) {
                // accepted, then closed (a port forward whose server is not listening yet): try again
                if (System.nanoTime() - deadline >= 0) {
                    throw new SampleFailure("no server info from " + where + ": it accepts connections but closes "
                            + "them without the server info (" + reason(e) + ") for " + cfg.timeoutMillis()
                            + " ms: is the dtest server behind it running?");
                }
                if (!forwarded) {
                    forwarded = true;
                    say(where + " accepts but sends no server info yet (a port forward whose server is starting?):"
                            + " trying again for up to " + cfg.timeoutMillis() + " ms");
                }
                pause(100);
            }
        }
    }

    /** A socket failure in words: "connection refused", "no answer", ... */
    private static String reason(IOException e) {
        if (e instanceof java.net.ConnectException) {
            return "connection refused";
        }
        if (e instanceof SocketTimeoutException) {
            return "no answer";
        }
        if (e instanceof EOFException) {
            return "the stream ended before " + INFO_MESSAGE + " bytes";
        }
        if (e instanceof UnknownHostException) {
            return "unknown host";
        }
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m.toLowerCase(Locale.ROOT);
    }

    private void sendServerInfo() {
        Inet4Address address = advertisedAddress();
        ServerInfo info = ServerInfo.of(address, cfg.provider());
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(cfg.infoPort()));
            out.println("jdat dtest server: listening, server info on port " + cfg.infoPort() + ": provider "
                    + cfg.provider() + ", address " + address.getHostAddress());
            out.flush();
            ss.setSoTimeout((int) Math.min(Math.max(cfg.timeoutMillis(), 60_000L), Integer.MAX_VALUE));
            try (Socket s = ss.accept()) {
                OutputStream os = s.getOutputStream();
                os.write(info.encode()); // one write: dtest's client reads the 128 bytes with one read()
                os.flush();
                verbose("server info sent to " + s.getRemoteSocketAddress());
            }
        } catch (SocketTimeoutException e) {
            throw new SampleFailure("no client came for the server info on port " + cfg.infoPort());
        } catch (java.net.BindException e) {
            throw new SampleFailure("port " + cfg.infoPort() + " (the server info) is in use: pick another with "
                    + "--info-port PORT, and give the client the same");
        } catch (IOException e) {
            throw new SampleFailure("serving the server info on port " + cfg.infoPort() + ": " + reason(e));
        }
    }

    private Inet4Address advertisedAddress() {
        try {
            if (cfg.advertise() != null) {
                InetAddress a = InetAddress.getByName(cfg.advertise());
                if (a instanceof Inet4Address v4) {
                    return v4;
                }
                throw new SampleFailure("the advertised address " + cfg.advertise() + " is not IPv4 (dtest's server"
                        + " info carries IPv4 only)");
            }
            SocketAddress ia = o.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            if (ia instanceof InetSocketAddress isa && isa.getAddress() instanceof Inet4Address v4
                    && !v4.isAnyLocalAddress()) {
                return v4;
            }
            return (Inet4Address) InetAddress.getByName("127.0.0.1");
        } catch (UnknownHostException e) {
            throw new SampleFailure("unknown advertised address " + cfg.advertise());
        }
    }

    // ------------------------------------------------------------------ connection

    private byte[] clientPrivateData() {
        byte[] pd = new byte[PRIVATE_DATA];
        for (int i = 0; i < PRIVATE_DATA; i++) {
            pd[i] = (byte) (i + 1);
        }
        return pd;
    }

    private void connectClient() {
        SocketAddress target = cfg.iaAddress() != null ? cfg.iaAddress() : new InetSocketAddress(cfg.host(), 0);
        long deadline = System.nanoTime() + cfg.timeoutMillis() * 1_000_000L;
        int micros = (int) Math.min(Integer.MAX_VALUE, cfg.timeoutMillis() * 1000L);
        for (;;) {
            postMessageReceives();
            byte[] pd = clientPrivateData();
            tamper.privateData(pd);
            verbose("connecting to " + cfg.host() + " qualifier " + cfg.connQual());
            o.ep.connect(target, cfg.connQual(), micros, PRIVATE_DATA, pd, Qos.BEST_EFFORT, 0);
            collect(o.connEvd, "the connection to " + cfg.host() + ":" + cfg.connQual());
            EventNumber n = ev.eventNumber();
            if (n == EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                byte[] back = ev.privateData();
                checkPrivateData(back, 2, "the accept's private data");
                say("connected: private data verified (" + PRIVATE_DATA + " bytes each way)");
                return;
            }
            if (n == EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED && System.nanoTime() < deadline) {
                // dtest's server creates its service point after it handed out the server info: try again
                verbose("connection refused (the server may not listen yet): retrying");
                drainFlushed();
                o.ep.reset();
                pause(200);
                continue;
            }
            throw new SampleFailure("connecting to " + cfg.host() + ":" + cfg.connQual() + ": " + n);
        }
    }

    private ConnectionRequest awaitRequest(PublicServicePoint psp) {
        long wait = Math.max(cfg.timeoutMillis(), 60_000L);
        if (!waitOn(o.crEvd, wait)) {
            throw new SampleFailure("no connection request within " + wait + " ms");
        }
        if (ev.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
            throw new SampleFailure("unexpected event on the CR EVD: " + ev.eventNumber());
        }
        if (ev.connQual() != cfg.connQual() || ev.spHandle() != psp) {
            throw new SampleFailure("connection request for qualifier " + ev.connQual() + " on " + ev.spHandle());
        }
        return ev.cr();
    }

    private void acceptServer(ConnectionRequest cr) {
        byte[] pd = cr.query(io.jdat.CrParam.FIELD_ALL).privateData();
        try {
            checkPrivateData(pd, 1, "the connection request's private data");
        } catch (SampleFailure e) {
            cr.reject(); // as dtest
            throw e;
        }
        byte[] back = new byte[PRIVATE_DATA];
        for (int i = 0; i < PRIVATE_DATA; i++) {
            back[i] = (byte) (pd[i] + 1);
        }
        tamper.privateData(back);
        postMessageReceives();
        cr.accept(o.ep, PRIVATE_DATA, back);
        collect(o.connEvd, "the connection");
        if (ev.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            throw new SampleFailure("accepting: " + ev.eventNumber());
        }
        say("connected: private data verified (" + PRIVATE_DATA + " bytes each way)");
    }

    private void checkPrivateData(byte[] pd, int first, String what) {
        if (pd == null || pd.length < PRIVATE_DATA) {
            throw new SampleFailure(what + ": " + (pd == null ? 0 : pd.length) + " bytes, dtest sends "
                    + PRIVATE_DATA);
        }
        for (int i = 0; i < PRIVATE_DATA; i++) {
            if ((pd[i] & 0xFF) != i + first) {
                throw new SampleFailure(what + ": byte " + i + " is " + (pd[i] & 0xFF) + ", should be " + (i + first));
            }
        }
    }

    private void postMessageReceives() {
        for (int i = 0; i < MSG_BUF_COUNT; i++) {
            o.ep.postRecv(1, new LmrTriplet[] {new LmrTriplet(o.recvMsgLmr.lmrContext(),
                    o.recvMsg.address() + (long) i * TRIPLET, TRIPLET)}, i, CompletionFlags.DEFAULT);
        }
    }

    /** After a refused connection: the posted receives come back flushed. */
    private void drainFlushed() {
        DatEvent e = new DatEvent();
        for (int i = 0; i < MSG_BUF_COUNT; i++) {
            if (!o.rcvEvd.waitFor(2_000_000, 1, e) || e.status() != DtoCompletionStatus.ERR_FLUSHED) {
                throw new SampleFailure("after a refused connection: receive " + i + " did not come back flushed");
            }
        }
    }

    private EventNumber disconnect() {
        if (!server) {
            verbose("dat_ep_disconnect");
            o.ep.disconnect(CloseFlags.GRACEFUL);
        } else {
            verbose("waiting for the client to disconnect");
        }
        collect(o.connEvd, "the end of the connection");
        EventNumber n = ev.eventNumber();
        if (n != EventNumber.CONNECTION_EVENT_DISCONNECTED && (!server || n != EventNumber.CONNECTION_EVENT_BROKEN)) {
            throw new SampleFailure("ending the connection: " + n);
        }
        say(n == EventNumber.CONNECTION_EVENT_DISCONNECTED ? "disconnected"
                : "disconnected (the client reset the connection: " + n + ")");
        return n;
    }

    // ------------------------------------------------------------------ phases

    /** Sends our triplet, waits for the peer's: the RMR exchange of dtest's connect_ep. */
    private void exchangeRmr() {
        // dtest's DAT_RMR_TRIPLET message is RmrTriplet's exchange encoding: address, length, context, big endian
        new RmrTriplet(o.rbufLmr.rmrContext(), o.rbuf.address(), cfg.size()).encode(o.sendMsg, 0);
        say(String.format("send RMR to remote: rmr_context 0x%x, va 0x%x, length %d", o.rbufLmr.rmrContext(),
                o.rbuf.address(), cfg.size()));
        sendMessage(CompletionFlags.DEFAULT);
        RmrTriplet r = receiveTriplet("the peer's RMR message");
        if (r.segmentLength() != cfg.size()) {
            throw new SampleFailure("the peer's buffer is " + r.segmentLength() + " bytes, ours " + cfg.size()
                    + ": dtest needs the same buffer size (-b) on both sides");
        }
        remote = r;
        say(String.format("received RMR from remote: rmr_context 0x%x, va 0x%x, length %d", r.rmrContext(),
                r.targetAddress(), r.segmentLength()));
    }

    private double writePhase() {
        verbose("RDMA WRITE DATA with SEND MSG");
        int size = cfg.size();
        MemorySegment src = o.sbuf.asSlice(0, size);
        strcpy(src, writeText(server));
        tamper.writeSource(src);
        LmrTriplet[] l = {new LmrTriplet(o.sbufLmr.lmrContext(), o.sbuf.address(), size)};
        RmrTriplet r = new RmrTriplet(remote.rmrContext(), remote.targetAddress(), size);
        long start = System.nanoTime();
        for (int i = 0; i < cfg.burst(); i++) {
            boolean signal = (i + 1) % cfg.signalRate() == 0;
            o.ep.postRdmaWrite(1, l, i, r, signal ? CompletionFlags.DEFAULT : CompletionFlags.SUPPRESS);
            if (signal) {
                collect(o.reqEvd, "the completion of RDMA Write " + (i + 1));
                dto(i, size, "RDMA Write " + (i + 1));
            }
        }
        if (server) {
            expectRepeatedTriplet("the client's RDMA Write message");
            sendMessage(CompletionFlags.SUPPRESS);
        } else {
            sendMessage(CompletionFlags.SUPPRESS);
            expectRepeatedTriplet("the server's RDMA Write message");
        }
        double micros = (System.nanoTime() - start) / 1000.0;
        byte[] want = writeImage(!server, size);
        MemorySegment got = o.rbuf.asSlice(0, size);
        long at = got.mismatch(MemorySegment.ofArray(want));
        if (at != -1) {
            throw new SampleFailure(String.format("RDMA Write data from the peer: byte %d is 0x%02x, should be 0x%02x"
                    + " (buffer holds \"%s\")", at, got.get(ValueLayout.JAVA_BYTE, at), want[(int) at], text(got)));
        }
        say("RDMA write: " + cfg.burst() + " x " + size + " bytes; the peer's " + size + " bytes verified: \""
                + text(got) + "\"");
        return micros;
    }

    private int readPhase() {
        verbose("RDMA READ DATA with SEND MSG");
        int size = cfg.size();
        MemorySegment sink = o.sbuf.asSlice(0, size);
        strcpy(sink, "blah, blah, blah\n");
        strcpy(o.rbuf.asSlice(0, size), readText(server));
        byte[] written = writeImage(server, size);
        byte[] rewritten = readImage(!server, written);
        LmrTriplet[] l = {new LmrTriplet(o.sbufLmr.lmrContext(), o.sbuf.address(), size)};
        RmrTriplet r = new RmrTriplet(remote.rmrContext(), remote.targetAddress(), size);
        for (int i = 0; i < MAX_RDMA_RD; i++) {
            o.ep.postRdmaRead(1, l, READ_COOKIE, r, CompletionFlags.DEFAULT);
            collect(o.reqEvd, "the completion of RDMA Read " + (i + 1));
            dto(READ_COOKIE, size, "RDMA Read " + (i + 1));
            long at = verifyEither(sink, written, rewritten);
            if (at != -1) {
                throw new SampleFailure(String.format("RDMA Read %d: byte %d is 0x%02x, should be 0x%02x (the peer's"
                        + " read phase) or 0x%02x (our RDMA Write) (read \"%s\")", i + 1, at,
                        sink.get(ValueLayout.JAVA_BYTE, at), rewritten[(int) at], written[(int) at], text(sink)));
            }
            verbose("rdma_read # " + (i + 1) + " completed and verified");
        }
        sendMessage(CompletionFlags.SUPPRESS);
        expectRepeatedTriplet("the peer's RDMA Read message");
        say("RDMA read: " + MAX_RDMA_RD + " x " + size + " bytes verified: \"" + text(sink) + "\"");
        return MAX_RDMA_RD;
    }

    private double pingPong() {
        verbose("PING DATA with SEND MSG");
        int size = cfg.size();
        for (int i = 0; i < MSG_BURST; i++) {
            o.ep.postRecv(1, new LmrTriplet[] {new LmrTriplet(o.rbufLmr.lmrContext(), o.rbuf.address() + (long) i * size,
                    size)}, i, CompletionFlags.DEFAULT);
        }
        pause(cfg.settleMillis());
        long start = System.nanoTime();
        for (int i = 0; i < MSG_BURST; i++) {
            MemorySegment snd = o.sbuf.asSlice((long) i * size, size);
            if (!server) {
                snd.set(ValueLayout.JAVA_BYTE, 0, PING);
                tamper.message(snd, i);
                postSend(snd, CompletionFlags.SUPPRESS);
            }
            collect(o.rcvEvd, "ping-pong message " + i);
            if (i == 0) {
                start = System.nanoTime();
            }
            dto(i, size, "ping-pong message " + i);
            byte mark = o.rbuf.get(ValueLayout.JAVA_BYTE, (long) i * size);
            byte want = server ? PING : PONG;
            if (mark != want) {
                throw new SampleFailure(String.format("ping-pong message %d: first byte 0x%02x, should be 0x%02x", i,
                        mark, want));
            }
            if (server) {
                snd.set(ValueLayout.JAVA_BYTE, 0, PONG);
                tamper.message(snd, i);
                postSend(snd, CompletionFlags.SUPPRESS);
            }
        }
        double micros = (System.nanoTime() - start) / 1000.0;
        say("message ping-pong: " + MSG_BURST + " messages of " + size + " bytes verified");
        return micros;
    }

    // ------------------------------------------------------------------ messages and events

    private void sendMessage(int flags) {
        o.ep.postSend(1, new LmrTriplet[] {new LmrTriplet(o.sendMsgLmr.lmrContext(), o.sendMsg.address(), TRIPLET)},
                SEND_COOKIE, flags);
        if ((flags & CompletionFlags.SUPPRESS) == 0) {
            collect(o.reqEvd, "the completion of the RMR message");
            dto(SEND_COOKIE, TRIPLET, "the RMR message");
        }
    }

    private void postSend(MemorySegment m, int flags) {
        o.ep.postSend(1, new LmrTriplet[] {new LmrTriplet(o.sbufLmr.lmrContext(), m.address(), m.byteSize())},
                SEND_COOKIE, flags);
    }

    private RmrTriplet receiveTriplet(String what) {
        collect(o.rcvEvd, what);
        dto(recvMsgIndex, TRIPLET, what);
        RmrTriplet r = RmrTriplet.decode(o.recvMsg, (long) recvMsgIndex * TRIPLET);
        recvMsgIndex++;
        return r;
    }

    private void expectRepeatedTriplet(String what) {
        RmrTriplet r = receiveTriplet(what);
        if (!r.equals(remote)) {
            throw new SampleFailure(what + ": the triplet " + r + " differs from the peer's first " + remote);
        }
        verbose(what + " arrived");
    }

    private void dto(long cookie, long length, String what) {
        if (ev.eventNumber() != EventNumber.DTO_COMPLETION_EVENT) {
            throw new SampleFailure(what + ": event " + ev.eventNumber() + " instead of a DTO completion");
        }
        if (ev.status() != DtoCompletionStatus.SUCCESS) {
            throw new SampleFailure(what + ": completed with " + ev.status());
        }
        if (ev.userCookie() != cookie || ev.transferredLength() != length) {
            throw new SampleFailure(String.format("%s: cookie 0x%x, length %d; expected 0x%x, %d", what,
                    ev.userCookie(), ev.transferredLength(), cookie, length));
        }
    }

    /** Takes the next event of {@code evd} into {@link #ev}, or fails after the timeout. */
    private void collect(EventDispatcher evd, String what) {
        if (!waitOn(evd, cfg.timeoutMillis())) {
            throw new SampleFailure("timed out after " + cfg.timeoutMillis() + " ms waiting for " + what);
        }
    }

    private boolean waitOn(EventDispatcher evd, long millis) {
        if (cfg.polling()) {
            long deadline = System.nanoTime() + millis * 1_000_000L;
            while (!evd.dequeue(ev)) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                Thread.onSpinWait();
            }
            return true;
        }
        return evd.waitFor((int) Math.min(Integer.MAX_VALUE, millis * 1000L), 1, ev);
    }

    private void say(String s) {
        out.println((server ? "server: " : "client: ") + s);
        out.flush();
    }

    private void verbose(String s) {
        if (cfg.verbose()) {
            say(s);
        }
    }

    private static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SampleFailure("interrupted");
        }
    }

    /**
     * The DAT objects of one side, as dtest creates them: an IA and a PZ ({@link IaSession}), a CR, a connection, a request and a receive
     * EVD, one EP (IRD/ORD {@value #MAX_RDMA_RD}), the RDMA buffers ({@code size x 103} bytes each, every privilege)
     * and the RMR message buffers.
     */
    private static final class Resources implements AutoCloseable {
        final IaSession session;
        final InterfaceAdapter ia;
        EventDispatcher crEvd;
        EventDispatcher connEvd;
        EventDispatcher reqEvd;
        EventDispatcher rcvEvd;
        Endpoint ep;
        MemorySegment rbuf;
        MemorySegment sbuf;
        MemorySegment sendMsg;
        MemorySegment recvMsg;
        Lmr rbufLmr;
        Lmr sbufLmr;
        Lmr sendMsgLmr;
        Lmr recvMsgLmr;

        Resources(Config cfg) {
            session = IaSession.open(cfg.iaName(), 8);
            ia = session.ia();
            try {
                crEvd = session.evd(10, EvdFlags.CR);
                connEvd = session.evd(10, EvdFlags.CONNECTION);
                reqEvd = session.evd((MSG_BUF_COUNT + MAX_RDMA_RD + cfg.burst()) * 2, EvdFlags.DTO);
                rcvEvd = session.evd(RQ_CNT + MSG_BUF_COUNT, EvdFlags.DTO);
                EpAttr attr = ia.defaultEpAttr();
                attr.maxRecvDtos(RQ_CNT).maxRequestDtos(SQ_CNT).maxRecvIov(1).maxRequestIov(1)
                        .maxRdmaReadIn(MAX_RDMA_RD).maxRdmaReadOut(MAX_RDMA_RD);
                ep = session.endpoint(rcvEvd, reqEvd, connEvd, attr);
                long region = (long) cfg.size() * RQ_CNT;
                rbuf = session.allocate(Math.max(4096, region), 4096);
                sbuf = session.allocate(Math.max(4096, region), 4096);
                rbuf.asSlice(0, cfg.size()).fill((byte) 'a'); // dtest's init_data
                sbuf.asSlice(0, cfg.size()).fill((byte) 'b');
                strcpy(rbuf.asSlice(0, Math.min(rbuf.byteSize(), 32)), "blah, blah, blah\n");
                sendMsg = session.allocate(4096, 4096);
                recvMsg = session.allocate(4096, 4096);
                rbufLmr = session.register(rbuf, MemPriv.ALL);
                sbufLmr = session.register(sbuf, MemPriv.ALL);
                sendMsgLmr = session.register(sendMsg.asSlice(0, TRIPLET), MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
                recvMsgLmr = session.register(recvMsg.asSlice(0, (long) TRIPLET * MSG_BUF_COUNT),
                        MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        @Override
        public void close() {
            session.close();
        }
    }
}
