package io.jdat.tools.perf;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.tools.cli.PeerAddress;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.session.CompletionText;
import io.jdat.tools.session.IaSession;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The control connection of a two-process {@code jdat perf}: its own IA and Endpoint, connected on the
 * qualifier the user gives (the measured connection uses the next one). The client sends the run's
 * settings in the first message; after that every {@link Sync#await} is one Send each way
 * ({@link Sync.Barrier}). A watcher thread turns the end of this connection (the peer failed or was
 * killed) into a failure of this side, so it stops at once instead of at its timeout.
 */
final class PerfControl implements Sync.Barrier, AutoCloseable {
    private static final long MAGIC = 0x6A64617463746C31L; // "jdatctl1"
    private static final int SLOTS = 8;
    private static final int SLOT = 1024;
    private static final int KIND_CONFIG = 1;
    private static final int KIND_BARRIER = 2;

    private final IaSession session;
    private final InterfaceAdapter ia;
    private final EventDispatcher recvEvd;
    private final EventDispatcher reqEvd;
    private final EventDispatcher connEvd;
    private final Endpoint ep;
    private final MemorySegment mem;
    private final Lmr lmr;
    private final DatEvent ev = new DatEvent();
    private final long timeoutNanos;
    private final String role;
    private long received;
    private long phase;
    private volatile boolean closing;
    private Thread watcher;

    private PerfControl(String role, String iaName, int timeoutSeconds) {
        this.role = role;
        this.timeoutNanos = timeoutSeconds * 1_000_000_000L;
        session = IaSession.open(iaName, 16);
        ia = session.ia();
        try {
            recvEvd = session.evd(SLOTS + 2, EvdFlags.DTO);
            reqEvd = session.evd(4, EvdFlags.DTO);
            connEvd = session.evd(4, EvdFlags.CONNECTION);
            ep = session.endpoint(recvEvd, reqEvd, connEvd, null);
            mem = session.allocate((long) (SLOTS + 1) * SLOT, 256);
            lmr = session.register(mem, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
            for (int i = 0; i < SLOTS; i++) {
                postRecv(i);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * The server's side: listens on {@code connQual} and accepts the first client.
     *
     * @param iaName         the IA to open
     * @param connQual       the qualifier
     * @param timeoutSeconds the wait limit of barriers and messages
     * @param acceptSeconds  how long to wait for a client (0: forever)
     * @param listening      called with this IA's address once the qualifier listens
     * @return the connected control
     */
    static PerfControl acceptAfter(String iaName, long connQual, int timeoutSeconds, int acceptSeconds,
            java.util.function.Consumer<java.net.SocketAddress> listening) {
        PerfControl c = new PerfControl("server", iaName, timeoutSeconds);
        try {
            EventDispatcher crEvd = c.session.evd(4, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.create(c.ia, connQual, crEvd, PspFlags.CONSUMER);
            listening.accept(c.ia.query(io.jdat.IaAttr.FIELD_ALL, 0).iaAttr().iaAddress());
            long start = System.nanoTime();
            while (true) {
                if (!crEvd.waitFor(100_000, 1, c.ev)) {
                    if (acceptSeconds > 0 && System.nanoTime() - start > acceptSeconds * 1_000_000_000L) {
                        throw new ToolFailure("server: no client connected within " + acceptSeconds + " s");
                    }
                    continue;
                }
                ConnectionRequest cr = c.ev.cr();
                byte[] pd = cr.query(CrParam.FIELD_ALL).privateData();
                // At least the 8 bytes sent: InfiniBand and RoCE deliver the CM message's whole private data area
                // (56 bytes with rdma_cm), zero-padded.
                if (pd.length < 8 || ByteBuffer.wrap(pd).getLong() != MAGIC) {
                    cr.reject(); // not a jdat perf client: wait for one
                    continue;
                }
                cr.accept(c.ep, 8, pd);
                break;
            }
            c.expectConnection("client connection");
            psp.free();
            crEvd.free();
            return c;
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    /**
     * The client's side: connects to the server's control qualifier.
     *
     * @param iaName         the IA to open
     * @param server         the server's IA address
     * @param connQual       the qualifier
     * @param timeoutSeconds the wait limit
     * @return the connected control
     */
    static PerfControl connect(String iaName, SocketAddress server, long connQual, int timeoutSeconds) {
        PerfControl c = new PerfControl("client", iaName, timeoutSeconds);
        try {
            byte[] pd = ByteBuffer.allocate(8).putLong(MAGIC).array();
            c.ep.connect(server, connQual, (int) Math.min(c.timeoutNanos / 1000, Integer.MAX_VALUE), pd.length, pd,
                    Qos.BEST_EFFORT, ConnectFlags.DEFAULT);
            c.expectConnection("connecting to " + PeerAddress.display(server) + " qualifier " + connQual);
            return c;
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    private void expectConnection(String what) {
        long start = System.nanoTime();
        while (!connEvd.waitFor(100_000, 1, ev)) {
            if (System.nanoTime() - start > timeoutNanos) {
                throw new ToolFailure(role + ": " + what + ": no connection within " + timeoutNanos / 1_000_000_000L
                        + " s");
            }
        }
        if (ev.eventNumber() != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            throw new ToolFailure(role + ": " + what + " failed: " + ev.eventNumber().datName()
                    + (ev.eventNumber() == EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED
                            ? " (is 'jdat perf --server' running there, on that qualifier?)" : ""));
        }
    }

    /**
     * From now on, the end of the control connection fails {@code sync} (the peer failed or went away).
     *
     * @param sync this side's control plane
     */
    void watch(Sync sync) {
        watcher = new Thread(() -> {
            DatEvent e = new DatEvent();
            try {
                while (!connEvd.waitFor(200_000, 1, e)) {
                    // until the connection ends, or the IA closes (DAT_ABORT)
                }
                if (!closing) {
                    String peer = role.equals("server") ? "client" : "server";
                    sync.fail(new ToolFailure(role + ": the " + peer + " process went away (it failed or was "
                            + "stopped: its own output says why; the control connection ended with "
                            + e.eventNumber().datName() + ")"));
                }
            } catch (DatException ex) {
                // closed meanwhile
            }
        }, "jdat-perf-control");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** The most sizes (latency and bandwidth together) the settings message carries. */
    static final int MAX_SIZES = (SLOT - 128) / 8;

    /** Sends the run's settings (client). */
    void sendConfig(PerfConfig c) {
        if (c.sizes().size() + c.bwSizes().size() > MAX_SIZES) {
            throw new ToolFailure("too many sizes for a two-process run (at most " + MAX_SIZES + ")");
        }
        ByteBuffer b = ByteBuffer.allocate(SLOT).putLong(MAGIC).putInt(KIND_CONFIG);
        putSizes(b, c.sizes());
        putSizes(b, c.bwSizes());
        int ops = 0;
        for (PerfOp op : c.ops()) {
            ops |= 1 << op.ordinal();
        }
        int tests = 0;
        for (PerfTest t : c.tests()) {
            tests |= 1 << t.ordinal();
        }
        b.putInt(c.warmup()).putInt(c.iterations()).putLong(c.bwBytes()).putInt(c.window())
                .putInt(c.timeoutSeconds()).putInt(ops).putInt(tests).putLong(c.durationNanos())
                .put((byte) (c.waitMode() ? 1 : 0)).put((byte) (c.verify() ? 1 : 0))
                .put((byte) (c.sharedMemory() ? 1 : 0)).put((byte) (c.perOpBuffers() ? 1 : 0))
                .put((byte) (c.serverParks() ? 1 : 0));
        send(b.array(), b.position());
    }

    private static void putSizes(ByteBuffer b, List<Long> sizes) {
        b.putInt(sizes.size());
        for (long s : sizes) {
            b.putLong(s);
        }
    }

    private List<Long> getSizes(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > MAX_SIZES) {
            throw new ToolFailure("server: bad settings from the client (" + n + " sizes)");
        }
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sizes.add(b.getLong());
        }
        return sizes;
    }

    /**
     * Receives the run's settings (server).
     *
     * @param iaName   the server's IA name
     * @param connQual the qualifier of the measured connection
     * @return the client's settings with this side's IA name
     */
    PerfConfig receiveConfig(String iaName, long connQual) {
        ByteBuffer b = receive("the client's settings", KIND_CONFIG);
        try {
            List<Long> sizes = getSizes(b);
            List<Long> bwSizes = getSizes(b);
            int warmup = b.getInt();
            int iterations = b.getInt();
            long bwBytes = b.getLong();
            int window = b.getInt();
            int timeout = b.getInt();
            int opsMask = b.getInt();
            int testsMask = b.getInt();
            long duration = b.getLong();
            boolean wait = b.get() != 0;
            boolean verify = b.get() != 0;
            boolean shared = b.get() != 0;
            boolean perOp = b.get() != 0;
            boolean serverParks = b.hasRemaining() && b.get() != 0; // an older client's settings end before it: spin
            java.util.EnumSet<PerfOp> ops = java.util.EnumSet.noneOf(PerfOp.class);
            for (PerfOp op : PerfOp.values()) {
                if ((opsMask & 1 << op.ordinal()) != 0) {
                    ops.add(op);
                }
            }
            java.util.EnumSet<PerfTest> tests = java.util.EnumSet.noneOf(PerfTest.class);
            for (PerfTest t : PerfTest.values()) {
                if ((testsMask & 1 << t.ordinal()) != 0) {
                    tests.add(t);
                }
            }
            return new PerfConfig(iaName, connQual, sizes, warmup, iterations, bwSizes, bwBytes, window, timeout, ops,
                    tests, duration, wait, verify, shared, perOp, 0, -1, serverParks); // it learns each round's count
        } catch (java.nio.BufferUnderflowException e) {
            throw new ToolFailure("server: the client's settings are too short: do both sides run the same jdat "
                    + "version?");
        }
    }

    /** Meets the peer without a note. */
    public void await(String phaseName) {
        await(phaseName, "");
    }

    @Override
    public String await(String phaseName, String note) {
        long k = ++phase;
        byte[] mine = note.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (mine.length > SLOT - 24) {
            throw new ToolFailure(role + ": a control note of " + mine.length + " bytes does not fit");
        }
        ByteBuffer b = ByteBuffer.allocate(24 + mine.length).putLong(MAGIC).putInt(KIND_BARRIER).putInt(mine.length)
                .putLong(k).put(mine);
        send(b.array(), b.position());
        ByteBuffer r = receive("phase '" + phaseName + "'", KIND_BARRIER);
        int n = r.getInt();
        long got = r.getLong();
        if (got != k) {
            throw new ToolFailure(role + ": out of step with the peer at phase '" + phaseName + "' (#" + k + ", peer #"
                    + got + "): do both sides run the same jdat version?");
        }
        if (n < 0 || n > r.remaining()) {
            throw new ToolFailure(role + ": a malformed control note at phase '" + phaseName + "'");
        }
        byte[] theirs = new byte[n];
        r.get(theirs);
        return new String(theirs, java.nio.charset.StandardCharsets.UTF_8);
    }

    private void send(byte[] data, int length) {
        MemorySegment.copy(data, 0, mem, java.lang.foreign.ValueLayout.JAVA_BYTE, (long) SLOTS * SLOT, length);
        ep.postSend(1, new LmrTriplet[] {lmr.triplet((long) SLOTS * SLOT, length)}, phase, CompletionFlags.DEFAULT);
        DatEvent e = next(reqEvd, "the control send's completion");
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new ToolFailure(role + ": control send failed: " + CompletionText.statusName(e.status())
                    + " (the peer went away)", true);
        }
    }

    private ByteBuffer receive(String what, int kind) {
        DatEvent e = next(recvEvd, what);
        if (e.status() != DtoCompletionStatus.SUCCESS) {
            throw new ToolFailure(role + ": waiting for " + what + ": " + CompletionText.statusName(e.status())
                    + " (the peer went away)", true);
        }
        int slot = (int) (received++ % SLOTS);
        byte[] data = new byte[(int) e.transferredLength()];
        MemorySegment.copy(mem, java.lang.foreign.ValueLayout.JAVA_BYTE, (long) slot * SLOT, data, 0, data.length);
        postRecv(slot);
        ByteBuffer b = ByteBuffer.wrap(data);
        if (data.length < 12 || b.getLong() != MAGIC || b.getInt() != kind) {
            throw new ToolFailure(role + ": waiting for " + what + ": the peer sent something else");
        }
        return b;
    }

    private void postRecv(int slot) {
        ep.postRecv(1, new LmrTriplet[] {lmr.triplet((long) slot * SLOT, SLOT)}, slot, CompletionFlags.DEFAULT);
    }

    private DatEvent next(EventDispatcher evd, String what) {
        long start = System.nanoTime();
        while (!evd.waitFor(100_000, 1, ev)) {
            if (System.nanoTime() - start > timeoutNanos) {
                throw new ToolFailure(role + ": " + what + ": nothing arrived within " + timeoutNanos / 1_000_000_000L
                        + " s");
            }
        }
        if (ev.eventNumber() != EventNumber.DTO_COMPLETION_EVENT) {
            throw new ToolFailure(role + ": " + what + ": unexpected " + ev.eventNumber());
        }
        return ev;
    }

    /**
     * Disconnects gracefully (so the last message reaches the peer before the connection ends), waits up to
     * a second for that, then closes the IA abruptly and frees the memory.
     */
    @Override
    public void close() {
        closing = true;
        try {
            if (ep != null && ep.getStatus().epState() == io.jdat.EpState.CONNECTED) {
                ep.disconnect(CloseFlags.GRACEFUL);
                if (watcher != null) {
                    watcher.join(1000);
                } else {
                    connEvd.waitFor(1_000_000, 1, ev);
                }
            }
        } catch (DatException e) {
            // already gone
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        session.close();
        if (watcher != null) {
            try {
                watcher.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
