package io.jdat.tools.rping;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatEvent;
import io.jdat.EventNumber;
import io.jdat.LmrTriplet;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.tools.session.SampleFailure;
import io.jdat.tools.session.SampleSide;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * rping over DAT: a client and a server that speak the exchange of librdmacm's {@code rping}, so that either
 * side can be the real {@code rping} on a kernel RDMA device (soft-iWARP) and the other this program.
 *
 * <p>The exchange, per ping: the client Sends a 16-byte advertisement of its start buffer (address as a
 * big-endian 64-bit word, STag and length as big-endian 32-bit words); the server RDMA-Reads that many bytes
 * into its buffer and Sends a 16-byte "go ahead"; the client Sends the advertisement of its second (rdma)
 * buffer; the server RDMA-Writes the data it read there (up to and including its first NUL, like rping) and
 * Sends "done"; the client compares both buffers. Every Send is exactly 16 bytes: rping refuses any other
 * length. The data is rping's: {@code "rdma-ping-N: "} followed by the printable characters 'A'..'z' rotating
 * from a start that advances by one each ping, and a NUL in the last byte. Both sides connect with IRD/ORD 1
 * (rping's {@code responder_resources} and {@code initiator_depth}) and no private data.
 *
 * <p>The server here also checks the data it read against that pattern (rping's server only prints it), and
 * both count the pings: a run passes only when every ping verified.
 */
public final class Rping {
    /** rping's advertisement: buf (8), rkey (4), size (4), big endian. */
    public static final int INFO = 16;
    /** rping's smallest and largest buffer. */
    public static final int MIN_SIZE = 23;
    public static final int MAX_SIZE = 64 * 1024;

    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long RECV = 0;
    private static final long SEND = 64;
    private static final long START = 4096;

    /**
     * One run's settings.
     *
     * @param iaName        the IA
     * @param host          the server's address (client) or unused (server: the IA's)
     * @param port          the connection qualifier (TCP port)
     * @param count         pings (client); the server expects exactly this many when &gt; 0
     * @param size          the buffer size, {@value #MIN_SIZE}..{@value #MAX_SIZE}
     * @param verbose       print each ping's data, as {@code rping -v}
     * @param validate      compare the data, as {@code rping -V} (the server checks the pattern)
     * @param timeoutMillis the longest wait for one event
     */
    public record Config(String iaName, String host, int port, int count, int size, boolean verbose, boolean validate,
            long timeoutMillis) {
        public Config {
            if (size < MIN_SIZE || size > MAX_SIZE) {
                throw new IllegalArgumentException("size " + size + " outside " + MIN_SIZE + ".." + MAX_SIZE);
            }
        }
    }

    private final Config cfg;
    private final PrintWriter out;
    private long cookie;

    public Rping(Config cfg, PrintWriter out) {
        this.cfg = cfg;
        this.out = out;
    }

    private static long rdmaOffset(int size) {
        return START + ((size + 4095L) & ~4095L);
    }

    private static long region(int size) {
        return rdmaOffset(size) + ((size + 4095L) & ~4095L);
    }

    /**
     * Fills {@code buf} with rping's data for ping {@code ping}: the text, the rotating pattern, a final NUL.
     *
     * @param buf  {@code size} bytes
     * @param ping the ping number
     */
    public static void fill(MemorySegment buf, int ping) {
        int size = (int) buf.byteSize();
        byte[] text = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int cc = Math.min(text.length, size - 1);
        MemorySegment.copy(text, 0, buf, ValueLayout.JAVA_BYTE, 0, cc);
        int c = 65 + ping % 58;
        for (int i = text.length; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            if (++c > 122) {
                c = 65;
            }
        }
        buf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /** The buffer's text up to its first NUL, for printing. */
    static String text(MemorySegment buf) {
        int n = 0;
        while (n < buf.byteSize() && buf.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    /**
     * The client: connects, runs the pings, disconnects.
     *
     * @return pings verified
     */
    public int client() {
        int size = cfg.size();
        try (SampleSide s = new SampleSide(cfg.iaName(), region(size), 1, cfg.timeoutMillis())) {
            MemorySegment start = s.mem().asSlice(START, size);
            MemorySegment rdma = s.mem().asSlice(rdmaOffset(size), size);
            long recv = postRecv(s);
            int micros = (int) Math.min(Integer.MAX_VALUE, cfg.timeoutMillis() * 1000L);
            s.ep().connect(new InetSocketAddress(cfg.host(), 0), cfg.port(), micros, 0, null, Qos.BEST_EFFORT, 0);
            EventNumber e = s.connectionEvent("the connection to " + cfg.host() + ":" + cfg.port());
            if (e != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                throw new SampleFailure("connecting to " + cfg.host() + " port " + cfg.port() + ": " + switch (e) {
                    case CONNECTION_EVENT_NON_PEER_REJECTED -> "refused (" + e.datName() + "): nothing listens there; "
                            + "start 'jdat rping -s"
                            + " -p " + cfg.port() + "' (or rping -s) there first, or check -a and -p";
                    case CONNECTION_EVENT_UNREACHABLE, CONNECTION_EVENT_TIMED_OUT -> "no answer (" + e.datName()
                            + "): is the host up and the port open?";
                    case CONNECTION_EVENT_PEER_REJECTED -> "the server rejected the connection (busy with another "
                            + "client?)";
                    default -> e.datName();
                });
            }
            int verified = 0;
            for (int ping = 0; ping < cfg.count(); ping++) {
                fill(start, ping);
                rdma.fill((byte) 0);
                send(s, s.address(START), size, "advertisement of the start buffer (ping " + ping + ")");
                recv = expectInfo(s, recv, "the server's go-ahead (ping " + ping + ")");
                send(s, s.address(rdmaOffset(size)), size, "advertisement of the rdma buffer (ping " + ping + ")");
                recv = expectInfo(s, recv, "the server's done (ping " + ping + ")");
                if (cfg.validate() && start.mismatch(rdma) != -1) {
                    throw new SampleFailure("data mismatch in ping " + ping + " at byte " + start.mismatch(rdma)
                            + ": sent \"" + text(start) + "\", got back \"" + text(rdma) + "\"");
                }
                verified++;
                if (cfg.verbose()) {
                    out.println("ping data: " + text(rdma));
                    out.flush();
                }
            }
            s.ep().disconnect(CloseFlags.GRACEFUL);
            e = s.connectionEvent("the disconnection");
            if (e != EventNumber.CONNECTION_EVENT_DISCONNECTED) {
                throw new SampleFailure("disconnecting: " + e);
            }
            return verified;
        }
    }

    /**
     * The server: takes one client on the qualifier, serves its pings until it disconnects.
     *
     * @return pings served (and, with validation, verified)
     */
    public int server() {
        int size = cfg.size();
        try (SampleSide s = new SampleSide(cfg.iaName(), region(size), 1, cfg.timeoutMillis())) {
            MemorySegment rdma = s.mem().asSlice(START, size);
            PublicServicePoint psp = PublicServicePoint.create(s.ia(), cfg.port(), s.crEvd(), PspFlags.CONSUMER);
            long recv = postRecv(s);
            out.println("rping server listening on port " + cfg.port());
            out.flush();
            DatEvent ev = new DatEvent();
            long wait = Math.max(cfg.timeoutMillis(), 60_000L);
            if (!s.crEvd().waitFor((int) Math.min(Integer.MAX_VALUE, wait * 1000L), 1, ev)
                    || ev.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
                throw new SampleFailure("no connection request within " + wait + " ms");
            }
            ConnectionRequest cr = ev.cr();
            cr.accept(s.ep(), 0, null);
            EventNumber e = s.connectionEvent("the connection");
            if (e != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                throw new SampleFailure("accepting: " + e);
            }
            psp.free();
            int ping = 0;
            for (;;) {
                long n = s.recvOrDisconnect(recv, "the client's start buffer (ping " + ping + ")");
                if (n < 0) {
                    break;
                }
                checkInfoLength(n, "the client's start buffer");
                RmrTriplet src = info(s);
                recv = postRecv(s);
                if (src.segmentLength() > size) {
                    throw new SampleFailure("the client's buffer of " + src.segmentLength()
                            + " bytes exceeds ours of " + size);
                }
                rdma.fill((byte) 0);
                long c = ++cookie;
                s.ep().postRdmaRead(1, new LmrTriplet[] {s.local(START, src.segmentLength())}, c, src,
                        CompletionFlags.DEFAULT);
                s.completion(c, "the RDMA Read of the start buffer (ping " + ping + ")");
                if (cfg.validate()) {
                    MemorySegment want = java.lang.foreign.Arena.ofAuto().allocate(src.segmentLength());
                    fill(want, ping);
                    long at = want.mismatch(rdma.asSlice(0, src.segmentLength()));
                    if (at != -1) {
                        throw new SampleFailure("ping " + ping + ": the data read is not rping's at byte " + at
                                + ": \"" + text(rdma) + "\"");
                    }
                }
                if (cfg.verbose()) {
                    out.println("server ping data: " + text(rdma));
                    out.flush();
                }
                s.mem().asSlice(SEND, INFO).fill((byte) 0);
                long go = postSend(s);
                n = s.recvOrDisconnect(recv, "the client's rdma buffer (ping " + ping + ")");
                if (n < 0) {
                    throw new SampleFailure("the client disconnected in ping " + ping);
                }
                checkInfoLength(n, "the client's rdma buffer");
                RmrTriplet dst = info(s);
                recv = postRecv(s);
                s.completion(go, "the go-ahead Send (ping " + ping + ")");
                long len = Math.min(Math.min(text(rdma).length() + 1L, src.segmentLength()), dst.segmentLength());
                c = ++cookie;
                s.ep().postRdmaWrite(1, new LmrTriplet[] {s.local(START, len)}, c,
                        new RmrTriplet(dst.rmrContext(), dst.targetAddress(), len), CompletionFlags.DEFAULT);
                s.completion(c, "the RDMA Write back (ping " + ping + ")");
                long done = postSend(s);
                s.completion(done, "the done Send (ping " + ping + ")");
                ping++;
            }
            if (cfg.count() > 0 && ping != cfg.count()) {
                throw new SampleFailure("the client disconnected after " + ping + " pings, expected " + cfg.count());
            }
            return ping;
        }
    }

    private long postRecv(SampleSide s) {
        long c = ++cookie;
        s.ep().postRecv(1, new LmrTriplet[] {s.local(RECV, INFO)}, c, CompletionFlags.DEFAULT);
        return c;
    }

    private long postSend(SampleSide s) {
        long c = ++cookie;
        s.ep().postSend(1, new LmrTriplet[] {s.local(SEND, INFO)}, c, CompletionFlags.DEFAULT);
        return c;
    }

    /** Sends an advertisement of {@code size} bytes at {@code address} and waits for its completion. */
    private void send(SampleSide s, long address, int size, String what) {
        MemorySegment m = s.mem().asSlice(SEND, INFO);
        m.set(BE64, 0, address);
        m.set(BE32, 8, s.lmr().rmrContext());
        m.set(BE32, 12, size);
        long c = postSend(s);
        s.completion(c, what);
    }

    /** Waits for a 16-byte message and posts the next receive. */
    private long expectInfo(SampleSide s, long recv, String what) {
        long n = s.recvOrDisconnect(recv, what);
        if (n < 0) {
            throw new SampleFailure("the server disconnected while we waited for " + what);
        }
        checkInfoLength(n, what);
        return postRecv(s);
    }

    private static void checkInfoLength(long n, String what) {
        if (n != INFO) {
            throw new SampleFailure(what + ": received " + n + " bytes, rping sends " + INFO);
        }
    }

    private static RmrTriplet info(SampleSide s) {
        MemorySegment m = s.mem().asSlice(RECV, INFO);
        return new RmrTriplet(m.get(BE32, 8), m.get(BE64, 0), Integer.toUnsignedLong(m.get(BE32, 12)));
    }
}
