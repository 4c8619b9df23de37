package io.jdat.tcp;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.zip.CRC32;

/**
 * A DAT peer in another process, for {@link TcpCrossProcessTest}: a main class driven by line commands on
 * stdin that reports on stdout. Everything between the two peers (private data, the LMR coordinates each
 * side exposes, the data itself) goes over DAT; stdin and stdout only start runs and carry verdicts.
 *
 * <p>Commands (one per line):
 * <ul>
 *   <li>{@code listen IA N}: opens IA, prepares N EPs, listens on an ephemeral port and prints
 *       {@code READY port=P}; accepts N connections and runs the {@linkplain #exchange scripted exchange}
 *       on all of them at once as the passive side;</li>
 *   <li>{@code connect IA HOST PORT N}: the same as the active side, connecting N EPs to HOST:PORT;</li>
 *   <li>{@code stream IA HOST PORT N}: connects N EPs and {@linkplain #stream streams} to the peer until
 *       the connection ends (or the process is killed);</li>
 *   <li>{@code exit}: prints {@code BYE} and exits 0 (so does end of input).</li>
 * </ul>
 * A run prints {@code EP i OK digest=XXXXXXXX} or {@code EP i FAIL reason} for each EP, then (after a
 * clean run, once every object is freed and the IA closed gracefully) {@code DONE ok=K fail=F}; a command
 * that throws prints {@code ERROR reason}. The digest is the CRC-32 of every byte the EP received from its peer (see
 * {@link #expectedDigest}), so the other process can check it against what it sent.
 *
 * <p>The exchange code is shared with the test, which runs the other side in its own JVM.
 */
public final class TcpPeerMain {
    /** The side that called {@code dat_ep_connect}; patterns of the data each side sends carry its role. */
    static final int ACTIVE = 1;
    /** The side that accepted. */
    static final int PASSIVE = 2;

    // Operations, for patterns.
    static final int OP_PD = 1;
    static final int OP_SEND_64 = 2;
    static final int OP_SEND_4K = 3;
    static final int OP_SEND_1M = 4;
    static final int OP_WRITE = 5;
    static final int OP_READ_SOURCE = 6;
    static final int OP_STREAM_SEND = 7;
    static final int OP_STREAM_READ_SOURCE = 8;

    /** Private data sizes: the request's and the reply's differ on purpose. */
    static final int REQUEST_PD = 40;
    static final int ACCEPT_PD = 200;

    /** Any single wait of a run; only a broken run waits this long. */
    static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Connection timeout passed to {@code dat_ep_connect}, in microseconds. */
    static final int CONNECT_TIMEOUT_MICROS = 30_000_000;
    private static final int SLICE_MICROS = 10_000;

    private TcpPeerMain() {
    }

    // ================================================================== command loop

    /** Runs the command loop described above. */
    public static void main(String[] args) throws IOException {
        TcpTesting.register();
        io.jdat.shm.ShmTesting.register();
        System.out.println("HELLO pid=" + ProcessHandle.current().pid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] w = line.trim().split("\\s+");
            try {
                switch (w[0]) {
                    case "listen" -> {
                        try (Peer p = Peer.open(w[1], PASSIVE, Integer.parseInt(w[2]), X.SIZE)) {
                            int port = p.listen();
                            java.net.SocketAddress a = p.address();
                            System.out.println("READY port=" + port
                                    + (a instanceof java.net.UnixDomainSocketAddress u ? " addr=" + u.getPath() : ""));
                            report(p, runPassive(p));
                        }
                    }
                    case "connect" -> {
                        try (Peer p = Peer.open(w[1], ACTIVE, Integer.parseInt(w[4]), X.SIZE)) {
                            report(p, runActive(p, w[2], Integer.parseInt(w[3])));
                        }
                    }
                    case "stream" -> {
                        try (Peer p = Peer.open(w[1], ACTIVE, Integer.parseInt(w[4]), S.SIZE)) {
                            stream(p, w[2], Integer.parseInt(w[3]));
                        }
                    }
                    case "exit" -> {
                        System.out.println("BYE");
                        System.exit(0);
                    }
                    default -> System.out.println("ERROR unknown command: " + line);
                }
            } catch (RuntimeException | Error e) {
                e.printStackTrace();
                System.out.println("ERROR " + oneLine(e));
            }
        }
    }

    /** Prints the outcomes; after a clean run, frees everything and closes the IA gracefully first. */
    private static void report(Peer p, List<Outcome> outcomes) {
        int ok = 0;
        for (Outcome o : outcomes) {
            if (o.error() == null) {
                ok++;
                System.out.printf("EP %d OK digest=%08x%n", o.ep(), o.digest());
            } else {
                o.error().printStackTrace();
                System.out.printf("EP %d FAIL %s%n", o.ep(), oneLine(o.error()));
            }
        }
        if (ok == outcomes.size()) {
            p.closeGracefully();
        }
        System.out.printf("DONE ok=%d fail=%d%n", ok, outcomes.size() - ok);
    }

    static String oneLine(Throwable t) {
        return (t.getClass().getSimpleName() + ": " + t.getMessage()).replace('\n', ' ');
    }

    // ================================================================== patterns

    /** The bytes {@code role}'s side sends for operation {@code op} on EP {@code ep} (deterministic). */
    static byte[] pattern(int role, int ep, int op, int len) {
        byte[] b = new byte[len];
        long seed = (((long) role << 40) ^ ((long) ep << 20) ^ op) * 0x9E3779B97F4A7C15L;
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            bb.putLong(i, mix(seed, i >>> 3));
        }
        long w = mix(seed, i >>> 3);
        for (; i < len; i++, w >>>= 8) {
            b[i] = (byte) w;
        }
        return b;
    }

    private static long mix(long seed, long n) {
        long z = seed + (n + 1) * 0x9E3779B97F4A7C15L; // splitmix64
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Private data: the EP index (big-endian), then the pattern. */
    static byte[] privateData(int role, int ep, int len) {
        byte[] b = pattern(role, ep, OP_PD, len);
        ByteBuffer.wrap(b).putInt(0, ep);
        return b;
    }

    /** Fails with the first differing byte when {@code actual} is not {@code expected}. */
    static void check(String what, byte[] expected, byte[] actual) {
        int at = Arrays.mismatch(expected, actual);
        if (at >= 0) {
            throw new AssertionError(what + ": " + actual.length + " bytes, expected " + expected.length
                    + "; first difference at byte " + at
                    + (at < Math.min(expected.length, actual.length)
                            ? String.format(" (0x%02x, expected 0x%02x)", actual[at], expected[at]) : ""));
        }
    }

    /**
     * The CRC-32 of everything the peer of {@code senderRole}'s side receives on EP {@code ep} in one
     * exchange, in this order: private data, the 64 B, 4 KiB and 1 MiB sends, the RDMA Write's target
     * range, the RDMA Read's sink.
     */
    static long expectedDigest(int senderRole, int ep) {
        CRC32 c = new CRC32();
        c.update(privateData(senderRole, ep, senderRole == ACTIVE ? REQUEST_PD : ACCEPT_PD));
        c.update(pattern(senderRole, ep, OP_SEND_64, 64));
        c.update(pattern(senderRole, ep, OP_SEND_4K, 4096));
        c.update(pattern(senderRole, ep, OP_SEND_1M, X.MIB));
        c.update(pattern(senderRole, ep, OP_WRITE, X.RDMA_LEN));
        c.update(pattern(senderRole, ep, OP_READ_SOURCE, X.RDMA_LEN));
        return c.getValue();
    }

    // ================================================================== memory layouts

    /** One piece of a local I/O vector: offset and length in the EP's buffer. */
    record Piece(long offset, long length) {
    }

    /** Hands out offsets with a gap between ranges, so that an I/O vector's pieces are not contiguous. */
    private static final class Allocator {
        long next;

        long take(long size) {
            long at = next;
            next = (at + size + 4096 + 63) & ~63L;
            return at;
        }

        Piece[] pieces(long... lengths) {
            Piece[] p = new Piece[lengths.length];
            for (int i = 0; i < lengths.length; i++) {
                p[i] = new Piece(take(lengths[i]), lengths[i]);
            }
            return p;
        }
    }

    /** The exchange's buffer of one EP. */
    static final class X {
        static final int MIB = 1 << 20;
        /** RDMA Write and Read length: odd, so the last DDP segment is padded; many segments. */
        static final int RDMA_LEN = 300_001;
        static final int CTRL_LEN = 52;
        static final int CTRL_BUF = 64;
        static final int DONE_LEN = 16;
        static final long CTRL_OUT;
        static final long DONE_OUT;
        static final long CTRL_IN;
        static final long DONE_IN;
        static final long S64;
        static final long S4K;
        static final long R64;
        static final long R4K;
        static final long TARGET;
        static final long SOURCE;
        /** The 1 MiB send gathers three pieces and lands in two. */
        static final Piece[] S1M;
        static final Piece[] R1M;
        /** The RDMA Write's source and the RDMA Read's sink, two pieces each. */
        static final Piece[] WSRC;
        static final Piece[] SINK;
        static final long SIZE;

        static {
            Allocator a = new Allocator();
            CTRL_OUT = a.take(CTRL_BUF);
            DONE_OUT = a.take(DONE_LEN);
            CTRL_IN = a.take(CTRL_BUF);
            DONE_IN = a.take(DONE_LEN);
            S64 = a.take(64);
            S4K = a.take(4096);
            R64 = a.take(64);
            R4K = a.take(4096);
            S1M = a.pieces(100_000, 500_000, MIB - 600_000);
            R1M = a.pieces(600_000, MIB - 600_000);
            WSRC = a.pieces(123_457, RDMA_LEN - 123_457);
            SINK = a.pieces(200_000, RDMA_LEN - 200_000);
            TARGET = a.take(RDMA_LEN);
            SOURCE = a.take(RDMA_LEN);
            SIZE = a.next;
        }

        private X() {
        }
    }

    /** The streaming run's buffer of one EP (both sides use the same layout). */
    static final class S {
        static final int MIB = 1 << 20;
        static final int READ_LEN = 256 * 1024;
        /** Receive buffers the survivor keeps posted for the streamer's sends. */
        static final int RECV_SLOTS = 4;
        /**
         * Sends per EP before the streamer goes on with RDMA Writes only: the survivor's reposted receives
         * then stay posted until the connection breaks.
         */
        static final int STREAM_SENDS = 6;
        static final long CTRL_OUT;
        static final long CTRL_IN;
        /** Source of every streamed send and RDMA Write (1 MiB, never changed while streaming). */
        static final long STREAM_SRC;
        /** Where the peer's RDMA Writes land (1 MiB). */
        static final long TARGET;
        /** What the peer's RDMA Reads read (256 KiB). */
        static final long READ_SOURCE;
        static final long[] RECV = new long[RECV_SLOTS];
        static final long[] SINK = new long[3];
        static final long SIZE;

        static {
            Allocator a = new Allocator();
            CTRL_OUT = a.take(X.CTRL_BUF);
            CTRL_IN = a.take(X.CTRL_BUF);
            STREAM_SRC = a.take(MIB);
            TARGET = a.take(MIB);
            READ_SOURCE = a.take(READ_LEN);
            for (int i = 0; i < RECV_SLOTS; i++) {
                RECV[i] = a.take(MIB);
            }
            for (int i = 0; i < SINK.length; i++) {
                SINK[i] = a.take(READ_LEN);
            }
            SIZE = a.next;
        }

        private S() {
        }
    }

    // ================================================================== DAT objects

    /** One process's side: an IA with a PZ, N connections, and a service point when passive. */
    static final class Peer implements AutoCloseable {
        final String iaName;
        final int role;
        final InterfaceAdapter ia;
        final ProtectionZone pz;
        final Arena arena = Arena.ofShared();
        final List<Conn> conns = new ArrayList<>();
        EventDispatcher crEvd;
        PublicServicePoint psp;
        private boolean closed;

        private Peer(String iaName, int role) {
            this.iaName = iaName;
            this.role = role;
            this.ia = InterfaceAdapter.open(iaName, 16, null);
            this.pz = ProtectionZone.create(ia);
        }

        /** Opens {@code iaName} with {@code n} unconnected EPs, each with {@code bytes} of registered memory. */
        static Peer open(String iaName, int role, int n, long bytes) {
            Peer p = new Peer(iaName, role);
            try {
                for (int i = 0; i < n; i++) {
                    p.conns.add(new Conn(p, i, bytes));
                }
            } catch (RuntimeException | Error e) {
                p.close();
                throw e;
            }
            return p;
        }

        /** {@code dat_psp_create_any}: the TCP port it listens on. */
        int listen() {
            crEvd = EventDispatcher.create(ia, Math.max(16, 2 * conns.size()), null, EvdFlags.CR);
            psp = PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);
            return (int) psp.connQual();
        }

        /**
         * Takes the next connection request and accepts it on the EP its private data names.
         *
         * @return the accepting connection
         */
        Conn acceptNext() {
            DatEvent e = new DatEvent();
            if (!crEvd.waitFor((int) (WAIT_NANOS / 1000), 1, e)) {
                throw new AssertionError("no connection request within " + WAIT_NANOS / 1_000_000_000 + " s");
            }
            if (e.eventNumber() != EventNumber.CONNECTION_REQUEST_EVENT) {
                throw new AssertionError("expected a connection request, got " + e);
            }
            ConnectionRequest cr = e.cr();
            CrParam param = cr.query(CrParam.FIELD_ALL);
            byte[] pd = param.privateData();
            int idx = pd.length >= 4 ? ByteBuffer.wrap(pd).getInt(0) : -1;
            if (idx < 0 || idx >= conns.size() || conns.get(idx).requested) {
                cr.reject();
                throw new AssertionError("connection request names EP " + idx + " (" + pd.length + " bytes)");
            }
            Conn c = conns.get(idx);
            c.requested = true;
            check("EP " + idx + " request private data", privateData(ACTIVE, idx, REQUEST_PD), pd);
            c.peerPd = pd;
            byte[] reply = privateData(PASSIVE, idx, ACCEPT_PD);
            cr.accept(c.ep, reply.length, reply);
            return c;
        }

        /** This IA's address ({@code dat_ia_query}). */
        java.net.SocketAddress address() {
            return ia.query(io.jdat.IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
        }

        /**
         * {@code dat_ep_connect} of {@code c} to {@code host:port}, private data naming the EP; a host that is an
         * absolute path is an {@code shm} IA address (its instance directory) and the port its qualifier.
         */
        void connect(Conn c, String host, int port) {
            byte[] pd = privateData(ACTIVE, c.index, REQUEST_PD);
            try {
                java.net.SocketAddress to = host.startsWith("/") ? java.net.UnixDomainSocketAddress.of(host)
                        : new InetSocketAddress(InetAddress.getByName(host), 0);
                c.ep.connect(to, port, CONNECT_TIMEOUT_MICROS, pd.length, pd, Qos.BEST_EFFORT, 0);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalArgumentException(host, e);
            }
        }

        /**
         * Frees every object in order and closes the IA with {@link CloseFlags#GRACEFUL}, which fails if
         * anything is left; then releases the memory.
         */
        void closeGracefully() {
            for (Conn c : conns) {
                c.ep.free();
                c.lmr.free();
                c.dto.free();
                c.conn.free();
            }
            if (psp != null) {
                psp.free();
            }
            if (crEvd != null) {
                crEvd.free();
            }
            pz.free();
            ia.close(CloseFlags.GRACEFUL);
            closed = true;
            arena.close();
        }

        /** Closes the IA abruptly (unless {@link #closeGracefully} did) and releases the memory. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                ia.close(CloseFlags.ABRUPT);
            } finally {
                arena.close();
            }
        }
    }

    /** One EP with its own DTO EVD (receives and requests), connection EVD and registered buffer. */
    static final class Conn {
        final Peer peer;
        final int index;
        final EventDispatcher dto;
        final EventDispatcher conn;
        final Endpoint ep;
        final MemorySegment mem;
        final Lmr lmr;
        private final ArrayDeque<DatEvent> stash = new ArrayDeque<>();
        /** Passive side: a request for this EP arrived. */
        boolean requested;
        /** The private data the peer sent (request or reply). */
        byte[] peerPd;

        Conn(Peer p, int index, long bytes) {
            this.peer = p;
            this.index = index;
            dto = EventDispatcher.create(p.ia, 256, null, EvdFlags.DTO);
            conn = EventDispatcher.create(p.ia, 16, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(p.ia, p.pz, dto, dto, conn, null);
            mem = p.arena.allocate(bytes, 4096);
            lmr = Lmr.create(p.ia, MemType.VIRTUAL, RegionDescription.forVa(mem), bytes, p.pz, MemPriv.ALL);
        }

        LmrTriplet[] iov(long offset, long length) {
            return new LmrTriplet[] {lmr.triplet(offset, length)};
        }

        LmrTriplet[] iov(Piece... pieces) {
            LmrTriplet[] t = new LmrTriplet[pieces.length];
            for (int i = 0; i < pieces.length; i++) {
                t[i] = lmr.triplet(pieces[i].offset(), pieces[i].length());
            }
            return t;
        }

        void put(long offset, byte[] data) {
            MemorySegment.copy(data, 0, mem, ValueLayout.JAVA_BYTE, offset, data.length);
        }

        void put(Piece[] pieces, byte[] data) {
            int at = 0;
            for (Piece p : pieces) {
                MemorySegment.copy(data, at, mem, ValueLayout.JAVA_BYTE, p.offset(), (int) p.length());
                at += (int) p.length();
            }
        }

        byte[] get(long offset, long length) {
            return mem.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
        }

        byte[] get(Piece[] pieces) {
            ByteBuffer b = ByteBuffer.allocate((int) Arrays.stream(pieces).mapToLong(Piece::length).sum());
            for (Piece p : pieces) {
                b.put(get(p.offset(), p.length()));
            }
            return b.array();
        }

        void postSend(long cookie, LmrTriplet... iov) {
            ep.postSend(iov.length, iov, cookie, CompletionFlags.DEFAULT);
        }

        void postRecv(long cookie, LmrTriplet... iov) {
            ep.postRecv(iov.length, iov, cookie, CompletionFlags.DEFAULT);
        }

        /**
         * The next event of this EP: first those an {@link #await} kept, then connection events before
         * completions; {@code null} when none comes within {@code timeoutNanos}.
         */
        DatEvent next(long timeoutNanos) {
            DatEvent kept = stash.poll();
            return kept != null ? kept : poll(timeoutNanos);
        }

        private DatEvent poll(long timeoutNanos) {
            long deadline = System.nanoTime() + timeoutNanos;
            for (;;) {
                DatEvent e = new DatEvent();
                if (conn.dequeue(e)) {
                    return e;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                if (dto.waitFor((int) Math.max(1, Math.min(SLICE_MICROS, left / 1000)), 1, e)) {
                    return e;
                }
            }
        }

        /**
         * The next event satisfying {@code match}. Successful completions and connection events that do not
         * match are kept for a later call (DAT orders no events across EVDs: the peer's DISCONNECTED may be
         * dequeued before the completion that preceded it); a failed completion fails at once, as does a
         * wait of {@link #WAIT_NANOS}.
         */
        DatEvent await(String what, Predicate<DatEvent> match) {
            for (Iterator<DatEvent> it = stash.iterator(); it.hasNext(); ) {
                DatEvent e = it.next();
                if (match.test(e)) {
                    it.remove();
                    return e;
                }
            }
            long deadline = System.nanoTime() + WAIT_NANOS;
            for (;;) {
                DatEvent e = poll(deadline - System.nanoTime());
                if (e == null) {
                    throw new AssertionError("EP " + index + ": no " + what + " within " + WAIT_NANOS / 1_000_000_000
                            + " s; state " + ep.getStatus() + ", kept events " + stash);
                }
                if (match.test(e)) {
                    return e;
                }
                if (e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT || e.status() == DtoCompletionStatus.SUCCESS) {
                    stash.add(e);
                } else {
                    throw new AssertionError("EP " + index + ": while waiting for " + what + ": " + e);
                }
            }
        }

        /** The next connection event, which must be {@code n}. */
        DatEvent awaitConnection(EventNumber n) {
            return await(n.datName(), e -> {
                if (e.eventNumber().isConnectionEvent() && e.eventNumber() != n) {
                    throw new AssertionError("EP " + index + ": while waiting for " + n.datName() + ": " + e);
                }
                return e.eventNumber() == n;
            });
        }

        /** Waits for the successful completion of {@code cookie}; for a receive, checks its length. */
        DatEvent awaitDto(long cookie, long expectedLength) {
            DatEvent e = await("completion of cookie " + cookie, ev -> ev.eventNumber() == EventNumber.DTO_COMPLETION_EVENT
                    && ev.userCookie() == cookie);
            if (expectedLength >= 0 && e.transferredLength() != expectedLength) {
                throw new AssertionError("EP " + index + ": cookie " + cookie + " transferred " + e.transferredLength()
                        + " bytes, expected " + expectedLength);
            }
            return e;
        }
    }

    // ================================================================== control messages

    /** The control message: EP index and role, then the range the peer may write and the one it may read. */
    static void writeCtrl(Conn c, long offset, RmrTriplet writable, RmrTriplet readable) {
        ByteBuffer b = ByteBuffer.allocate(X.CTRL_LEN); // network order, as a C program would send it
        b.putInt(0x4A444154).putInt(c.index).putInt(c.peer.role);
        b.putInt(writable.rmrContext()).putLong(writable.targetAddress()).putLong(writable.segmentLength());
        b.putInt(readable.rmrContext()).putLong(readable.targetAddress()).putLong(readable.segmentLength());
        c.put(offset, b.array());
    }

    /** Parses the peer's control message: [writable, readable]. */
    static RmrTriplet[] readCtrl(Conn c, long offset) {
        ByteBuffer b = ByteBuffer.wrap(c.get(offset, X.CTRL_LEN));
        int magic = b.getInt();
        int idx = b.getInt();
        int role = b.getInt();
        int peerRole = c.peer.role == ACTIVE ? PASSIVE : ACTIVE;
        if (magic != 0x4A444154 || idx != c.index || role != peerRole) {
            throw new AssertionError(String.format("EP %d: bad control message: magic %08x, EP %d, role %d", c.index,
                    magic, idx, role));
        }
        RmrTriplet w = new RmrTriplet(b.getInt(), b.getLong(), b.getLong());
        RmrTriplet r = new RmrTriplet(b.getInt(), b.getLong(), b.getLong());
        return new RmrTriplet[] {w, r};
    }

    // ================================================================== the scripted exchange

    /** What one EP's run came to: the digest of what it received, or why it failed. */
    record Outcome(int ep, long digest, Throwable error) {
    }

    /** Fills the sources and posts the receives (before connecting or accepting). */
    static void prepareExchange(Conn c) {
        int me = c.peer.role;
        int i = c.index;
        c.put(X.S64, pattern(me, i, OP_SEND_64, 64));
        c.put(X.S4K, pattern(me, i, OP_SEND_4K, 4096));
        c.put(X.S1M, pattern(me, i, OP_SEND_1M, X.MIB));
        c.put(X.WSRC, pattern(me, i, OP_WRITE, X.RDMA_LEN));
        c.put(X.SOURCE, pattern(me, i, OP_READ_SOURCE, X.RDMA_LEN));
        // Receives complete in posting order, matching the order the peer sends in.
        c.postRecv(1, c.iov(X.CTRL_IN, X.CTRL_BUF));
        c.postRecv(2, c.iov(X.R64, 64));
        c.postRecv(3, c.iov(X.R4K, 4096));
        c.postRecv(4, c.iov(X.R1M));
        c.postRecv(5, c.iov(X.DONE_IN, X.DONE_LEN));
    }

    /**
     * The scripted exchange on an established EP, run by both sides at once: a control message with the
     * EP's exposed ranges, sends of 64 B, 4 KiB and 1 MiB (gathered from three pieces, scattered into two),
     * an RDMA Write into the peer's range and an RDMA Read of the peer's other range (both with the
     * coordinates from the peer's control message), then a closing message sent after both completed. Every
     * received byte is checked against the peer's pattern.
     *
     * @return the CRC-32 of what was received ({@link #expectedDigest} of the peer's role)
     */
    static long exchange(Conn c) {
        int me = c.peer.role;
        int peer = me == ACTIVE ? PASSIVE : ACTIVE;
        int i = c.index;
        String ep = "EP " + i + " (" + (me == ACTIVE ? "active" : "passive") + ")";
        writeCtrl(c, X.CTRL_OUT, c.lmr.remoteTriplet(X.TARGET, X.RDMA_LEN), c.lmr.remoteTriplet(X.SOURCE, X.RDMA_LEN));
        c.postSend(101, c.iov(X.CTRL_OUT, X.CTRL_LEN));
        c.postSend(102, c.iov(X.S64, 64));
        c.postSend(103, c.iov(X.S4K, 4096));
        c.postSend(104, c.iov(X.S1M));
        c.awaitDto(1, X.CTRL_LEN);
        RmrTriplet[] remote = readCtrl(c, X.CTRL_IN);
        if (remote[0].segmentLength() != X.RDMA_LEN || remote[1].segmentLength() != X.RDMA_LEN) {
            throw new AssertionError(ep + ": peer exposes " + Arrays.toString(remote));
        }
        LmrTriplet[] wsrc = c.iov(X.WSRC);
        c.ep.postRdmaWrite(wsrc.length, wsrc, 105, remote[0], CompletionFlags.DEFAULT);
        LmrTriplet[] sink = c.iov(X.SINK);
        c.ep.postRdmaRead(sink.length, sink, 106, remote[1], CompletionFlags.DEFAULT);
        for (long k = 101; k <= 106; k++) {
            c.awaitDto(k, -1);
        }
        byte[] read = c.get(X.SINK);
        check(ep + " RDMA Read sink", pattern(peer, i, OP_READ_SOURCE, X.RDMA_LEN), read);
        // The peer's RDMA Read of our SOURCE is done once its closing message arrives; and our RDMA Write's
        // bytes are placed at the peer before this message, which follows it on the same stream.
        c.put(X.DONE_OUT, ByteBuffer.allocate(X.DONE_LEN).putInt(0x444F4E45).putInt(i).putLong(-1L).array());
        c.postSend(107, c.iov(X.DONE_OUT, X.DONE_LEN));
        c.awaitDto(2, 64);
        c.awaitDto(3, 4096);
        c.awaitDto(4, X.MIB);
        c.awaitDto(5, X.DONE_LEN);
        c.awaitDto(107, -1);
        byte[] r64 = c.get(X.R64, 64);
        byte[] r4k = c.get(X.R4K, 4096);
        byte[] r1m = c.get(X.R1M);
        byte[] done = c.get(X.DONE_IN, X.DONE_LEN);
        byte[] target = c.get(X.TARGET, X.RDMA_LEN);
        check(ep + " 64 B send", pattern(peer, i, OP_SEND_64, 64), r64);
        check(ep + " 4 KiB send", pattern(peer, i, OP_SEND_4K, 4096), r4k);
        check(ep + " 1 MiB send", pattern(peer, i, OP_SEND_1M, X.MIB), r1m);
        check(ep + " closing message", ByteBuffer.allocate(X.DONE_LEN).putInt(0x444F4E45).putInt(i).putLong(-1L).array(),
                done);
        check(ep + " RDMA Write target", pattern(peer, i, OP_WRITE, X.RDMA_LEN), target);
        CRC32 crc = new CRC32();
        crc.update(c.peerPd);
        crc.update(r64);
        crc.update(r4k);
        crc.update(r1m);
        crc.update(target);
        crc.update(read);
        return crc.getValue();
    }

    /** After the exchange: the active side disconnects gracefully; both must see DISCONNECTED. */
    static void finish(Conn c) {
        if (c.peer.role == ACTIVE) {
            c.ep.disconnect(CloseFlags.GRACEFUL);
        }
        c.awaitConnection(EventNumber.CONNECTION_EVENT_DISCONNECTED);
        EpState st = c.ep.getStatus().epState();
        if (st != EpState.DISCONNECTED) {
            throw new AssertionError("EP " + c.index + " is " + st + " after DISCONNECTED");
        }
    }

    /** The passive side of the exchange on every EP of {@code p}, which already listens. */
    static List<Outcome> runPassive(Peer p) {
        for (Conn c : p.conns) {
            prepareExchange(c);
        }
        ExecutorService pool = Executors.newFixedThreadPool(p.conns.size());
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            Throwable acceptFailure = null;
            for (int k = 0; k < p.conns.size(); k++) {
                Conn c;
                try {
                    c = p.acceptNext();
                } catch (RuntimeException | Error e) {
                    acceptFailure = e;
                    break;
                }
                futures.add(pool.submit(() -> run(c, () -> {
                    c.awaitConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                })));
            }
            return collect(p, futures, acceptFailure);
        } finally {
            pool.shutdownNow();
        }
    }

    /** The active side of the exchange: connects every EP of {@code p} to {@code host:port} at once. */
    static List<Outcome> runActive(Peer p, String host, int port) {
        for (Conn c : p.conns) {
            prepareExchange(c);
        }
        ExecutorService pool = Executors.newFixedThreadPool(p.conns.size());
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (Conn c : p.conns) {
                p.connect(c, host, port);
            }
            for (Conn c : p.conns) {
                futures.add(pool.submit(() -> run(c, () -> {
                    DatEvent est = c.awaitConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED);
                    c.peerPd = est.privateData();
                    check("EP " + c.index + " accept private data", privateData(PASSIVE, c.index, ACCEPT_PD), c.peerPd);
                })));
            }
            return collect(p, futures, null);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Establishment, exchange and disconnect of one EP, as an outcome. */
    private static Outcome run(Conn c, Runnable establish) {
        try {
            establish.run();
            long d = exchange(c);
            finish(c);
            return new Outcome(c.index, d, null);
        } catch (RuntimeException | Error e) {
            return new Outcome(c.index, 0, e);
        }
    }

    /** One outcome per EP, in EP order; an EP whose task never ran fails with {@code missing}. */
    private static List<Outcome> collect(Peer p, List<Future<Outcome>> futures, Throwable missing) {
        Outcome[] byEp = new Outcome[p.conns.size()];
        for (Future<Outcome> f : futures) {
            try {
                Outcome o = f.get(4 * WAIT_NANOS, TimeUnit.NANOSECONDS);
                byEp[o.ep()] = o;
            } catch (java.util.concurrent.ExecutionException e) {
                throw new AssertionError("exchange task failed", e.getCause());
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("exchange task still running after " + 4 * WAIT_NANOS / 1_000_000_000 + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
        List<Outcome> result = new ArrayList<>();
        for (int i = 0; i < byEp.length; i++) {
            result.add(byEp[i] != null ? byEp[i]
                    : new Outcome(i, 0, missing != null ? missing : new AssertionError("EP " + i + " never ran")));
        }
        return result;
    }

    // ================================================================== streaming (for the SIGKILL test)

    /**
     * The streamer: connects every EP, exposes {@link S#READ_SOURCE} to the peer's RDMA Reads in its control
     * message, takes the peer's {@link S#TARGET} from the peer's, then keeps four 1 MiB requests outstanding
     * per EP for as long as the connection lasts: RDMA Writes into the peer's target, alternating with sends
     * for the first {@link S#STREAM_SENDS} sends.
     * It posts no receive for the peer's sends: those wait in its socket (receiver not ready), so a SIGKILL
     * finds unread bytes there and the kernel resets the stream. Prints {@code STREAMING ep=i} once an EP's
     * first requests completed, and {@code STREAM ep=i ENDED ...} if the stream stops.
     */
    static void stream(Peer p, String host, int port) {
        for (Conn c : p.conns) {
            c.put(S.STREAM_SRC, pattern(ACTIVE, c.index, OP_STREAM_SEND, S.MIB));
            c.put(S.READ_SOURCE, pattern(ACTIVE, c.index, OP_STREAM_READ_SOURCE, S.READ_LEN));
            c.postRecv(1, c.iov(S.CTRL_IN, X.CTRL_BUF));
        }
        for (Conn c : p.conns) {
            p.connect(c, host, port);
        }
        List<Thread> threads = new ArrayList<>();
        for (Conn c : p.conns) {
            threads.add(Thread.ofPlatform().name("stream-" + c.index).start(() -> {
                try {
                    streamOne(c);
                } catch (RuntimeException | Error e) {
                    e.printStackTrace();
                    System.out.println("STREAM ep=" + c.index + " ENDED " + oneLine(e));
                }
            }));
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void streamOne(Conn c) {
        DatEvent est = c.awaitConnection(EventNumber.CONNECTION_EVENT_ESTABLISHED);
        c.peerPd = est.privateData();
        check("EP " + c.index + " accept private data", privateData(PASSIVE, c.index, ACCEPT_PD), c.peerPd);
        writeCtrl(c, S.CTRL_OUT, new RmrTriplet(0, 0, 0), c.lmr.remoteTriplet(S.READ_SOURCE, S.READ_LEN));
        c.postSend(101, c.iov(S.CTRL_OUT, X.CTRL_LEN));
        c.awaitDto(101, -1);
        c.awaitDto(1, X.CTRL_LEN);
        RmrTriplet target = readCtrl(c, S.CTRL_IN)[0];
        LmrTriplet[] src = c.iov(S.STREAM_SRC, S.MIB);
        long posted = 0;
        long done = 0;
        for (;;) {
            while (posted - done < 4) {
                long cookie = 1000 + posted;
                if (posted % 2 == 0 || posted > 2 * S.STREAM_SENDS) {
                    c.ep.postRdmaWrite(1, src, cookie, target, CompletionFlags.DEFAULT);
                } else {
                    c.ep.postSend(1, src, cookie, CompletionFlags.DEFAULT);
                }
                posted++;
            }
            DatEvent e = c.next(WAIT_NANOS);
            if (e == null || e.eventNumber() != EventNumber.DTO_COMPLETION_EVENT
                    || e.status() != DtoCompletionStatus.SUCCESS) {
                System.out.println("STREAM ep=" + c.index + " ENDED " + (e == null ? "no event" : e));
                return;
            }
            if (++done == 4) {
                System.out.println("STREAMING ep=" + c.index);
            }
        }
    }
}
