package io.jdat.tcp;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
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
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.tcp.FuzzFrames.Seg;
import io.jdat.tcp.FuzzFrames.ServerFpdu;
import io.jdat.tcp.FuzzFrames.ServerStream;
import io.jdat.tcp.FuzzModel.Completion;
import io.jdat.tcp.FuzzModel.Response;
import io.jdat.tcp.FuzzModel.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * The fuzz tests' server and raw peer. The server is a real {@code tcp} IA on loopback: a PSP on any port,
 * a fresh EP per connection with {@value #RECVS} receives posted into a guarded receive area (each receive
 * three pieces with gaps between them), a writable region ({@link MemPriv#ALL}) in the middle of a larger
 * native allocation with guard bytes on both sides, and a local-only region. The peer is a plain
 * {@link Socket} that does the MPA handshake by hand and then writes whatever a {@link Step} list makes,
 * in the chunk sizes asked for.
 *
 * <p>{@link #run} checks, for every case: the server JVM's progress thread is alive and nothing was printed
 * to stderr or thrown uncaught; guard bytes and the local-only region never change; every byte of the
 * writable region and of the receives is what {@link FuzzModel} predicts (where it is determined); the
 * receive completions and Read Responses are the predicted ones; the server sends only well-formed FPDUs
 * and, when the model says so, a Terminate with the predicted layer, type and code; the EP stays connected
 * while everything was valid and otherwise ends BROKEN or DISCONNECTED within {@value #WAIT_MILLIS} ms.
 */
final class FuzzServer implements AutoCloseable {
    static final int GUARD = 512;
    static final int REGION = 4096;
    static final int LOCAL = 1024;
    static final int RECVS = 24;
    static final int SLOT = 3104;
    static final int[][] RECV_SEGS = new int[RECVS][];
    static final int RECV_AREA = RECVS * SLOT;
    static final long WAIT_MILLIS = 5_000;
    /** The sink of the RDMA Read the server issues in some cases: two pieces with a gap, in a guarded area. */
    static final int SINK_AREA = 1024;
    static final int[] SINK_SEGS = {0, 300, 316, 400};
    static final int READ_LENGTH = 640; // shorter than the sink: Read Responses must stay inside what the Read asked for
    static final long READ_COOKIE = 99;
    /** The sink STag of the Read Request that ends a valid case: its response proves the server saw everything. */
    static final int BARRIER_STAG = 0x0BA22E55;

    static {
        for (int i = 0; i < RECVS; i++) {
            int s = i * SLOT;
            RECV_SEGS[i] = new int[] {s, 1500, s + 1516, 1500, s + 3032, 64};
        }
    }

    // Layout of the one native allocation: guard, region, guard, local-only, guard, receive area, guard.
    static final long OFF_REGION = GUARD;
    static final long OFF_LOCAL = OFF_REGION + REGION + GUARD;
    static final long OFF_RECV = OFF_LOCAL + LOCAL + GUARD;
    static final long OFF_SINK = OFF_RECV + RECV_AREA + GUARD;
    static final long TOTAL = OFF_SINK + SINK_AREA + GUARD;

    /**
     * What the steps of a case may refer to: the writable region, the other contexts, and the RDMA Read the
     * server has outstanding (sink STag 0 and length 0 when it has none).
     */
    record Env(long base, int regionLength, int writableContext, int localContext, int recvContext, boolean crc,
            int readSinkStag, long readLength) {
    }

    /** What one step put on the wire: an FPDU (with its segment, for the model) or random bytes. */
    record Emitted(byte[] bytes, Seg seg) {
    }

    /** One piece of a case; it may look at the model's state (expected MSN, MO) to make its bytes. */
    interface Step {
        Emitted emit(Env env, FuzzModel model);
    }

    /**
     * A case: handshake options, whether the server first issues an RDMA Read to the peer, steps, delivery
     * chunk sizes, and where to cut the stream (-1: nowhere).
     */
    record Case(boolean crc, boolean p2p, boolean serverRead, List<? extends Step> steps, List<Integer> chunks,
            int cutPermille) {
        Case(boolean crc, boolean p2p, List<? extends Step> steps, List<Integer> chunks, int cutPermille) {
            this(crc, p2p, false, steps, chunks, cutPermille);
        }
    }

    /** What a case came to, for the example tests. */
    record Result(FuzzModel model, EventNumber serverEvent, ServerStream stream, List<DatEvent> recvs,
            DatEvent read) {
        Integer terminateWord() {
            ServerFpdu t = stream.terminate();
            return t == null ? null : t.terminateWord();
        }
    }

    final String iaName;
    final InterfaceAdapter ia;
    final ProtectionZone pz;
    final EventDispatcher recvEvd;
    final EventDispatcher reqEvd;
    final EventDispatcher connEvd;
    final EventDispatcher crEvd;
    final PublicServicePoint psp;
    final int port;
    final Arena arena = Arena.ofShared();
    final MemorySegment all;
    final Lmr writable;
    final Lmr localOnly;
    final Lmr recvLmr;
    final Lmr sinkLmr;
    private final Thread progressThread;
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream oldErr = System.err;
    private final Thread.UncaughtExceptionHandler oldHandler = Thread.getDefaultUncaughtExceptionHandler();
    private final ConcurrentLinkedQueue<Throwable> uncaught = new ConcurrentLinkedQueue<>();
    private int caseNo;

    FuzzServer(String iaName) {
        TcpTesting.register();
        this.iaName = iaName;
        System.setErr(new PrintStream(new TeeStream(oldErr, errBytes), true));
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        ia = InterfaceAdapter.open(iaName, 16, null);
        pz = ProtectionZone.create(ia);
        recvEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
        reqEvd = EventDispatcher.create(ia, 16, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
        connEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
        crEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CR);
        psp = PublicServicePoint.createAny(ia, crEvd, PspFlags.CONSUMER);
        port = (int) psp.connQual();
        all = arena.allocate(TOTAL, 64);
        for (long i = 0; i < TOTAL; i++) {
            all.set(ValueLayout.JAVA_BYTE, i, guardByte(i));
        }
        for (int i = 0; i < LOCAL; i++) {
            all.set(ValueLayout.JAVA_BYTE, OFF_LOCAL + i, localByte(i));
        }
        writable = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(all.asSlice(OFF_REGION, REGION)), REGION, pz,
                MemPriv.ALL);
        localOnly = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(all.asSlice(OFF_LOCAL, LOCAL)), LOCAL, pz,
                MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
        recvLmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(all.asSlice(OFF_RECV, RECV_AREA)), RECV_AREA,
                pz, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
        sinkLmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(all.asSlice(OFF_SINK, SINK_AREA)), SINK_AREA,
                pz, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
        progressThread = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("jdat-tcp-" + iaName)).findFirst()
                .orElseThrow(() -> new AssertionError("no progress thread jdat-tcp-" + iaName));
    }

    static byte guardByte(long i) {
        return (byte) (0xC3 ^ (i * 7));
    }

    static byte localByte(long i) {
        return (byte) (i * 13 + 5);
    }

    Env env(boolean crc, int readSinkStag, long readLength) {
        return new Env(writable.registeredAddress(), REGION, writable.rmrContext(), localOnly.lmrContext(),
                recvLmr.lmrContext(), crc, readSinkStag, readLength);
    }

    /** Runs one case and checks every invariant; throws {@link AssertionError} with the whole story. */
    Result run(Case c) {
        caseNo++;
        StringBuilder log = new StringBuilder();
        try {
            return runChecked(c, log);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n--- case " + caseNo + ": crc=" + c.crc() + " p2p=" + c.p2p()
                    + " serverRead=" + c.serverRead()
                    + " chunks=" + c.chunks() + " cut=" + c.cutPermille() + "\n" + log, e.getCause());
        }
    }

    private Result runChecked(Case c, StringBuilder log) {
        // Fresh contents for the parts the peer may legitimately change.
        byte[] regionInit = new byte[REGION];
        byte[] recvInit = new byte[RECV_AREA];
        for (int i = 0; i < REGION; i++) {
            regionInit[i] = (byte) (i * 29 + caseNo);
        }
        for (int i = 0; i < RECV_AREA; i++) {
            recvInit[i] = (byte) (i * 17 + 3 * caseNo);
        }
        MemorySegment.copy(regionInit, 0, all, ValueLayout.JAVA_BYTE, OFF_REGION, REGION);
        for (int[] r : RECV_SEGS) {
            for (int k = 0; k < r.length; k += 2) {
                MemorySegment.copy(recvInit, r[k], all, ValueLayout.JAVA_BYTE, OFF_RECV + r[k], r[k + 1]);
            }
        }
        // the gaps between receives keep the guard pattern
        for (int i = 0; i < RECV_AREA; i++) {
            if (!inRecv(i)) {
                recvInit[i] = guardByte(OFF_RECV + i);
            }
        }
        byte[] sinkInit = new byte[SINK_AREA];
        for (int i = 0; i < SINK_AREA; i++) {
            sinkInit[i] = guardByte(OFF_SINK + i);
        }
        for (int k = 0; k < SINK_SEGS.length; k += 2) {
            for (int i = SINK_SEGS[k]; i < SINK_SEGS[k] + SINK_SEGS[k + 1]; i++) {
                sinkInit[i] = (byte) (i * 5 + 7 * caseNo);
            }
        }
        MemorySegment.copy(sinkInit, 0, all, ValueLayout.JAVA_BYTE, OFF_SINK, SINK_AREA);
        drain(recvEvd);
        drain(reqEvd);
        drain(connEvd);
        drain(crEvd);

        Endpoint ep = null;
        Socket s = null;
        Reader reader = null;
        try {
            s = new Socket();
            s.setTcpNoDelay(true);
            s.setSoTimeout((int) WAIT_MILLIS);
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) WAIT_MILLIS);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(FuzzFrames.mpaRequest(c.crc(), c.p2p(), 16, 16, new byte[0]));
            DatEvent cr = waitEvent(crEvd, "the connection request");
            check(cr.eventNumber() == EventNumber.CONNECTION_REQUEST_EVENT, "expected a CR, got " + cr);
            ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, null);
            for (int i = 0; i < RECVS; i++) {
                int[] r = RECV_SEGS[i];
                LmrTriplet[] iov = new LmrTriplet[r.length / 2];
                for (int k = 0; k < r.length; k += 2) {
                    iov[k / 2] = recvLmr.triplet(r[k], r[k + 1]);
                }
                ep.postRecv(iov.length, iov, i, CompletionFlags.DEFAULT);
            }
            ConnectionRequest req = cr.cr();
            req.accept(ep, 0, null);
            byte[] h = new byte[Mpa.HEADER_LENGTH];
            in.readFully(h);
            check(Arrays.equals(h, 0, 16, Mpa.REPLY_KEY, 0, 16), "not an MPA Reply: " + FuzzFrames.hex(h, 0, 20));
            int flags = h[16] & 0xFF;
            check((flags & Mpa.FLAG_REJECT) == 0, "rejected");
            check(((flags & Mpa.FLAG_CRC) != 0) == c.crc(), "Reply CRC flag " + flags);
            byte[] pd = new byte[((h[18] & 0xFF) << 8) | (h[19] & 0xFF)];
            in.readFully(pd);
            check(pd.length >= 4, "Reply without the IRD/ORD block");
            int irdWord = ((pd[0] & 0xFF) << 8) | (pd[1] & 0xFF);
            int ordWord = ((pd[2] & 0xFF) << 8) | (pd[3] & 0xFF);
            check(((irdWord & Mpa.V2_PEER_TO_PEER) != 0) == c.p2p(), "Reply P bit");
            check(!c.p2p() || (ordWord & Mpa.V2_WRITE_RTR) != 0, "Reply did not pick the Write RTR");
            if (c.p2p()) {
                out.write(FuzzFrames.writeRtr(c.crc()));
            }
            DatEvent est = waitEvent(connEvd, "ESTABLISHED");
            check(est.eventNumber() == EventNumber.CONNECTION_EVENT_ESTABLISHED, "expected ESTABLISHED, got " + est);
            reader = new Reader(s.getInputStream());
            int sinkStag = 0;
            if (c.serverRead()) {
                if (!c.p2p()) {
                    // Without an RTR the server sends nothing before the peer's first FPDU (RFC 5044 §7.1.2):
                    // a zero-length RDMA Write into the writable region, which changes nothing the model sees.
                    out.write(FuzzFrames.encode(FuzzFrames.tagged(Ddp.OP_WRITE, true, writable.rmrContext(),
                            writable.registeredAddress(), new byte[0]), c.crc()));
                }
                ep.postRdmaRead(2, new LmrTriplet[] {sinkLmr.triplet(SINK_SEGS[0], SINK_SEGS[1]),
                    sinkLmr.triplet(SINK_SEGS[2], SINK_SEGS[3])}, READ_COOKIE,
                        new RmrTriplet(0x00C0FFEE, 0x10000, READ_LENGTH), CompletionFlags.DEFAULT);
                ServerFpdu rr = reader.awaitReadRequest(c.crc());
                sinkStag = ByteBuffer.wrap(rr.payload()).getInt(0);
                check(ByteBuffer.wrap(rr.payload()).getInt(12) == READ_LENGTH, "server Read Request " + rr);
                log.append(String.format("  server issued an RDMA Read, sink STag %08x%n", sinkStag));
            }
            Env env = env(c.crc(), sinkStag, c.serverRead() ? READ_LENGTH : 0);
            IntFunction<FuzzModel> newModel = ird -> {
                FuzzModel m = new FuzzModel(env.base(), regionInit, env.writableContext(), recvInit, RECV_SEGS,
                        c.crc(), ird);
                m.sink(sinkInit, SINK_SEGS);
                if (c.serverRead()) {
                    m.serverRead(env.readSinkStag(), READ_LENGTH);
                }
                return m;
            };
            FuzzModel model = newModel.apply(irdWord & Mpa.V2_VALUE_MASK);
            // Make all bytes first (the model decides as it goes), then cut and send.
            List<byte[]> parts = new ArrayList<>();
            List<Seg> segs = new ArrayList<>();
            for (Step st : c.steps()) {
                Emitted em = st.emit(env, model);
                parts.add(em.bytes());
                segs.add(em.seg());
                if (em.seg() != null) {
                    model.segment(em.seg());
                } else {
                    model.raw();
                }
            }
            byte[] wire = FuzzFrames.concat(parts);
            int cut = c.cutPermille() < 0 ? -1 : (int) ((long) wire.length * c.cutPermille() / 1000);
            if (cut >= 0) {
                // Replay the model up to the cut (the first pass saw everything).
                model = newModel.apply(irdWord & Mpa.V2_VALUE_MASK);
                int pos = 0;
                for (int i = 0; i < parts.size() && pos < cut; i++) {
                    int end = pos + parts.get(i).length;
                    if (segs.get(i) == null) {
                        model.raw();
                    } else if (end <= cut) {
                        model.segment(segs.get(i));
                    } else {
                        model.truncatedIn(segs.get(i));
                    }
                    pos = end;
                }
                wire = Arrays.copyOf(wire, cut);
            }
            int pos = 0;
            for (int i = 0; i < parts.size(); i++) {
                log.append(String.format("  @%5d %s%n", pos, segs.get(i) == null
                        ? "raw " + parts.get(i).length + " bytes: " + FuzzFrames.hex(parts.get(i), 0, Math.min(32, parts.get(i).length))
                        : segs.get(i)));
                pos += parts.get(i).length;
            }
            if (cut >= 0) {
                log.append("  cut at byte ").append(cut).append(" of ").append(pos).append('\n');
            }
            boolean barrier = !model.decided() && cut < 0;
            if (barrier) {
                Seg b = FuzzFrames.readRequest(model.readMsn, BARRIER_STAG, 0, 0, 0, 0);
                model.segment(b);
                wire = FuzzFrames.concat(List.of(wire, FuzzFrames.encode(b, c.crc())));
                log.append("  then the barrier ").append(b).append('\n');
            }
            model.finish();
            log.append("  model: ").append(model).append('\n');

            boolean writeFailed = send(out, wire, c.chunks());
            if (barrier) {
                check(!writeFailed, "the server stopped reading a valid stream");
                long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
                DatEvent e = new DatEvent();
                while (!reader.sawStag(BARRIER_STAG, c.crc())) {
                    check(!connEvd.dequeue(e), "valid stream, but the server reported " + e);
                    check(System.nanoTime() < deadline, "no answer to the final Read Request; got "
                            + FuzzFrames.parseServer(reader.bytes(), c.crc()));
                    check(!reader.done, "server closed a valid stream: " + reader.error);
                    LockSupport.parkNanos(100_000);
                }
                check(ep.getStatus().epState() == EpState.CONNECTED, "state " + ep.getStatus());
                check(!connEvd.dequeue(e), "valid stream, but the server reported " + e);
            }
            try {
                s.shutdownOutput();
            } catch (IOException e) {
                // reset already
            }
            DatEvent end = waitEvent(connEvd, "the end of the connection");
            EventNumber expected = switch (model.verdict) {
                case VALID -> model.messageOpen() ? EventNumber.CONNECTION_EVENT_BROKEN
                        : EventNumber.CONNECTION_EVENT_DISCONNECTED;
                case ANY -> null;
                default -> EventNumber.CONNECTION_EVENT_BROKEN;
            };
            check(expected == null ? end.eventNumber() == EventNumber.CONNECTION_EVENT_BROKEN
                    || end.eventNumber() == EventNumber.CONNECTION_EVENT_DISCONNECTED : end.eventNumber() == expected,
                    "server EP ended with " + end.eventNumber() + ", expected " + (expected == null ? "BROKEN or DISCONNECTED" : expected));
            reader.await();
            ServerStream stream = FuzzFrames.parseServer(reader.bytes(), c.crc());
            log.append("  server sent: ").append(stream.fpdus()).append(stream.tail() > 0 ? " + " + stream.tail() + " bytes" : "")
                    .append(reader.error == null ? "" : " then " + reader.error).append('\n');
            check(stream.error() == null, stream.error());
            check(stream.tail() == 0 || reader.error != null, "server left half an FPDU before its FIN");
            checkTerminate(model, stream);
            checkResponses(model, stream);
            List<DatEvent> recvs = collectRecvs();
            checkRecvs(model, recvs);
            DatEvent read = c.serverRead() ? checkRead(model) : null;
            checkMemory(model);
            checkHealth();
            return new Result(model, end.eventNumber(), stream, recvs, read);
        } catch (IOException e) {
            throw new AssertionError("peer I/O failed: " + e, e);
        } finally {
            if (s != null) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
            if (reader != null) {
                reader.awaitQuietly();
            }
            if (ep != null) {
                cleanUp(ep);
            }
        }
    }

    /**
     * Sends {@code request} as the first bytes of a fresh connection, then a FIN, and checks what the server
     * makes of it (RFC 5044 §7.1, RFC 6581): a well-formed Request without markers becomes a connection
     * request carrying the consumer's private data (we reject it: Reply with R); one asking for markers gets
     * a rejecting Reply and no CR; anything else (wrong key or revision, private data over 512 bytes or cut
     * short, revision 2 enhanced without its IRD/ORD block) is closed without a Reply and without a CR.
     */
    String runMpa(byte[] request) {
        caseNo++;
        drain(crEvd);
        // What a correct parser must conclude.
        boolean whole = request.length >= Mpa.HEADER_LENGTH;
        int flags = whole ? request[16] & 0xFF : 0;
        int rev = whole ? request[17] & 0xFF : 0;
        int pdLen = whole ? ((request[18] & 0xFF) << 8) | (request[19] & 0xFF) : 0;
        boolean enhanced = rev == 2 && (flags & Mpa.FLAG_ENHANCED) != 0;
        boolean valid = whole && Arrays.equals(request, 0, 16, Mpa.REQUEST_KEY, 0, 16) && (rev == 1 || rev == 2)
                && pdLen <= Mpa.MAX_PRIVATE_DATA && (!enhanced || pdLen >= Mpa.V2_BLOCK)
                && request.length >= Mpa.HEADER_LENGTH + pdLen;
        boolean markers = (flags & Mpa.FLAG_MARKERS) != 0;
        String story = "MPA Request " + FuzzFrames.hex(request, 0, Math.min(request.length, 48))
                + (request.length > 48 ? "... (" + request.length + " bytes)" : "") + ": valid " + valid + ", markers " + markers;
        try (Socket s = new Socket()) {
            s.setSoTimeout((int) WAIT_MILLIS);
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) WAIT_MILLIS);
            Reader reader = new Reader(s.getInputStream());
            try {
                s.getOutputStream().write(request);
                s.shutdownOutput();
            } catch (IOException e) {
                // the server may have closed already (a bad key is seen early)
            }
            DatEvent cr = new DatEvent();
            long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
            boolean gotCr = false;
            while (!reader.done || (valid && !markers && !gotCr)) {
                if (crEvd.dequeue(cr)) {
                    check(!gotCr, story + ": two connection requests");
                    gotCr = true;
                    check(valid && !markers, story + ": the server made a connection request of it");
                    byte[] pd = Arrays.copyOfRange(request, Mpa.HEADER_LENGTH + (enhanced ? Mpa.V2_BLOCK : 0),
                            Mpa.HEADER_LENGTH + pdLen);
                    byte[] got = cr.cr().query(io.jdat.CrParam.FIELD_ALL).privateData();
                    check(Arrays.equals(pd, got), story + ": CR private data " + FuzzFrames.hex(got, 0, got.length));
                    cr.cr().reject();
                }
                check(System.nanoTime() < deadline, story + ": the server neither answered nor closed within "
                        + WAIT_MILLIS + " ms");
                LockSupport.parkNanos(100_000);
            }
            reader.await();
            check(gotCr == (valid && !markers) && !crEvd.dequeue(cr), story + ": connection request " + gotCr);
            byte[] reply = reader.bytes();
            if (valid) {
                check(reply.length >= Mpa.HEADER_LENGTH && Arrays.equals(reply, 0, 16, Mpa.REPLY_KEY, 0, 16)
                        && (reply[16] & Mpa.FLAG_REJECT) != 0 && (reply[16] & Mpa.FLAG_MARKERS) == 0,
                        story + ": expected a rejecting Reply, got " + FuzzFrames.hex(reply, 0, Math.min(reply.length, 32)));
            } else {
                check(reply.length == 0, story + ": the server answered " + FuzzFrames.hex(reply, 0, Math.min(reply.length, 32)));
            }
        } catch (IOException e) {
            throw new AssertionError(story + ": peer I/O failed: " + e, e);
        }
        checkHealth();
        return !valid ? "refused" : markers ? "rejected (markers)" : "connection request";
    }

    /**
     * Peer-to-peer setup (RFC 6581) with {@code rtr} sent where the ready-to-receive FPDU belongs, then a FIN.
     * We offered only the Write RTR, so only a zero-length RDMA Write FPDU (ULPDU of 14 bytes, T and L set,
     * DDP and RDMAP version 1, opcode 0, a right CRC when CRC is on; its STag and TO name no memory) may
     * establish the connection, and our FIN then disconnects it; anything else must fail the accept
     * (ACCEPT_COMPLETION_ERROR) and close the stream, within {@value #WAIT_MILLIS} ms, without a CR of its own.
     *
     * @return what happened, for statistics
     */
    String runRtr(byte[] rtr, boolean crc) {
        caseNo++;
        drain(crEvd);
        drain(connEvd);
        int rtrLength = Ddp.fpduLength(Ddp.TAGGED_HEADER);
        boolean trailing = rtr.length > rtrLength; // stream data after it: the receiver's business
        boolean valid = rtr.length >= rtrLength && (rtr[0] & 0xFF) == 0
                && (rtr[1] & 0xFF) == Ddp.TAGGED_HEADER && (rtr[2] & (Ddp.CTRL_TAGGED | Ddp.CTRL_LAST | 3)) == 0xC1
                && ((rtr[3] & 0xFF) >>> 6) == 1 && (rtr[3] & 0x0F) == Ddp.OP_WRITE;
        if (valid && crc) {
            java.util.zip.CRC32C c = new java.util.zip.CRC32C();
            c.update(rtr, 0, 16);
            valid = Integer.reverseBytes(ByteBuffer.wrap(rtr, 16, 4).getInt()) == (int) c.getValue();
        }
        String story = "RTR " + FuzzFrames.hex(rtr, 0, Math.min(rtr.length, 40)) + " (" + rtr.length + " bytes, crc " + crc
                + "): valid " + valid;
        Endpoint ep = null;
        try (Socket s = new Socket()) {
            s.setSoTimeout((int) WAIT_MILLIS);
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) WAIT_MILLIS);
            s.getOutputStream().write(FuzzFrames.mpaRequest(crc, true, 16, 16, new byte[0]));
            DatEvent cr = waitEvent(crEvd, "the connection request");
            ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, null);
            cr.cr().accept(ep, 0, null);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] h = new byte[Mpa.HEADER_LENGTH];
            in.readFully(h);
            in.readFully(new byte[((h[18] & 0xFF) << 8) | (h[19] & 0xFF)]);
            Reader reader = new Reader(in);
            try {
                s.getOutputStream().write(rtr);
                s.shutdownOutput();
            } catch (IOException e) {
                // closed already
            }
            DatEvent e = waitEvent(connEvd, "the end of setup");
            if (valid) {
                check(e.eventNumber() == EventNumber.CONNECTION_EVENT_ESTABLISHED, story + ": " + e);
                DatEvent end = waitEvent(connEvd, "the end of the connection");
                check(end.eventNumber() == EventNumber.CONNECTION_EVENT_DISCONNECTED
                        || trailing && end.eventNumber() == EventNumber.CONNECTION_EVENT_BROKEN, story + ": then " + end);
            } else {
                check(e.eventNumber() == EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, story + ": " + e);
            }
            reader.await();
            ServerStream sent = FuzzFrames.parseServer(reader.bytes(), crc);
            check(valid && trailing ? sent.error() == null : reader.bytes().length == 0, story + ": the server sent "
                    + FuzzFrames.hex(reader.bytes(), 0, Math.min(32, reader.bytes().length)));
            check(!crEvd.dequeue(cr), story + ": another connection request");
        } catch (IOException e) {
            throw new AssertionError(story + ": peer I/O failed: " + e, e);
        } finally {
            if (ep != null) {
                cleanUp(ep);
            }
        }
        checkHealth();
        return valid ? trailing ? "established, then stream data" : "established" : "accept failed";
    }

    /**
     * The jdat side as initiator: an EP of this IA connects (MPA revision 2, P2P with a Write RTR, as the IA's
     * defaults say) to a raw listener that reads the Request, answers {@code reply}, and then sends a FIN.
     * A well-formed Reply (key, revision 1 or 2, PD_Length at most 512 and all there, the IRD/ORD block when
     * enhanced) without markers establishes the connection, unless it rejects (PEER_REJECTED) or, in
     * peer-to-peer mode, fails to pick the Write RTR we offered (NON_PEER_REJECTED); after ESTABLISHED the
     * FIN disconnects (or, with stream bytes after the Reply, may break) the EP. Anything else is
     * NON_PEER_REJECTED. All within {@value #WAIT_MILLIS} ms.
     *
     * @return the EP's first connection event, for statistics
     */
    String runReply(byte[] reply) {
        caseNo++;
        drain(connEvd);
        boolean whole = reply.length >= Mpa.HEADER_LENGTH;
        int flags = whole ? reply[16] & 0xFF : 0;
        int rev = whole ? reply[17] & 0xFF : 0;
        int pdLen = whole ? ((reply[18] & 0xFF) << 8) | (reply[19] & 0xFF) : 0;
        boolean enhanced = rev == 2 && (flags & Mpa.FLAG_ENHANCED) != 0;
        boolean valid = whole && Arrays.equals(reply, 0, 16, Mpa.REPLY_KEY, 0, 16) && (rev == 1 || rev == 2)
                && pdLen <= Mpa.MAX_PRIVATE_DATA && (!enhanced || pdLen >= Mpa.V2_BLOCK)
                && reply.length >= Mpa.HEADER_LENGTH + pdLen;
        boolean trailing = valid && reply.length > Mpa.HEADER_LENGTH + pdLen;
        int ordWord = valid && enhanced ? ((reply[22] & 0xFF) << 8) | (reply[23] & 0xFF) : 0;
        int irdWord = valid && enhanced ? ((reply[20] & 0xFF) << 8) | (reply[21] & 0xFF) : 0;
        boolean p2p = enhanced && (irdWord & Mpa.V2_PEER_TO_PEER) != 0;
        EventNumber expected = !valid ? EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED
                : (flags & Mpa.FLAG_REJECT) != 0 ? EventNumber.CONNECTION_EVENT_PEER_REJECTED
                : (flags & Mpa.FLAG_MARKERS) != 0 || p2p && (ordWord & Mpa.V2_WRITE_RTR) == 0
                        ? EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED
                : EventNumber.CONNECTION_EVENT_ESTABLISHED;
        String story = "MPA Reply " + FuzzFrames.hex(reply, 0, Math.min(reply.length, 48))
                + (reply.length > 48 ? "... (" + reply.length + " bytes)" : "") + ": expected " + expected;
        Endpoint ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, null);
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setSoTimeout((int) WAIT_MILLIS);
            ep.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), listener.getLocalPort(),
                    (int) (2 * WAIT_MILLIS * 1000), 0, null, io.jdat.Qos.BEST_EFFORT, 0);
            try (Socket s = listener.accept()) {
                s.setSoTimeout((int) WAIT_MILLIS);
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] h = new byte[Mpa.HEADER_LENGTH];
                in.readFully(h);
                check(Arrays.equals(h, 0, 16, Mpa.REQUEST_KEY, 0, 16), "not an MPA Request from jdat");
                in.readFully(new byte[((h[18] & 0xFF) << 8) | (h[19] & 0xFF)]);
                Reader reader = new Reader(in);
                try {
                    s.getOutputStream().write(reply);
                    s.shutdownOutput();
                } catch (IOException e) {
                    // closed already
                }
                DatEvent e = waitEvent(connEvd, "the outcome of the connect");
                check(e.eventNumber() == expected, story + ": got " + e);
                if (expected == EventNumber.CONNECTION_EVENT_ESTABLISHED) {
                    DatEvent end = waitEvent(connEvd, "the end of the connection");
                    check(end.eventNumber() == EventNumber.CONNECTION_EVENT_DISCONNECTED
                            || trailing && end.eventNumber() == EventNumber.CONNECTION_EVENT_BROKEN, story + ": then " + end);
                }
                reader.await();
                boolean crc = (flags & Mpa.FLAG_CRC) != 0;
                byte[] sentBytes = reader.bytes();
                if (expected == EventNumber.CONNECTION_EVENT_ESTABLISHED && p2p) {
                    // the Write RTR first, exactly
                    byte[] rtr = FuzzFrames.writeRtr(crc);
                    check(Arrays.equals(sentBytes, 0, Math.min(rtr.length, sentBytes.length), rtr, 0, rtr.length),
                            story + ": the RTR is " + FuzzFrames.hex(sentBytes, 0, Math.min(32, sentBytes.length)));
                    sentBytes = Arrays.copyOfRange(sentBytes, rtr.length, sentBytes.length);
                }
                ServerStream sent = FuzzFrames.parseServer(sentBytes, crc);
                check(expected == EventNumber.CONNECTION_EVENT_ESTABLISHED ? sent.error() == null : sentBytes.length == 0,
                        story + ": jdat sent " + FuzzFrames.hex(sentBytes, 0, Math.min(32, sentBytes.length)));
            }
        } catch (IOException e) {
            throw new AssertionError(story + ": raw listener I/O failed: " + e, e);
        } finally {
            cleanUp(ep);
        }
        checkHealth();
        return expected.name().replace("CONNECTION_EVENT_", "") + (trailing ? ", then stream data" : "");
    }

    private void cleanUp(Endpoint ep) {
        try {
            if (ep.getStatus().epState() != EpState.DISCONNECTED && ep.getStatus().epState() != EpState.UNCONNECTED) {
                ep.disconnect(CloseFlags.ABRUPT);
                long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
                while (ep.getStatus().epState() != EpState.DISCONNECTED && System.nanoTime() < deadline) {
                    drain(connEvd);
                    LockSupport.parkNanos(1_000_000);
                }
            }
            ep.free();
        } catch (RuntimeException e) {
            throw new AssertionError("could not free the EP: " + e, e);
        }
        drain(recvEvd);
        drain(connEvd);
    }

    private static boolean send(OutputStream out, byte[] wire, List<Integer> chunks) {
        int p = 0;
        int i = 0;
        try {
            while (p < wire.length) {
                int size = chunks.isEmpty() ? wire.length : Math.max(1, chunks.get(i++ % chunks.size()));
                int n = Math.min(size, wire.length - p);
                out.write(wire, p, n);
                out.flush();
                p += n;
                if ((size & 3) == 1 && (i & 7) == 1) {
                    LockSupport.parkNanos(200_000); // let the server see a partial FPDU now and then
                }
            }
            return false;
        } catch (IOException e) {
            return true; // the server reset the stream; what it sent before says why
        }
    }

    private void checkTerminate(FuzzModel m, ServerStream stream) {
        ServerFpdu t = stream.terminate();
        switch (m.verdict) {
            case TERMINATE -> {
                check(t != null, "no Terminate; expected " + Terminate.describe(m.expectedWord));
                check(t.terminateWord() >>> 16 == m.expectedWord >>> 16, "Terminate " + Terminate.describe(t.terminateWord())
                        + ", expected " + Terminate.describe(m.expectedWord));
                check(t.msn() == 1, "Terminate MSN " + t.msn());
            }
            case ANY -> {
                // any or none
            }
            default -> check(t == null, "unexpected " + t);
        }
    }

    private static void checkResponses(FuzzModel m, ServerStream stream) {
        List<int[]> starts = new ArrayList<>(); // per message: index of first FPDU
        List<ByteArrayOutputStream> data = new ArrayList<>();
        ByteArrayOutputStream cur = null;
        for (int i = 0; i < stream.fpdus().size(); i++) {
            ServerFpdu f = stream.fpdus().get(i);
            if (f.isTerminate()) {
                break;
            }
            if (f.isReadRequest()) {
                continue;
            }
            if (cur == null) {
                cur = new ByteArrayOutputStream();
                starts.add(new int[] {i});
            }
            cur.writeBytes(f.payload());
            if (f.last()) {
                data.add(cur);
                cur = null;
            }
        }
        check(cur == null || m.verdict == Verdict.ANY, "a Read Response message without its last segment");
        int certain = m.verdict == Verdict.ANY ? m.certainResponses : m.responses.size();
        if (m.verdict == Verdict.ANY) {
            check(data.size() >= certain, "only " + data.size() + " Read Responses, expected at least " + certain);
        } else {
            check(data.size() == certain, data.size() + " Read Responses, expected " + certain);
        }
        for (int j = 0; j < certain; j++) {
            Response r = m.responses.get(j);
            ServerFpdu first = stream.fpdus().get(starts.get(j)[0]);
            check(first.stag() == r.sinkStag() && first.to() == r.sinkTo(), String.format(
                    "Read Response %d to %08x/%x, expected %08x/%x", j, first.stag(), first.to(), r.sinkStag(), r.sinkTo()));
            byte[] got = data.get(j).toByteArray();
            check(got.length == r.data().length, "Read Response " + j + " of " + got.length + " bytes, expected " + r.data().length);
            for (int k = 0; k < got.length; k++) {
                if (!r.unknown()[k] && got[k] != r.data()[k]) {
                    throw new AssertionError("Read Response " + j + " byte " + k);
                }
            }
        }
    }

    private List<DatEvent> collectRecvs() {
        List<DatEvent> out = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
        while (out.size() < RECVS) {
            DatEvent e = new DatEvent();
            if (recvEvd.dequeue(e)) {
                out.add(e);
            } else {
                check(System.nanoTime() < deadline, "only " + out.size() + " of " + RECVS + " receives completed: " + out);
                LockSupport.parkNanos(100_000);
            }
        }
        return out;
    }

    private DatEvent checkRead(FuzzModel m) {
        DatEvent e = waitEvent(reqEvd, "the completion of the server's RDMA Read");
        check(e.userCookie() == READ_COOKIE, "request completion " + e);
        boolean completed = m.verdict == Verdict.ANY ? m.certainReadCompleted : m.readCompleted;
        if (completed) {
            check(e.status() == DtoCompletionStatus.SUCCESS && e.transferredLength() == READ_LENGTH,
                    "the server's RDMA Read: " + e + ", expected SUCCESS");
        } else if (m.verdict != Verdict.ANY) {
            check(e.status() != DtoCompletionStatus.SUCCESS, "the server's RDMA Read succeeded without its last Read Response");
        }
        return e;
    }

    private static void checkRecvs(FuzzModel m, List<DatEvent> recvs) {
        int certain = m.verdict == Verdict.ANY ? m.certainCompletions : m.completions.size();
        for (int i = 0; i < recvs.size(); i++) {
            DatEvent e = recvs.get(i);
            check(e.eventNumber() == EventNumber.DTO_COMPLETION_EVENT, "receive event " + e);
            check(e.userCookie() == i, "receive " + i + " completed as " + e.userCookie());
            if (i < certain) {
                Completion c = m.completions.get(i);
                check(e.status() == c.status(), "receive " + i + ": " + e.status() + ", expected " + c);
                check(c.length() < 0 || e.transferredLength() == c.length(),
                        "receive " + i + ": " + e.transferredLength() + " bytes, expected " + c);
            } else if (m.verdict != Verdict.ANY) {
                check(e.status() == DtoCompletionStatus.ERR_FLUSHED, "receive " + i + ": " + e.status() + ", expected FLUSHED");
            }
        }
    }

    private void checkMemory(FuzzModel m) {
        byte[] now = all.toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < now.length; i++) {
            byte b = now[i];
            boolean ok;
            if (i >= OFF_REGION && i < OFF_REGION + REGION) {
                int k = (int) (i - OFF_REGION);
                ok = m.regionUnknown[k] || b == m.region[k];
            } else if (i >= OFF_LOCAL && i < OFF_LOCAL + LOCAL) {
                ok = b == localByte(i - OFF_LOCAL);
            } else if (i >= OFF_RECV && i < OFF_RECV + RECV_AREA) {
                int k = (int) (i - OFF_RECV);
                ok = m.recvUnknown[k] || b == m.recvArea[k];
            } else if (i >= OFF_SINK && i < OFF_SINK + SINK_AREA) {
                int k = (int) (i - OFF_SINK);
                ok = m.sinkUnknown[k] || b == m.sinkArea[k];
            } else {
                ok = b == guardByte(i);
            }
            if (!ok) {
                throw new AssertionError(String.format("byte %d of the allocation (%s) is %02x", i, where(i), b));
            }
        }
    }

    private static String where(long i) {
        if (i >= OFF_REGION && i < OFF_REGION + REGION) {
            return "writable region +" + (i - OFF_REGION);
        }
        if (i >= OFF_LOCAL && i < OFF_LOCAL + LOCAL) {
            return "local-only region +" + (i - OFF_LOCAL);
        }
        if (i >= OFF_RECV && i < OFF_RECV + RECV_AREA) {
            int k = (int) (i - OFF_RECV);
            return "receive area +" + k + (inRecv(k) ? ", receive " + k / SLOT : ", between receives");
        }
        if (i >= OFF_SINK && i < OFF_SINK + SINK_AREA) {
            return "RDMA Read sink area +" + (i - OFF_SINK);
        }
        return "guard";
    }

    /** The progress thread lives, nothing went to stderr, nothing was thrown uncaught. */
    void checkHealth() {
        check(progressThread.isAlive(), "the IA's progress thread died");
        System.err.flush();
        String err;
        synchronized (errBytes) {
            err = errBytes.toString();
            errBytes.reset();
        }
        check(err.isEmpty(), "stderr: " + err);
        Throwable t = uncaught.poll();
        if (t != null) {
            throw new AssertionError("uncaught in the server: " + t, t);
        }
    }

    static boolean inRecv(int k) {
        int inSlot = k % SLOT;
        return inSlot < 1500 || (inSlot >= 1516 && inSlot < 3016) || (inSlot >= 3032 && inSlot < 3096);
    }

    private DatEvent waitEvent(EventDispatcher evd, String what) {
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
        DatEvent e = new DatEvent();
        // Polling with dequeue makes the server's receive path run on this thread too, so anything it
        // throws reaches the test.
        while (!evd.dequeue(e)) {
            check(System.nanoTime() < deadline, "no " + what + " within " + WAIT_MILLIS + " ms");
            LockSupport.parkNanos(100_000);
        }
        return e;
    }

    private static void drain(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        while (evd.dequeue(e)) {
            // drop
        }
    }

    static void check(boolean ok, String message) {
        if (!ok) {
            throw new AssertionError(message);
        }
    }

    @Override
    public void close() {
        try {
            checkHealth();
        } finally {
            System.setErr(oldErr);
            Thread.setDefaultUncaughtExceptionHandler(oldHandler);
            try {
                psp.free();
            } finally {
                ia.close(CloseFlags.ABRUPT);
                arena.close();
            }
        }
    }

    /** Collects what the server sends, on its own thread. */
    private static final class Reader {
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        private final Thread thread;
        volatile boolean done;
        volatile String error;

        Reader(InputStream in) {
            thread = Thread.ofVirtual().name("fuzz-peer-reader").start(() -> {
                byte[] b = new byte[8192];
                try {
                    for (;;) {
                        int n = in.read(b);
                        if (n < 0) {
                            break;
                        }
                        synchronized (buf) {
                            buf.write(b, 0, n);
                        }
                    }
                } catch (IOException e) {
                    error = e.toString();
                } finally {
                    done = true;
                }
            });
        }

        byte[] bytes() {
            synchronized (buf) {
                return buf.toByteArray();
            }
        }

        ServerFpdu awaitReadRequest(boolean crc) {
            long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
            for (;;) {
                for (ServerFpdu f : FuzzFrames.parseServer(bytes(), crc).fpdus()) {
                    if (f.isReadRequest()) {
                        return f;
                    }
                }
                check(System.nanoTime() < deadline && !done, "the server's RDMA Read Request did not come");
                LockSupport.parkNanos(100_000);
            }
        }

        boolean sawStag(int stag, boolean crc) {
            for (ServerFpdu f : FuzzFrames.parseServer(bytes(), crc).fpdus()) {
                if (f.tagged() && f.stag() == stag && f.last()) {
                    return true;
                }
            }
            return false;
        }

        void await() {
            awaitQuietly();
            check(!thread.isAlive(), "the server did not close the stream within " + WAIT_MILLIS + " ms");
        }

        void awaitQuietly() {
            try {
                thread.join(WAIT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Copies what threads other than the test's own print to stderr into a buffer the checks look at. */
    private static final class TeeStream extends OutputStream {
        private final PrintStream a;
        private final ByteArrayOutputStream b;
        private final Thread owner = Thread.currentThread();

        TeeStream(PrintStream a, ByteArrayOutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int x) {
            write(new byte[] {(byte) x}, 0, 1);
        }

        @Override
        public void write(byte[] x, int off, int len) {
            a.write(x, off, len);
            if (Thread.currentThread() == owner) {
                return; // the test framework's own messages (jqwik logs from the test thread)
            }
            synchronized (b) {
                b.write(x, off, len);
            }
        }
    }
}
