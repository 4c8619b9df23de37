package io.jdat.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
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
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * How far jdat is from the floor that any Java program on FFM has (issue 17; docs/verbs-performance.md, "The Java
 * floor"): the send ping-pong by default, the 64 B RDMA Write stream with {@code -Dfloor=write-bw} (below). Two
 * processes, as perftest runs. Each opens two verbs IAs on the same device, one per mode (so each transport polls
 * one connection's CQ, as {@code jdat perf}'s one connection), and connects each to its twin:
 * <ul>
 * <li>DAT: {@code dat_evd_dequeue} until the receive, {@code dat_ep_post_recv} of it, a time stamp,
 * {@code dat_ep_post_send} with {@code SUPPRESS} (as {@code jdat perf}'s sample);
 * <li>raw: the same ping-pong in {@code ib_send_lat}'s own order (poll the CQ for the receive, re-post it, a time
 * stamp, {@code post_send} inline and signalled, poll its completion), through the downcalls, function pointers
 * and work-request layouts the provider uses, on the provider's QP and CQ. The raw IA's poll lock is held from
 * its connection on, and every poll counts as a consumer's poll (as {@code dat_evd_dequeue}'s does), so the
 * progress thread leaves that CQ alone.
 * </ul>
 * Phases of the two alternate in the same JVM pair, so the pair's own speed (which varies from pair to pair under
 * qemu's TCG) is the same for both. Run in the siw-vm guest ({@code interop/verbs-floor.sh}):
 *
 * <pre>
 *   java -cp ... io.jdat.verbs.VerbsFloor server NETDEV - QUAL ITERS PHASES [WARMUP]
 *   java -cp ... io.jdat.verbs.VerbsFloor client NETDEV SERVER-IP QUAL ITERS PHASES [WARMUP]
 * </pre>
 *
 * The server listens on QUAL (raw) and QUAL + 1 (DAT). Both sides first run WARMUP iterations per mode (50,000:
 * C2 without tiers compiles after about 10,000), then PHASES phases of ITERS per mode. The client prints, per
 * phase, the median, minimum and 90th percentile of half the time between two consecutive sends' posts
 * ({@code ib_send_lat}'s {@code tposted[i + 1] - tposted[i]}, one clock reading per iteration in both modes), and
 * last a {@code SUMMARY} line: the median of each mode's phase medians and their ratio. A measurement, not a
 * check: it only fails when a completion does.
 *
 * <p>With {@code -Dfloor=write-bw} the two modes run {@code ib_write_bw}'s stream instead ({@code -s 64 -t 16}:
 * {@code run_iter_bw}): the client keeps {@value #DEPTH} RDMA Writes of 64 B outstanding, a completion asked for
 * every {@value #EVERY}th ({@code cq_mod}); raw posts them (inline, as the provider does, unless
 * {@code -Djdat.verbs.inlineBytes=0}: {@code ib_write_bw} posts none inline) through the provider's downcall and polls
 * {@value #WCS} completions at a time, DAT posts them with {@code dat_ep_post_rdma_write} ({@code SUPPRESS} but for
 * every {@value #EVERY}th, as {@code jdat perf --signal-every}) and dequeues the request EVD. Each phase ends with
 * a Send the server waits for (busy, as {@code ib_write_bw -R}'s server); the server's target is in each
 * connection's private data. ITERS is the writes per phase (a multiple of {@value #EVERY}); the client reports
 * 10<sup>6</sup> bytes per second from the first post to the last completion, its measuring thread's user and system
 * CPU time per write in each mode ({@code /proc/thread-self/stat}), and {@code SUMMARY} gives DAT/raw.
 */
public final class VerbsFloor {
    private static final long RECV_BIT = 1L << 62;
    private static final int RAW_RECVS = 8;
    private static final int DAT_RECVS = 2;
    private static final int SIZE = 64;
    private static final int WCS = 16;
    /** The stream's writes outstanding ({@code ib_write_bw -t 16}) and its completion interval ({@code cq_mod}). */
    private static final int DEPTH = 16;
    private static final int EVERY = 16;
    /** Where the server's buffer takes the stream's writes. */
    private static final long TARGET = 16384;
    private static final boolean STREAM = "write-bw".equals(System.getProperty("floor"));

    private final VerbsTransport t;
    /** The transport's record of a polling consumer: a raw poll counts as one, so the progress thread stays off. */
    private final ConsumerPolling consumer;
    private final long qp;
    private final long cq;
    private final MemorySegment sendWr;
    /** The raw stream's RDMA Write, to the peer's target (client). */
    private final MemorySegment writeWr;
    /** {@code IBV_SEND_INLINE} when the provider's QP takes {@link #SIZE} bytes inline, else 0. */
    private final int inline;
    private final MemorySegment recvWrs;
    private final MemorySegment wcs;
    private final long badWr;
    /** Completions polled, and completions the loop has waited for. */
    private long recvSeen, recvTaken, sendSeen, sendTaken;

    // the DAT connection
    private final Endpoint ep;
    private final EventDispatcher recvEvd;
    private final EventDispatcher reqEvd;
    /** The peer's stream target on the DAT connection (client; set once it is connected). */
    private RmrTriplet datTarget;
    private final LmrTriplet[] sendIov;
    private final LmrTriplet[][] recvIov;
    private final DatEvent ev = new DatEvent();

    private VerbsFloor(VerbsTransport t, VerbsConnection raw, Arena arena, Side rawSide, Side datSide,
            RmrTriplet rawTarget) throws ReflectiveOperationException {
        this.t = t;
        Field cf = VerbsTransport.class.getDeclaredField("consumer");
        cf.setAccessible(true);
        this.consumer = (ConsumerPolling) cf.get(t);
        this.qp = field(raw, "qpAddress");
        this.cq = field(raw, "cqAddress");
        this.ep = datSide.ep;
        this.recvEvd = datSide.recvEvd;
        this.reqEvd = datSide.reqEvd;
        int lkey = deviceKey(rawSide.lmr); // the device's lkey (the core's lmr_context is its own handle)
        int ctx = datSide.lmr.lmrContext();
        long base = rawSide.buf.address();
        long datBase = datSide.buf.address();
        // raw send: one inline SGE of SIZE bytes from offset 0, signalled (ib_send_lat: tx depth 1, cq_mod 1)
        MemorySegment sge = arena.allocate(VerbsLayouts.SGE);
        sge.set(JAVA_LONG, VerbsLayouts.SGE_ADDR, base);
        sge.set(JAVA_INT, VerbsLayouts.SGE_LENGTH, SIZE);
        sge.set(JAVA_INT, VerbsLayouts.SGE_LKEY, lkey);
        sendWr = arena.allocate(VerbsLayouts.SEND_WR);
        sendWr.set(JAVA_LONG, VerbsLayouts.SWR_SG_LIST, sge.address());
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_NUM_SGE, 1);
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_OPCODE, VerbsLayouts.IBV_WR_SEND);
        // inline as the provider's sends and writes are, when its QP takes SIZE bytes inline (jdat.verbs.inlineBytes)
        Field mi = VerbsConnection.class.getDeclaredField("maxInline");
        mi.setAccessible(true);
        this.inline = mi.getInt(raw) >= SIZE ? VerbsLayouts.IBV_SEND_INLINE : 0;
        sendWr.set(JAVA_INT, VerbsLayouts.SWR_SEND_FLAGS, VerbsLayouts.IBV_SEND_SIGNALED | inline);
        writeWr = arena.allocate(VerbsLayouts.SEND_WR);
        writeWr.set(JAVA_LONG, VerbsLayouts.SWR_SG_LIST, sge.address());
        writeWr.set(JAVA_INT, VerbsLayouts.SWR_NUM_SGE, 1);
        writeWr.set(JAVA_INT, VerbsLayouts.SWR_OPCODE, VerbsLayouts.IBV_WR_RDMA_WRITE);
        if (rawTarget != null) {
            writeWr.set(JAVA_LONG, VerbsLayouts.SWR_REMOTE_ADDR, rawTarget.targetAddress());
            writeWr.set(JAVA_INT, VerbsLayouts.SWR_RKEY, rawTarget.rmrContext()); // a verbs rmr_context is the rkey
        }
        // raw receives: RAW_RECVS slots of SIZE bytes from offset 4096
        recvWrs = arena.allocate(VerbsLayouts.RECV_WR.byteSize() * RAW_RECVS, 8);
        MemorySegment rsges = arena.allocate(VerbsLayouts.SGE.byteSize() * RAW_RECVS, 8);
        for (int k = 0; k < RAW_RECVS; k++) {
            long s = k * VerbsLayouts.SGE.byteSize();
            rsges.set(JAVA_LONG, s + VerbsLayouts.SGE_ADDR, base + 4096 + k * 256L);
            rsges.set(JAVA_INT, s + VerbsLayouts.SGE_LENGTH, SIZE);
            rsges.set(JAVA_INT, s + VerbsLayouts.SGE_LKEY, lkey);
            long w = k * VerbsLayouts.RECV_WR.byteSize();
            recvWrs.set(JAVA_LONG, w + VerbsLayouts.RWR_WR_ID, RECV_BIT | k);
            recvWrs.set(JAVA_LONG, w + VerbsLayouts.RWR_SG_LIST, rsges.address() + s);
            recvWrs.set(JAVA_INT, w + VerbsLayouts.RWR_NUM_SGE, 1);
        }
        wcs = arena.allocate(VerbsLayouts.WC.byteSize() * WCS, 8);
        badWr = arena.allocate(JAVA_LONG).address();
        // the DAT connection's buffers: send from 8192, receive into 12288 + 256 k
        sendIov = new LmrTriplet[] {new LmrTriplet(ctx, datBase + 8192, SIZE)};
        recvIov = new LmrTriplet[DAT_RECVS][];
        for (int k = 0; k < DAT_RECVS; k++) {
            recvIov[k] = new LmrTriplet[] {new LmrTriplet(ctx, datBase + 12288 + 256L * k, SIZE)};
        }
    }

    /** One IA with its PZ, EVDs, registered buffer and EP; the server's listens on {@code qual}. */
    private record Side(InterfaceAdapter ia, MemorySegment buf, Lmr lmr, EventDispatcher recvEvd,
            EventDispatcher reqEvd, EventDispatcher connEvd, EventDispatcher crEvd, Endpoint ep) {
        static Side open(String name, String netdev, boolean client, long qual, Arena arena) {
            Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, "verbs", "jdat", 1, 0,
                    netdev + " 0", ""));
            InterfaceAdapter ia = InterfaceAdapter.open(name, 16, null);
            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher recvEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
            EventDispatcher reqEvd = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
            EventDispatcher connEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION);
            Endpoint ep = Endpoint.create(ia, pz, recvEvd, reqEvd, connEvd, null);
            MemorySegment buf = arena.allocate(64 * 1024, 4096);
            Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
            EventDispatcher crEvd = null;
            if (!client) {
                crEvd = EventDispatcher.create(ia, 16, null, EvdFlags.CR);
                PublicServicePoint.create(ia, qual, crEvd, PspFlags.CONSUMER);
            }
            return new Side(ia, buf, lmr, recvEvd, reqEvd, connEvd, crEvd, ep);
        }

        /** Connects; the server accepts with its stream target, which the client gets (the server: null). */
        RmrTriplet connect(boolean client, String peer, long qual) {
            DatEvent e = new DatEvent();
            if (client) {
                ep.connect(new InetSocketAddress(peer, 0), qual, 60_000_000, 0, new byte[0], Qos.BEST_EFFORT, 0);
            } else {
                next(crEvd, e, EventNumber.CONNECTION_REQUEST_EVENT);
                ConnectionRequest cr = e.cr();
                byte[] pd = new byte[RmrTriplet.BYTES];
                lmr.remoteTriplet(TARGET, SIZE).encode(MemorySegment.ofArray(pd), 0);
                cr.accept(ep, pd.length, pd);
            }
            next(connEvd, e, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            return client ? RmrTriplet.decode(MemorySegment.ofArray(e.privateData()), 0) : null;
        }
    }

    public static void main(String[] args) throws Throwable {
        boolean client = args[0].equals("client");
        String netdev = args[1];
        String peer = args[2];
        long qual = Long.parseLong(args[3]);
        int iters = Integer.parseInt(args[4]);
        int phases = Integer.parseInt(args[5]);
        Arena arena = Arena.ofShared();
        // Two IAs, so that each transport polls one connection's CQ (as jdat perf's one connection)
        Side rawSide = Side.open("verbs-raw", netdev, client, qual, arena);
        Side datSide = Side.open("verbs-dat", netdev, client, qual + 1, arena);
        if (!client) {
            System.out.println("listening");
        }
        RmrTriplet rawTarget = rawSide.connect(client, peer, qual);
        VerbsTransport t = VerbsPollTurn.transport(rawSide.ia);
        VerbsConnection[] cs = t.connections.snapshot();
        for (long end = System.nanoTime() + 10_000_000_000L; cs.length == 0 && System.nanoTime() < end; ) {
            Thread.sleep(1); // the provider adds the connection just after it reports ESTABLISHED
            cs = t.connections.snapshot();
        }
        if (cs.length != 1) {
            throw new IllegalStateException(cs.length + " connections");
        }
        // The raw CQ is this thread's from now on: the progress thread, which polls when no consumer has for a
        // while, must not take a raw completion (the peer's first raw Send may come before this side's first raw
        // phase), and it never needs the lock again (no more rdma_cm events on this IA before the exit).
        t.pollLock.lock();
        VerbsFloor p = new VerbsFloor(t, cs[0], arena, rawSide, datSide, rawTarget);
        for (int k = 0; k < RAW_RECVS; k++) {
            p.postRawRecv(k); // before the DAT connection: the peer's first raw Send may follow it at once
        }
        p.datTarget = datSide.connect(client, peer, qual + 1);
        for (int k = 0; k < DAT_RECVS; k++) {
            datSide.ep.postRecv(1, p.recvIov[k], k, CompletionFlags.DEFAULT);
        }
        // each phase's figure: its median latency (µs), or its stream's rate (10^6 B/s)
        double[] rawPhases = new double[phases];
        double[] datPhases = new double[phases];
        // warm-up: WARMUP iterations of each (C2 without tiers compiles after about 10,000)
        int warmup = args.length > 6 ? Integer.parseInt(args[6]) : 50_000;
        if (STREAM) {
            if (iters % EVERY != 0) {
                throw new IllegalArgumentException("ITERS: a multiple of " + EVERY);
            }
            int w = warmup / EVERY * EVERY;
            p.rawStream(client, w);
            p.datStream(client, w);
            long[] rawCpu = new long[2];
            long[] datCpu = new long[2];
            for (int r = 0; r < phases; r++) {
                long[] c0 = threadCpuTicks();
                rawPhases[r] = p.rawStream(client, iters);
                long[] c1 = threadCpuTicks();
                datPhases[r] = p.datStream(client, iters);
                long[] c2 = threadCpuTicks();
                for (int k = 0; k < 2; k++) {
                    rawCpu[k] += c1[k] - c0[k];
                    datCpu[k] += c2[k] - c1[k];
                }
                if (client) {
                    System.out.printf("phase %d: raw %.3f MB/s, dat %.3f MB/s%n", r, rawPhases[r], datPhases[r]);
                }
            }
            if (client) {
                // The measuring thread's CPU time per write, user and system (clock ticks of 10 ms over all phases):
                // the system part holds the doorbell's system call, in which rxe builds and sends the packet.
                double per = 10_000.0 / ((double) iters * phases);
                System.out.printf("CPU per write, us: raw user %.1f system %.1f, dat user %.1f system %.1f%n",
                        rawCpu[0] * per, rawCpu[1] * per, datCpu[0] * per, datCpu[1] * per);
                double raw = median(rawPhases);
                double dat = median(datPhases);
                System.out.printf("SUMMARY raw %.3f dat %.3f ratio %.2f (medians of %d phases, 10^6 B/s)%n", raw,
                        dat, dat / raw, phases);
            }
            System.exit(0);
        }
        long[] stamps = new long[iters];
        long[] warm = new long[warmup];
        p.raw(client, warm);
        p.dat(client, warm);
        for (int r = 0; r < phases; r++) {
            p.raw(client, stamps);
            rawPhases[r] = report(client, "raw", r, stamps);
            p.dat(client, stamps);
            datPhases[r] = report(client, "dat", r, stamps);
        }
        if (client) {
            double raw = median(rawPhases);
            double dat = median(datPhases);
            System.out.printf("SUMMARY raw %.2f dat %.2f ratio %.2f (medians of %d phase medians, us)%n", raw, dat,
                    dat / raw, phases);
        }
        System.exit(0);
    }

    private static void next(EventDispatcher evd, DatEvent e, EventNumber n) {
        if (!evd.waitFor(60_000_000, 1, e) || e.eventNumber() != n) {
            throw new IllegalStateException("expected " + n + ", got " + e);
        }
    }

    /** One raw phase: {@code ib_send_lat}'s loop, stamps[i] at each send's post (client). */
    private void raw(boolean client, long[] stamps) throws Throwable {
        int n = stamps.length;
        if (client) {
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    awaitRecvAndRepost();
                }
                stamps[i] = System.nanoTime();
                postRawSend();
                awaitSend();
            }
            awaitRecvAndRepost();
        } else {
            for (int i = 0; i < n; i++) {
                awaitRecvAndRepost();
                postRawSend();
                awaitSend();
            }
        }
    }

    /** One DAT phase in the same order: dequeue the receive, re-post it, stamp, post the send SUPPRESSed. */
    private void dat(boolean client, long[] stamps) {
        int n = stamps.length;
        if (client) {
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    datRecvAndRepost();
                }
                stamps[i] = System.nanoTime();
                ep.postSend(1, sendIov, i, CompletionFlags.SUPPRESS);
            }
            datRecvAndRepost();
        } else {
            for (int i = 0; i < n; i++) {
                datRecvAndRepost();
                ep.postSend(1, sendIov, i, CompletionFlags.SUPPRESS);
            }
        }
    }

    private long datCookie;

    /**
     * One raw stream phase of {@code n} writes ({@code ib_write_bw}'s {@code run_iter_bw}: post while fewer than
     * {@link #DEPTH} are outstanding, every {@link #EVERY}th signalled, then poll), ended by a Send the server waits
     * for; the client's 10<sup>6</sup> bytes per second from the first post to the last completion.
     */
    private double rawStream(boolean client, int n) throws Throwable {
        if (!client) {
            awaitRecvAndRepost();
            return 0;
        }
        long base = sendSeen;
        long scnt = 0;
        long t0 = System.nanoTime();
        for (long ccnt = 0; ccnt < n; ccnt = (sendSeen - base) * EVERY) {
            for (; scnt < n && scnt - ccnt < DEPTH; scnt++) {
                boolean signal = scnt % EVERY == EVERY - 1;
                writeWr.set(JAVA_LONG, VerbsLayouts.SWR_WR_ID, scnt);
                writeWr.set(JAVA_INT, VerbsLayouts.SWR_SEND_FLAGS, inline
                        | (signal ? VerbsLayouts.IBV_SEND_SIGNALED : 0));
                int rc = (int) Verbs.POST_SEND.invokeExact(t.postSendFn, qp, writeWr.address(), badWr);
                if (rc != 0) {
                    throw new IllegalStateException("post_send (write) " + rc);
                }
            }
            pollOnce();
        }
        long ns = System.nanoTime() - t0;
        sendTaken += n / EVERY;
        postRawSend(); // the phase's end, for the server
        awaitSend();
        return n * (double) SIZE * 1000 / ns;
    }

    /**
     * One DAT stream phase of {@code n} writes: {@code dat_ep_post_rdma_write} while fewer than {@link #DEPTH} are
     * outstanding, every {@link #EVERY}th (and one that fills the window) with an event, the others SUPPRESSed
     * ({@code jdat perf}'s stream), {@code dat_evd_dequeue} of the request EVD for the next event; then the Send.
     */
    private double datStream(boolean client, int n) {
        if (!client) {
            datRecvAndRepost();
            return 0;
        }
        long posted = 0;
        long done = 0;
        long t0 = System.nanoTime();
        while (done < n) {
            for (; posted < n && posted - done < DEPTH; posted++) {
                boolean event = (posted + 1) % EVERY == 0 || posted + 1 == n || posted + 1 - done == DEPTH;
                ep.postRdmaWrite(1, sendIov, posted, datTarget, event ? CompletionFlags.DEFAULT
                        : CompletionFlags.SUPPRESS);
            }
            done = awaitRequest("DAT write") + 1;
        }
        long ns = System.nanoTime() - t0;
        ep.postSend(1, sendIov, -1, CompletionFlags.DEFAULT); // the phase's end, for the server
        awaitRequest("DAT end Send");
        return n * (double) SIZE * 1000 / ns;
    }

    /** Busy-dequeues the request EVD's next event; its cookie. */
    private long awaitRequest(String what) {
        for (int spins = 1; !reqEvd.dequeue(ev); spins++) {
            stuck(spins, what + " completion");
        }
        if (ev.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException(what + ": " + ev);
        }
        return ev.userCookie();
    }

    private void datRecvAndRepost() {
        for (int spins = 1; !recvEvd.dequeue(ev); spins++) { // busy, as jdat perf's poller
            stuck(spins, "DAT receive");
        }
        if (ev.status() != DtoCompletionStatus.SUCCESS) {
            throw new IllegalStateException("DAT receive: " + ev);
        }
        int slot = (int) (datCookie % DAT_RECVS);
        if (ev.userCookie() != datCookie) {
            throw new IllegalStateException("DAT receive cookie " + ev.userCookie() + ", expected " + datCookie);
        }
        datCookie++;
        ep.postRecv(1, recvIov[slot], datCookie + DAT_RECVS - 1, CompletionFlags.DEFAULT);
    }

    /** Every 2^20 looks: fails when the wait began more than a minute ago (the peer is gone). */
    private static void stuck(int spins, String what) {
        if ((spins & 0xFFFFF) == 0) {
            long now = System.nanoTime();
            if (spins == 0x100000) {
                waitStart = now;
            } else if (now - waitStart > 60_000_000_000L) {
                throw new IllegalStateException("no " + what + " for a minute");
            }
        }
    }

    private static long waitStart;

    private void postRawRecv(int slot) throws Throwable {
        int rc = (int) Verbs.POST_RECV.invokeExact(t.postRecvFn, qp,
                recvWrs.address() + slot * VerbsLayouts.RECV_WR.byteSize(), badWr);
        if (rc != 0) {
            throw new IllegalStateException("post_recv " + rc);
        }
    }

    private void postRawSend() throws Throwable {
        int rc = (int) Verbs.POST_SEND.invokeExact(t.postSendFn, qp, sendWr.address(), badWr);
        if (rc != 0) {
            throw new IllegalStateException("post_send " + rc);
        }
    }

    private void awaitRecvAndRepost() throws Throwable {
        long want = ++recvTaken;
        for (int spins = 1; recvSeen < want; spins++) {
            pollOnce();
            stuck(spins, "raw receive");
        }
        postRawRecv((int) ((want - 1) % RAW_RECVS));
    }

    private void awaitSend() throws Throwable {
        long want = ++sendTaken;
        for (int spins = 1; sendSeen < want; spins++) {
            pollOnce();
            stuck(spins, "raw send completion");
        }
    }

    private void pollOnce() throws Throwable {
        consumer.polled();
        int n = (int) Verbs.POLL_CQ.invokeExact(t.pollCqFn, cq, WCS, wcs.address());
        if (n < 0) {
            throw new IllegalStateException("poll_cq " + n);
        }
        for (int i = 0; i < n; i++) {
            long b = i * VerbsLayouts.WC.byteSize();
            int status = wcs.get(JAVA_INT, b + VerbsLayouts.WC_STATUS);
            long id = wcs.get(JAVA_LONG, b + VerbsLayouts.WC_WR_ID);
            if (status != 0) {
                throw new IllegalStateException("wc status " + status + " wr_id " + Long.toHexString(id));
            }
            if ((id & RECV_BIT) != 0) {
                recvSeen++;
            } else {
                sendSeen++;
            }
        }
    }

    private static double report(boolean client, String mode, int phase, long[] stamps) {
        if (!client) {
            return 0;
        }
        double[] half = new double[stamps.length - 1];
        for (int i = 0; i < half.length; i++) {
            half[i] = (stamps[i + 1] - stamps[i]) / 2000.0;
        }
        Arrays.sort(half);
        double med = half[half.length / 2];
        System.out.printf("%s phase %d: median %.2f us, min %.2f, p90 %.2f%n", mode, phase, med, half[0],
                half[half.length * 9 / 10]);
        return med;
    }

    /** This thread's user and system CPU time so far, in clock ticks ({@code /proc/thread-self/stat}, fields 14-15). */
    private static long[] threadCpuTicks() throws java.io.IOException {
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // f[0] is field 3, the state
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static int deviceKey(Lmr lmr) throws ReflectiveOperationException {
        Field f = lmr.getClass().getDeclaredField("deviceKey");
        f.setAccessible(true);
        return f.getInt(lmr);
    }

    private static long field(Object o, String name) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.getLong(o);
    }
}
