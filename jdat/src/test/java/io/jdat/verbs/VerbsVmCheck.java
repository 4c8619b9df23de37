package io.jdat.verbs;

import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.expectDat;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.sentinel;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.Rmr;
import io.jdat.RmrTriplet;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verbs provider's checks on a real kernel RDMA device, run in the siw-vm guest by {@code interop/verbs.sh}
 * (one JVM per device: the guest's JVM takes ~14 s to start). Each check prints {@code PASS name} or
 * {@code FAIL name: why}; the last line is {@code N passed, N failed}; the exit status is the number failed.
 *
 * <pre>
 *   java -cp ... [-Dconformance=CLASS-NAME-PART] io.jdat.verbs.VerbsVmCheck DEVICE-LABEL NETDEV [RPING-SERVER-IP RPING-NETDEV]
 * </pre>
 *
 * With {@code -Dconformance} (empty: every class) the conformance suite follows in the same JVM
 * ({@link VerbsConformance}).
 *
 * Two IAs on the same device (the same address) connect to each other; with an rping server address, jdat
 * also runs the rping protocol against the guest's {@code rping -s}.
 */
public final class VerbsVmCheck {
    private static String ia;
    private static String label;
    private static final Map<String, Check> CHECKS = new LinkedHashMap<>();

    interface Check {
        void run() throws Exception;
    }

    private VerbsVmCheck() {
    }

    /** Names the IA that {@link #connected()} opens, for a program that runs no checks ({@link VerbsPollTurn}). */
    static void ia(String name) {
        ia = name;
    }

    /** Small iovs: siw has 6 SGEs per work request. */
    static EpAttr attr() {
        return DataPath.attr().maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4);
    }

    public static void main(String[] args) throws Exception {
        label = args[0];
        String netdev = args[1];
        ia = "verbs-" + label;
        Registry.addProvider(new RegistryEntry(ia, 'u', 1, 2, true, false, "verbs", "jdat", 1, 0, netdev + " 0", ""));
        String rpingServer = args.length > 2 && System.getProperty("memlock") == null ? args[2] : null;
        if (System.getProperty("memlock") != null) {
            // Run as an unprivileged user under a small RLIMIT_MEMLOCK (interop/verbs.sh): only that.
            CHECKS.put("unprivileged-memlock-" + System.getProperty("memlock") + "KiB", VerbsVmCheck::memlock);
        } else {

        CHECKS.put("open-and-query", VerbsVmCheck::openAndQuery);
        CHECKS.put("connect-private-data-both-ways", VerbsVmCheck::connectPrivateData);
        CHECKS.put("send-recv-64B-1MiB-3-segments", VerbsVmCheck::sendRecv);
        CHECKS.put("rdma-write-read-1MiB", VerbsVmCheck::rdmaWriteRead);
        CHECKS.put("short-reads-across-a-page-of-the-source", VerbsVmCheck::shortReadsAcrossAPage);
        CHECKS.put("suppressed-writes-release-their-slots", VerbsVmCheck::suppressedWrites);
        CHECKS.put("suppressed-tail-released-when-idle", VerbsVmCheck::suppressedTailIdle);
        CHECKS.put("suppressed-run-with-an-error-in-the-middle", VerbsVmCheck::suppressedRunWithError);
        CHECKS.put("reject-is-peer-rejected", VerbsVmCheck::reject);
        CHECKS.put("no-listener-is-non-peer-rejected", VerbsVmCheck::noListener);
        CHECKS.put("disconnect-flushes-receives", VerbsVmCheck::disconnectFlushes);
        CHECKS.put("hostile-wrong-rkey", () -> hostileWrite(true));
        CHECKS.put("hostile-bound-overrun-write", () -> hostileWrite(false));
        CHECKS.put("hostile-bound-overrun-read", VerbsVmCheck::hostileRead);
        CHECKS.put("send-longer-than-receive", VerbsVmCheck::sendTooLong);
        CHECKS.put("message-segments-bounded-by-max-sge", VerbsVmCheck::messageSegments);
        CHECKS.put("rmr-bind-write-then-stale-context", VerbsVmCheck::rmrBindAndStale);
        CHECKS.put("rmr-window-write-read-rebind-stale", VerbsVmCheck::rmrWindowRebind);
        CHECKS.put("rmr-read-only-refuses-write", VerbsVmCheck::rmrReadOnly);
        CHECKS.put("rmr-free-then-stale-context", VerbsVmCheck::rmrFreeThenStale);
        CHECKS.put("rmr-context-usable-on-every-ep-of-its-pz", VerbsVmCheck::rmrPzScope);
        // Before the SRQ checks: what the JIT compiled for the plain send/receive path is measured, not a profile
        // that the SRQ paths widened meanwhile.
        CHECKS.put("post-and-poll-allocate-nothing", VerbsVmCheck::allocationFree);
        CHECKS.put("srq-two-eps-share-buffers", () -> VerbsSrqCheck.shared(ia));
        CHECKS.put("srq-low-watermark-is-limit-event", () -> VerbsSrqCheck.lowWatermark(ia));
        CHECKS.put("srq-resize", () -> VerbsSrqCheck.resize(ia, label.startsWith("rxe")));
        CHECKS.put("srq-message-longer-than-buffer", () -> VerbsSrqCheck.tooLong(ia));
        CHECKS.put("srq-free", () -> VerbsSrqCheck.free(ia));
        }
        if (rpingServer != null) {
            String rpingIa = ia + "-" + args[3];
            Registry.addProvider(new RegistryEntry(rpingIa, 'u', 1, 2, true, false, "verbs", "jdat", 1, 0,
                    args[3] + " 0", ""));
            CHECKS.put("rping-client-against-guest-rping", () -> RpingClient.run(rpingIa, rpingServer, 7174, 10, 64));
        }
        int passed = 0;
        int failed = 0;
        String only = System.getProperty("check", "");
        for (Map.Entry<String, Check> c : CHECKS.entrySet()) {
            if (!only.isEmpty() && java.util.Arrays.stream(only.split(",")).noneMatch(c.getKey()::contains)) {
                continue;
            }
            String name = label + "/" + c.getKey();
            long t0 = System.nanoTime();
            try {
                c.getValue().run();
                passed++;
                System.out.printf("PASS %s (%d ms)%n", name, (System.nanoTime() - t0) / 1_000_000);
            } catch (Throwable e) {
                failed++;
                System.out.printf("FAIL %s: %s%n", name, e);
                e.printStackTrace(System.out);
            }
        }
        if (System.getProperty("conformance") != null) {
            // The provider-neutral suite in the same JVM (a guest JVM takes ~14 s to start, and its JIT warms once).
            int[] r = VerbsConformance.run(label, netdev, System.getProperty("conformance"));
            passed += r[0];
            failed += r[1];
        }
        System.out.printf("%d passed, %d failed%n", passed, failed);
        System.exit(failed);
    }

    /** Generous waits: the guest is emulated and the host shared. */
    static final int WAIT_US = 60_000_000;

    /** A connected pair, with waits long enough for an emulated guest on a loaded host. */
    static Pair connected() {
        return connected(attr());
    }

    static Pair connected(EpAttr a) {
        Pair p = new Pair(ia, a, 64);
        try {
            p.psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            java.net.SocketAddress to = p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            p.client.ep.connect(to, p.psp.connQual(), WAIT_US, 0, new byte[0], Qos.BEST_EFFORT, 0);
            DatEvent cr = next(p.crEvd);
            assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
            cr.cr().accept(p.server.ep, 0, new byte[0]);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, next(p.server.connEvd).eventNumber());
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, next(p.client.connEvd).eventNumber());
            return p;
        } catch (RuntimeException | Error e) {
            p.close();
            throw e;
        }
    }

    /** The next event of {@code evd}, waiting up to a minute. */
    static DatEvent next(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertTrue(evd.waitFor(WAIT_US, 1, e), "no event within 60 s");
        return e;
    }

    static DatEvent dto(EventDispatcher evd, DtoCompletionStatus status, long cookie) {
        DatEvent e = next(evd);
        DataPath.checkDto(e, status, cookie);
        return e;
    }

    static DatEvent dtoOk(EventDispatcher evd, long cookie, long length) {
        DatEvent e = dto(evd, DtoCompletionStatus.SUCCESS, cookie);
        assertEquals(length, e.transferredLength(), "transferred length of " + e);
        return e;
    }

    static DatEvent bind(EventDispatcher evd, DtoCompletionStatus status, long cookie) {
        DatEvent e = next(evd);
        assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, e.eventNumber(), "event number of " + e);
        assertEquals(status, e.status(), "status of " + e);
        assertEquals(cookie, e.userCookie(), "cookie of " + e);
        return e;
    }

    static void expectConn(Pair.Side side, EventNumber n) {
        DatEvent e = next(side.connEvd);
        assertEquals(n, e.eventNumber(), "connection event");
        if (n != EventNumber.CONNECTION_EVENT_ESTABLISHED) {
            assertEquals(EpState.DISCONNECTED, side.ep.getStatus().epState());
        }
    }

    static void expectBroken(Pair p) {
        expectConn(p.client, EventNumber.CONNECTION_EVENT_BROKEN);
        expectConn(p.server, EventNumber.CONNECTION_EVENT_BROKEN);
    }

    /**
     * After the target refused an access, both ends are DISCONNECTED and at least one saw BROKEN: on rxe the
     * initiator (its request failed) and the target when its device failed its QP; on siw the target (an
     * asynchronous QP access error) while the initiator, whose Write or Send completed unacknowledged, sees
     * the target's Terminate only as the connection closing (docs/verbs.md).
     */
    static void expectRefusedBreaks(Pair p) {
        DatEvent i = next(p.client.connEvd);
        DatEvent t = next(p.server.connEvd);
        System.out.println("  initiator: " + i.eventNumber() + ", target: " + t.eventNumber());
        EventNumber broken = EventNumber.CONNECTION_EVENT_BROKEN;
        EventNumber disc = EventNumber.CONNECTION_EVENT_DISCONNECTED;
        assertTrue(i.eventNumber() == broken || i.eventNumber() == disc, "initiator: " + i);
        assertTrue(t.eventNumber() == broken || t.eventNumber() == disc, "target: " + t);
        if (label.startsWith("rxe")) {
            assertEquals(broken, i.eventNumber(), "the initiator's connection event on rxe");
        }
        // siw 6.1: the target sees BROKEN when siw raises an asynchronous QP error (a bound overrun) and
        // DISCONNECTED when it only sends a Terminate and closes (a wrong or stale STag); the initiator sees the
        // close. Both ends always end DISCONNECTED with nothing outside the region changed (docs/verbs.md).
        assertEquals(EpState.DISCONNECTED, p.client.ep.getStatus().epState());
        assertEquals(EpState.DISCONNECTED, p.server.ep.getStatus().epState());
    }

    static void disconnect(Pair p) {
        p.client.ep.disconnect(CloseFlags.ABRUPT);
        expectConn(p.client, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        expectConn(p.server, EventNumber.CONNECTION_EVENT_DISCONNECTED);
    }

    // ------------------------------------------------------------------ checks

    static void openAndQuery() {
        InterfaceAdapter a = InterfaceAdapter.open(ia, 16, null);
        try {
            IaAttr at = a.query(IaAttr.FIELD_ALL, 0).iaAttr();
            System.out.println("  " + ia + ": adapter '" + at.adapterName() + "', address " + at.iaAddress()
                    + ", max message " + at.maxMessageSize() + ", rdma read in/out " + at.maxRdmaReadPerEpIn()
                    + "/" + at.maxRdmaReadPerEpOut());
            assertTrue(at.adapterName().startsWith("verbs "), at.adapterName());
        } finally {
            a.close(CloseFlags.ABRUPT);
        }
    }

    static void connectPrivateData() {
        byte[] req = new byte[40];
        byte[] acc = new byte[48];
        for (int i = 0; i < req.length; i++) {
            req[i] = (byte) (i * 7 + 1);
        }
        for (int i = 0; i < acc.length; i++) {
            acc[i] = (byte) (i * 5 + 3);
        }
        try (Pair p = new Pair(ia, attr(), 64)) {
            PublicServicePoint psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            java.net.SocketAddress to = p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            p.client.ep.connect(to, psp.connQual(), WAIT_US, req.length, req, Qos.BEST_EFFORT, 0);
            DatEvent cr = next(p.crEvd);
            assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
            byte[] got = cr.cr().query(io.jdat.CrParam.FIELD_ALL).privateData();
            assertArrayEquals(req, java.util.Arrays.copyOf(got, req.length), "requester's private data");
            cr.cr().accept(p.server.ep, acc.length, acc);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, next(p.server.connEvd).eventNumber());
            DatEvent est = next(p.client.connEvd);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, est.eventNumber());
            assertArrayEquals(acc, java.util.Arrays.copyOf(est.privateData(), acc.length), "acceptor's private data");
            disconnect(p);
        }
    }

    static void sendRecv() {
        try (Pair p = connected(); Arena arena = Arena.ofShared()) {
            int big = 1 << 20;
            MemorySegment src = arena.allocate(big + 4096, 4096);
            MemorySegment dst = arena.allocate(big + 4096, 4096);
            Lmr sl = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), src.byteSize(), p.client.pz,
                    MemPriv.ALL);
            Lmr dl = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(dst), dst.byteSize(), p.server.pz,
                    MemPriv.ALL);
            // 64 B
            sentinel(dst);
            fill(src, 0, 64, 1);
            p.server.ep.postRecv(1, iov(dl, 0, 4096), 11, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(sl, 0, 64), 12, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 12, 64);
            dtoOk(p.server.recvEvd, 11, 64);
            assertPattern(dst, 0, 64, 1, 0, "64 B send");
            assertUntouched(dst, 64, 4096 - 64, "after the 64 B message");
            // 1 MiB
            sentinel(dst);
            fill(src, 0, big, 2);
            p.server.ep.postRecv(1, iov(dl, 0, big), 13, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(sl, 0, big), 14, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 14, big);
            dtoOk(p.server.recvEvd, 13, big);
            assertPattern(dst, 0, big, 2, 0, "1 MiB send");
            assertUntouched(dst, big, 4096, "after the 1 MiB message");
            // gather 3 segments, scatter into 3 others
            sentinel(dst);
            fill(src, 0, 300, 3);
            p.server.ep.postRecv(3, iov(dl, 1000, 50, 2000, 100, 3000, 1000), 15, CompletionFlags.DEFAULT);
            p.client.ep.postSend(3, iov(sl, 0, 100, 100, 100, 200, 100), 16, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 16, 300);
            dtoOk(p.server.recvEvd, 15, 300);
            assertPattern(dst, 1000, 50, 3, 0, "segment 1");
            assertPattern(dst, 2000, 100, 3, 50, "segment 2");
            assertPattern(dst, 3000, 150, 3, 150, "segment 3");
            assertUntouched(dst, 0, 1000, "before");
            assertUntouched(dst, 3150, 1000, "after");
            disconnect(p);
        }
    }

    /**
     * A Send or a receive cannot be split: the device's {@code max_sge} (siw 6, rxe 32) is the IA's
     * {@code max_iov_segments_per_dto} and bounds {@code max_request_iov} and {@code max_recv_iov}. An EP asking for
     * more is {@code DAT_INVALID_PARAMETER} (ECS-07, EPC-18), a post with more segments than the EP's is too (SND, RCV:
     * num_segments), and the connection stays up; a Send of {@code max_sge} segments into a receive of as many
     * arrives whole. (Before, such a Send reached the device and broke the connection.)
     */
    static void messageSegments() {
        int m;
        try (Pair probe = new Pair(ia, attr(), 4)) {
            m = probe.client.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().maxIovSegmentsPerDto();
            System.out.printf("  max_iov_segments_per_dto %d%n", m);
            assertTrue(m >= 1 && (!label.startsWith("siw") || m == 6), "siw's max_sge is 6, IA reports " + m);
            int more = m + 1;
            expectDat(DatReturnType.INVALID_PARAMETER, null, () -> io.jdat.Endpoint.create(probe.client.ia,
                    probe.client.pz, probe.client.recvEvd, probe.client.reqEvd, probe.client.connEvd,
                    attr().maxRequestIov(more)));
            expectDat(DatReturnType.INVALID_PARAMETER, null, () -> io.jdat.Endpoint.create(probe.client.ia,
                    probe.client.pz, probe.client.recvEvd, probe.client.reqEvd, probe.client.connEvd,
                    attr().maxRecvIov(more)));
        }
        int n = Math.min(m, 8);
        try (Pair p = connected(attr().maxRequestIov(n).maxRecvIov(n)); Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(8192, 4096);
            MemorySegment dst = arena.allocate(8192, 4096);
            Lmr sl = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), src.byteSize(), p.client.pz,
                    MemPriv.ALL);
            Lmr dl = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(dst), dst.byteSize(), p.server.pz,
                    MemPriv.ALL);
            long[] over = new long[2 * (n + 1)];
            long[] sendSegs = new long[2 * n];
            long[] recvSegs = new long[2 * n];
            for (int i = 0; i <= n; i++) {
                over[2 * i] = 100L * i;
                over[2 * i + 1] = 10;
            }
            for (int i = 0; i < n; i++) {
                sendSegs[2 * i] = 100L * i;
                sendSegs[2 * i + 1] = 10;
                recvSegs[2 * i] = 1000L + 200L * i;
                recvSegs[2 * i + 1] = 10;
            }
            expectDat(DatReturnType.INVALID_PARAMETER, null,
                    () -> p.client.ep.postSend(n + 1, iov(sl, over), 20, CompletionFlags.DEFAULT));
            expectDat(DatReturnType.INVALID_PARAMETER, null,
                    () -> p.server.ep.postRecv(n + 1, iov(dl, over), 21, CompletionFlags.DEFAULT));
            sentinel(dst);
            fill(src, 0, 8192, 7);
            p.server.ep.postRecv(n, iov(dl, recvSegs), 22, CompletionFlags.DEFAULT);
            p.client.ep.postSend(n, iov(sl, sendSegs), 23, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 23, 10L * n);
            dtoOk(p.server.recvEvd, 22, 10L * n);
            for (int i = 0; i < n; i++) {
                assertArrayEquals(src.asSlice(100L * i, 10).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        dst.asSlice(1000L + 200L * i, 10).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        "segment " + i);
                assertUntouched(dst, 1010L + 200L * i, 190, "after segment " + i);
            }
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState(), "client still connected");
            assertEquals(EpState.CONNECTED, p.server.ep.getStatus().epState(), "server still connected");
            disconnect(p);
        }
    }

    static void rdmaWriteRead() {
        try (Pair p = connected(); Arena arena = Arena.ofShared()) {
            int big = 1 << 20;
            MemorySegment a = arena.allocate(big + 8192, 4096);
            MemorySegment b = arena.allocate(big + 8192, 4096);
            Lmr al = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(a), a.byteSize(), p.client.pz,
                    MemPriv.ALL);
            Lmr bl = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(b), b.byteSize(), p.server.pz,
                    MemPriv.ALL);
            sentinel(b);
            fill(a, 0, big, 4);
            p.client.ep.postRdmaWrite(1, iov(al, 0, big), 21, bl.remoteTriplet(4096, big), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 21, big);
            assertPattern(b, 4096, big, 4, 0, "RDMA Write target");
            assertUntouched(b, 0, 4096, "before the written range");
            assertUntouched(b, 4096 + big, 4096, "after the written range");
            sentinel(a);
            fill(b, 100, big, 5);
            p.client.ep.postRdmaRead(1, iov(al, 8, big), 22, bl.remoteTriplet(100, big), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 22, big);
            assertPattern(a, 8, big, 5, 0, "RDMA Read result");
            assertUntouched(a, 0, 8, "before the read range");
            assertUntouched(a, 8 + big, 4096, "after the read range");
            disconnect(p);
        }
    }

    /**
     * RDR-02, RDR-04: RDMA Reads of 1 to 64 bytes (and 100) whose source starts 1 to 9 bytes before the end of a page
     * arrive whole. siw 6.1 sends such a short read response wrongly (a byte from beyond the page, the last byte
     * lost: 76 of 154 such reads in a diagnostic run before the provider split them at the responder's pages;
     * docs/verbs.md, "siw: short payloads across a page"); each read here is checked byte for byte, and the sink
     * around it is untouched.
     */
    static void shortReadsAcrossAPage() {
        try (Pair p = connected(); Arena arena = Arena.ofShared()) {
            MemorySegment src = arena.allocate(4 * 4096, 4096);
            MemorySegment sink = arena.allocate(4 * 4096, 4096);
            Lmr sl = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(src), src.byteSize(),
                    p.server.pz, MemPriv.ALL);
            Lmr kl = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(sink), sink.byteSize(),
                    p.client.pz, MemPriv.ALL);
            int[] lens = {1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 17, 31, 32, 33, 48, 51, 63, 64, 100};
            long cookie = 0;
            for (int len : lens) {
                for (int d = 1; d <= Math.min(len, 9); d++) {
                    long from = 4096 - d; // d bytes in one page of the source, the rest in the next
                    fill(src, from, len, (int) cookie);
                    sentinel(sink);
                    long to = 8192 + 100;
                    p.client.ep.postRdmaRead(1, iov(kl, to, len), cookie, sl.remoteTriplet(from, len),
                            CompletionFlags.DEFAULT);
                    dtoOk(p.client.reqEvd, cookie, len);
                    String what = "a read of " + len + " bytes from " + d + " before a page end";
                    assertPattern(sink, to, len, (int) cookie, 0, what);
                    assertUntouched(sink, 0, to, "before " + what);
                    assertUntouched(sink, to + len, sink.byteSize() - to - len, "after " + what);
                    cookie++;
                }
            }
            disconnect(p);
        }
    }

    /**
     * EPM-23, EPQ-04, RWR-03, RWR-08, SND-11: a request posted with DAT_COMPLETION_SUPPRESS_FLAG still leaves the EP's
     * request queue when it completes, with no signalled request after it. Rounds of max_request_dtos SUPPRESSed
     * 64-byte RDMA Writes (a full queue each), the request EVD dequeued until the EP is request-idle (no event may
     * arrive: SUPPRESS hides the successes), then the next round: a slot that only a later signalled completion
     * freed would make round 2's first post fail with DAT_INSUFFICIENT_RESOURCES. Then a write ping-pong pattern as
     * {@code jdat perf}'s server runs it (one SUPPRESSed write per turn, polling between turns) for 4 x
     * max_request_dtos writes, and every write's bytes arrived.
     */
    static void suppressedWrites() {
        int depth = 16;
        try (Pair p = connected(attr().maxRequestDtos(depth))) {
            MemorySegment target = p.server.buf;
            sentinel(target);
            DatEvent e = new DatEvent();
            long seq = 0;
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < depth; i++) {
                    seq++;
                    p.client.buf.set(JAVA_LONG, 64L * i, seq);
                    try {
                        p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 64L * i, 64), seq,
                                p.server.lmr.remoteTriplet(64L * i, 64),
                                CompletionFlags.SUPPRESS);
                    } catch (io.jdat.DatException x) {
                        throw new AssertionError("round " + round + ", write " + i + " of " + depth
                                + ": the earlier SUPPRESSed writes still hold their slots: " + x, x);
                    }
                }
                awaitRequestIdle(p, e, "round " + round);
                for (int i = 0; i < depth; i++) { // siw completes a write when sent: its bytes may follow
                    long want = (long) round * depth + i + 1;
                    awaitWord(target, 64L * i, want, "round " + round + ": write " + i);
                }
            }
            // The ping-pong pattern: one SUPPRESSed write per turn, the EVD dequeued between turns, never idle-waited.
            // The target may see a write's bytes before the device completes it at the requester (siw), so the
            // writes can run up to max_request_dtos ahead of their completions: a post then fails with
            // DAT_INSUFFICIENT_RESOURCES (EPM-23) and is retried while the EVD is dequeued, as jdat perf's write
            // ping-pong does. A slot that never came free would fail the retry after 60 s.
            for (int i = 0; i < 4 * depth; i++) {
                seq++;
                int slot = i % depth;
                p.client.buf.set(JAVA_LONG, 64L * slot, seq);
                long deadline = System.nanoTime() + 60_000_000_000L;
                for (;;) {
                    try {
                        p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 64L * slot, 64), seq,
                                p.server.lmr.remoteTriplet(64L * slot, 64), CompletionFlags.SUPPRESS);
                        break;
                    } catch (io.jdat.DatException x) {
                        if (x.type() != io.jdat.DatReturnType.INSUFFICIENT_RESOURCES) {
                            throw x;
                        }
                    }
                    assertTrue(!p.client.reqEvd.dequeue(e), "an event for a SUPPRESSed write: " + e.status());
                    assertTrue(System.nanoTime() < deadline, "write " + seq + ": no request slot came free in 60 s");
                }
                while ((long) JAVA_LONG_ACQUIRE.getAcquire(target, 64L * slot) != seq) {
                    assertTrue(!p.client.reqEvd.dequeue(e), "an event for a SUPPRESSed write: " + e.status());
                    assertTrue(System.nanoTime() < deadline, "write " + seq + " did not arrive within 60 s");
                }
            }
            awaitRequestIdle(p, e, "ping-pong");
            disconnect(p);
        }
    }

    /**
     * EPM-23, EPQ-04, RWR-08: SUPPRESSed Writes go to the device unsignalled (the provider signals every
     * max_request_dtos/2-th in a row, SendQueue), so a run of 13 on a depth of 16 ends in unsignalled work
     * requests with nothing posted after them. The queue then goes idle: the progress thread's signalled
     * zero-length Write behind the tail must complete them (no event: SUPPRESS hides successes) and make the EP
     * request-idle, round after round, with every write's bytes at the target.
     */
    static void suppressedTailIdle() {
        int depth = 16;
        int run = depth - 3;
        try (Pair p = connected(attr().maxRequestDtos(depth))) {
            MemorySegment target = p.server.buf;
            sentinel(target);
            DatEvent e = new DatEvent();
            long seq = 0;
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < run; i++) {
                    seq++;
                    p.client.buf.set(JAVA_LONG, 64L * i, seq);
                    p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 64L * i, 64), seq,
                            p.server.lmr.remoteTriplet(64L * i, 64), CompletionFlags.SUPPRESS);
                }
                long t0 = System.nanoTime();
                awaitRequestIdle(p, e, "round " + round);
                System.out.printf("  round %d: %d SUPPRESSed writes, request-idle after %d ms%n", round, run,
                        (System.nanoTime() - t0) / 1_000_000);
                for (int i = 0; i < run; i++) {
                    awaitWord(target, 64L * i, (long) round * run + i + 1, "round " + round + ": write " + i);
                }
            }
            assertUntouched(target, 64L * run, 4096, "after the written words");
            disconnect(p);
        }
    }

    /**
     * EPM-23, RWR-08, DTO status mapping: an RDMA Write with a wrong rkey in the middle of SUPPRESSed writes that
     * went to the device unsignalled. The writes before it complete without an event (their bytes arrive); it
     * completes DAT_DTO_ERR_REMOTE_ACCESS (rxe; siw may complete it locally, iWARP has no write
     * acknowledgement); the ones after it are flushed (an event each: SUPPRESS hides only successes; siw may have
     * sent them before the Terminate, or cut one off: DAT_DTO_ERR_LOCAL_EP); the connection breaks and every
     * request slot is free. siw may close the connection before any work completion came: an unsignalled write has
     * none of its own, so the core flushes every request, those whose bytes arrived too (DAT reports a flushed
     * DTO's data as undefined; docs/verbs.md, "SUPPRESSed requests").
     */
    static void suppressedRunWithError() {
        int depth = 16;
        try (Pair p = connected(attr().maxRequestDtos(depth))) {
            MemorySegment target = p.server.buf;
            sentinel(target);
            p.server.ep.postRecv(1, iov(p.server.lmr, 8192, 64), 70, CompletionFlags.DEFAULT);
            int bad = 5;
            for (int k = 1; k <= 9; k++) {
                p.client.buf.set(JAVA_LONG, 64L * k, k);
                RmrTriplet t = p.server.lmr.remoteTriplet(64L * k, 64);
                if (k == bad) {
                    t = new RmrTriplet(t.rmrContext() ^ 0x5A5A00, t.targetAddress(), t.segmentLength());
                }
                p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 64L * k, 64), k, t, CompletionFlags.SUPPRESS);
            }
            expectRefusedBreaks(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 70);
            DatEvent e = new DatEvent();
            java.util.List<String> events = new java.util.ArrayList<>();
            java.util.List<Long> cookies = new java.util.ArrayList<>();
            java.util.List<DtoCompletionStatus> statuses = new java.util.ArrayList<>();
            while (p.client.reqEvd.dequeue(e)) {
                events.add(e.userCookie() + ":" + e.status());
                cookies.add(e.userCookie());
                statuses.add(e.status());
            }
            long last = 0;
            boolean siw = label.startsWith("siw");
            for (int i = 0; i < cookies.size(); i++) {
                long k = cookies.get(i);
                // siw may close the connection (the target's Terminate) before any work completion said that the
                // unsignalled writes before the bad one succeeded: the core then flushes them with the rest.
                assertTrue(k >= bad || siw, "an event for a write before the failed one: " + events);
                assertTrue(k > last, "events out of posting order: " + events);
                last = k;
                DtoCompletionStatus st = statuses.get(i);
                // siw: a write the Terminate cut off while it was sent completes DAT_DTO_ERR_LOCAL_EP
                // (IBV_WC_LOC_QP_OP_ERR), as in the cross-stack case (docs/verbs.md)
                assertTrue(st == (k == bad ? DtoCompletionStatus.ERR_REMOTE_ACCESS : DtoCompletionStatus.ERR_FLUSHED)
                        || siw && (k == bad ? st == DtoCompletionStatus.ERR_FLUSHED : k > bad
                                && st == DtoCompletionStatus.ERR_LOCAL_EP),
                        "write " + k + ": " + events);
            }
            System.out.println("  request events: " + events);
            if (label.startsWith("rxe")) {
                assertEquals(java.util.List.of("5:" + DtoCompletionStatus.ERR_REMOTE_ACCESS, "6:"
                        + DtoCompletionStatus.ERR_FLUSHED, "7:" + DtoCompletionStatus.ERR_FLUSHED, "8:"
                        + DtoCompletionStatus.ERR_FLUSHED, "9:" + DtoCompletionStatus.ERR_FLUSHED), events);
            }
            assertTrue(p.client.ep.getStatus().requestIdle(), "request slots still held after the break");
            for (int k = 1; k < bad; k++) {
                awaitWord(target, 64L * k, k, "write " + k + " before the failed one");
            }
            assertUntouched(target, 64L * bad, 64, "the failed write's target");
            assertUntouched(target, 64L * 10, 4096, "after the written words");
        }
    }

    private static final java.lang.invoke.VarHandle JAVA_LONG_ACQUIRE = JAVA_LONG.varHandle();

    /** Spins (up to 60 s) until the word at {@code offset} of {@code m}, which an RDMA Write places, is {@code want}. */
    private static void awaitWord(MemorySegment m, long offset, long want, String what) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        long v;
        while ((v = (long) JAVA_LONG_ACQUIRE.getAcquire(m, offset)) != want) {
            assertTrue(System.nanoTime() < deadline, what + ": " + v + " after 60 s, not " + want);
            Thread.onSpinWait();
        }
    }

    /** Dequeues the client's request EVD (no event may come) until its EP has no request outstanding (EPQ-04). */
    private static void awaitRequestIdle(Pair p, DatEvent e, String what) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!p.client.ep.getStatus().requestIdle()) {
            assertTrue(!p.client.reqEvd.dequeue(e), what + ": an event for a SUPPRESSed write: " + e.status());
            assertTrue(System.nanoTime() < deadline, what + ": requests still outstanding after 60 s");
            Thread.onSpinWait();
        }
    }

    static void reject() {
        try (Pair p = new Pair(ia, attr(), 64)) {
            PublicServicePoint psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            java.net.SocketAddress to = p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            p.client.ep.connect(to, psp.connQual(), WAIT_US, 0, new byte[0], Qos.BEST_EFFORT, 0);
            DatEvent cr = next(p.crEvd);
            cr.cr().reject();
            expectConn(p.client, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    static void noListener() {
        try (Pair p = new Pair(ia, attr(), 64)) {
            java.net.SocketAddress to = p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            p.client.ep.connect(to, 39999, WAIT_US, 0, new byte[0], Qos.BEST_EFFORT, 0);
            DatEvent e = next(p.client.connEvd);
            assertTrue(e.eventNumber() == EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED
                    || e.eventNumber() == EventNumber.CONNECTION_EVENT_UNREACHABLE, "event " + e);
            assertEquals(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, e.eventNumber(), "event");
        }
    }

    static void disconnectFlushes() {
        try (Pair p = connected()) {
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 31, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 64, 64), 32, CompletionFlags.DEFAULT);
            disconnect(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 31);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 32);
        }
    }

    /** A write with a wrong rkey, or one past the end of the region: the exact status, BROKEN, memory intact. */
    static void hostileWrite(boolean wrongKey) {
        try (Pair p = connected()) {
            sentinel(p.server.buf);
            byte[] before = DataPath.snapshot(p.server.buf);
            fill(p.client.buf, 0, 4096, 6);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 41, CompletionFlags.DEFAULT);
            RmrTriplet t = p.server.lmr.remoteTriplet(0, 4096);
            if (wrongKey) {
                t = new RmrTriplet(t.rmrContext() ^ 0x5A5A00, t.targetAddress(), t.segmentLength());
            } else {
                long size = p.server.lmr.registeredSize();
                t = p.server.lmr.remoteTriplet(size - 1024, 4096); // 3 KiB past the end
            }
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 4096), 42, t, CompletionFlags.DEFAULT);
            DatEvent e = next(p.client.reqEvd);
            assertEquals(42, e.userCookie());
            writerStatus(e);
            expectRefusedBreaks(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 41);
            DataPath.assertUnchanged(p.server.buf, before, "the target region");
        }
    }

    /**
     * The status of an RDMA Write the target refused: DAT_DTO_ERR_REMOTE_ACCESS on InfiniBand/RoCE, where the
     * write is acknowledged. On iWARP the write completes when it is sent (RDMAP has no write acknowledgement):
     * the target's Terminate breaks the connection afterwards, so siw may report SUCCESS first (docs/verbs.md).
     */
    static void writerStatus(DatEvent e) {
        if (label.startsWith("siw") && e.status() == DtoCompletionStatus.SUCCESS) {
            System.out.println("  iWARP: the write completed locally; the target's Terminate breaks the connection");
            return;
        }
        assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, e.status(), "the writer's status");
    }

    static void hostileRead() {
        try (Pair p = connected()) {
            sentinel(p.client.buf);
            // The target holds a receive: without one, rdma_rxe (no asynchronous QP error event) lets the target
            // see only the initiator's disconnect (docs/verbs.md).
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 50, CompletionFlags.DEFAULT);
            long size = p.server.lmr.registeredSize();
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 0, 4096), 51, p.server.lmr.remoteTriplet(size - 100, 4096),
                    CompletionFlags.DEFAULT);
            DatEvent e = next(p.client.reqEvd);
            if (label.startsWith("siw") && e.status() == DtoCompletionStatus.ERR_FLUSHED) {
                // siw answers the refused read with a Terminate and an asynchronous QP error, and flushes the read.
                System.out.println("  siw: the read was flushed after the target's Terminate");
            } else {
                assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, e.status(), "the reader's status");
            }
            expectRefusedBreaks(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 50);
        }
    }

    static void sendTooLong() {
        try (Pair p = connected()) {
            sentinel(p.server.buf);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 61, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 128), 62, CompletionFlags.DEFAULT);
            DatEvent r = next(p.server.recvEvd);
            assertEquals(61, r.userCookie());
            if (label.startsWith("siw") && r.status() == DtoCompletionStatus.ERR_FLUSHED) {
                // siw may close the connection before it completes the receive with IBV_WC_LOC_LEN_ERR.
                System.out.println("  siw: the receive was flushed by the close before its length error");
            } else {
                assertEquals(DtoCompletionStatus.ERR_LOCAL_LENGTH, r.status(), "the receiver's status");
            }
            DatEvent s = next(p.client.reqEvd);
            assertEquals(62, s.userCookie());
            // iWARP has no Send acknowledgement: siw's Send completes when sent, the Terminate breaks afterwards.
            assertTrue(s.status() != DtoCompletionStatus.SUCCESS || label.startsWith("siw"),
                    "the sender's status: " + s.status());
            System.out.println("  sender's status: " + s.status());
            expectRefusedBreaks(p);
            assertUntouched(p.server.buf, 64, p.server.buf.byteSize() - 64, "beyond the receive buffer");
        }
    }

    static void rmrBindAndStale() {
        try (Pair p = connected()) {
            sentinel(p.server.buf);
            Rmr rmr = Rmr.create(p.server.pz);
            int ctx = rmr.bind(p.server.lmr.triplet(8192, 4096), MemPriv.REMOTE_WRITE, p.server.ep, 71,
                    CompletionFlags.DEFAULT);
            bind(p.server.reqEvd, DtoCompletionStatus.SUCCESS, 71);
            fill(p.client.buf, 0, 4096, 7);
            RmrTriplet t = new RmrTriplet(ctx, p.server.lmr.registeredAddress() + 8192, 4096);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 4096), 72, t, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 72, 4096);
            assertPattern(p.server.buf, 8192, 4096, 7, 0, "write through the RMR");
            assertUntouched(p.server.buf, 0, 8192, "before the window");
            // a write one byte past the window's end
            byte[] before = DataPath.snapshot(p.server.buf);
            rmr.bind(new io.jdat.LmrTriplet(p.server.lmr.lmrContext(), p.server.lmr.registeredAddress(), 0), 0,
                    p.server.ep, 73, CompletionFlags.DEFAULT); // unbind
            bind(p.server.reqEvd, DtoCompletionStatus.SUCCESS, 73);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), 74, t, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 75, CompletionFlags.DEFAULT);
            DatEvent e = next(p.client.reqEvd);
            writerStatus(e);
            expectRefusedBreaks(p);
            DataPath.assertUnchanged(p.server.buf, before, "the region after the stale write");
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 75);
            rmr.free();
        }
    }

    /**
     * RMB-02 RMB-06 RDR-02 RWR-02: an RMR bound for read and write, then rebound read-only to another range: remote
     * RDMA Writes and Reads through each context land and complete, the bytes around the window untouched; after
     * the rebind completed, the first context fails at the device (DAT_DTO_ERR_REMOTE_ACCESS on rxe) and breaks the
     * connection, nothing changed. On rxe the RMR is a type-1 memory window (asserted), on siw the fallback.
     */
    static void rmrWindowRebind() {
        try (Pair p = connected()) {
            boolean windows = VerbsTransport.memoryWindows(ia);
            boolean expected = label.startsWith("rxe")
                    && !"false".equalsIgnoreCase(System.getProperty(VerbsWindow.PROPERTY));
            System.out.println("  RMRs are " + (windows ? "type-1 memory windows" : "registrations (the fallback)"));
            assertEquals(expected, windows, "memory windows on " + label);
            sentinel(p.server.buf);
            long base = p.server.lmr.registeredAddress();
            Rmr rmr = Rmr.create(p.server.pz);
            RmrTriplet t1 = bound(p, rmr, MemPriv.REMOTE_READ | MemPriv.REMOTE_WRITE, 81);
            int c1 = t1.rmrContext();
            fill(p.client.buf, 0, 4096, 8);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 4096), 82, t1, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 82, 4096);
            assertPattern(p.server.buf, 8192, 4096, 8, 0, "write through the RMR");
            assertUntouched(p.server.buf, 0, 8192, "before the RMR");
            assertUntouched(p.server.buf, 12288, 4096, "after the RMR");
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 16384, 4096), 83, t1, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 83, 4096);
            assertPattern(p.client.buf, 16384, 4096, 8, 0, "read through the RMR");
            // rebind the same RMR, read-only, to another range
            fill(p.server.buf, 32768, 4096, 9);
            int c2 = rmr.bind(p.server.lmr.triplet(32768, 4096), MemPriv.REMOTE_READ, p.server.ep, 84,
                    CompletionFlags.DEFAULT);
            bind(p.server.reqEvd, DtoCompletionStatus.SUCCESS, 84);
            assertTrue(c2 != c1, "a rebind gives a new context");
            assertEquals(c2, rmr.query(io.jdat.RmrParam.FIELD_ALL).rmrContext(), "dat_rmr_query's context");
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 20480, 4096), 85, new RmrTriplet(c2, base + 32768, 4096),
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 85, 4096);
            assertPattern(p.client.buf, 20480, 4096, 9, 0, "read through the rebound RMR");
            refusedWrite(p, t1, 64, 86, "the region after the first context's write"); // RMB-06, after the rebind
            rmr.free();
        }
    }

    /** RMB-08 / the device's privilege check: a read-only RMR refuses an RDMA Write, which breaks the connection. */
    static void rmrReadOnly() {
        try (Pair p = connected()) {
            sentinel(p.server.buf);
            Rmr rmr = Rmr.create(p.server.pz);
            RmrTriplet t = bound(p, rmr, MemPriv.REMOTE_READ, 91);
            fill(p.client.buf, 0, 4096, 10);
            refusedWrite(p, t, 4096, 92, "the read-only RMR's region");
            rmr.free();
        }
    }

    /** RMF-01: after dat_rmr_free the context fails at the device and breaks the connection, nothing changed. */
    static void rmrFreeThenStale() {
        try (Pair p = connected()) {
            sentinel(p.server.buf);
            Rmr rmr = Rmr.create(p.server.pz);
            RmrTriplet t = bound(p, rmr, MemPriv.REMOTE_WRITE, 101);
            fill(p.client.buf, 0, 4096, 11);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 4096), 102, t, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 102, 4096);
            assertPattern(p.server.buf, 8192, 4096, 11, 0, "write through the RMR");
            rmr.free();
            refusedWrite(p, t, 64, 103, "the region after the freed RMR's write");
        }
    }

    /** Binds {@code rmr} to the server's bytes 8192..12287 through the server's EP; {@return their remote triplet} */
    static RmrTriplet bound(Pair p, Rmr rmr, int privileges, long cookie) {
        int ctx = rmr.bind(p.server.lmr.triplet(8192, 4096), privileges, p.server.ep, cookie, CompletionFlags.DEFAULT);
        bind(p.server.reqEvd, DtoCompletionStatus.SUCCESS, cookie);
        return new RmrTriplet(ctx, p.server.lmr.registeredAddress() + 8192, 4096);
    }

    /**
     * The client writes {@code length} bytes through {@code t}, which the server's device must refuse: the writer's
     * status ({@link #writerStatus}), the connection broken on both ends ({@link #expectRefusedBreaks}), a receive
     * the server posted first ({@code cookie}) flushed, and not a byte of the server's buffer changed.
     */
    static void refusedWrite(Pair p, RmrTriplet t, int length, long cookie, String what) {
        byte[] before = DataPath.snapshot(p.server.buf);
        p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), cookie, CompletionFlags.DEFAULT);
        p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, length), cookie + 1, t, CompletionFlags.DEFAULT);
        DatEvent e = next(p.client.reqEvd);
        assertEquals(cookie + 1, e.userCookie());
        writerStatus(e);
        expectRefusedBreaks(p);
        DataPath.assertUnchanged(p.server.buf, before, what);
        dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, cookie);
    }

    /**
     * EPC-05 and why a type-1 window: an RMR context belongs to the RMR's PZ, not to the EP that bound it. The RMR is
     * bound through the first connection's EP and written through a second connection, whose target EP is in the
     * same PZ; then unbound through the second EP.
     */
    static void rmrPzScope() {
        try (Pair p = connected()) {
            EpAttr a = attr();
            io.jdat.Endpoint serverEp2 = io.jdat.Endpoint.create(p.server.ia, p.server.pz, p.server.recvEvd,
                    p.server.reqEvd, p.server.connEvd, a);
            io.jdat.Endpoint clientEp2 = io.jdat.Endpoint.create(p.client.ia, p.client.pz, p.client.recvEvd,
                    p.client.reqEvd, p.client.connEvd, a);
            java.net.SocketAddress to = p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            clientEp2.connect(to, p.psp.connQual(), WAIT_US, 0, new byte[0], Qos.BEST_EFFORT, 0);
            DatEvent cr = next(p.crEvd);
            assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
            cr.cr().accept(serverEp2, 0, new byte[0]);
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, next(p.server.connEvd).eventNumber());
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, next(p.client.connEvd).eventNumber());
            sentinel(p.server.buf);
            Rmr rmr = Rmr.create(p.server.pz);
            RmrTriplet t = bound(p, rmr, MemPriv.REMOTE_WRITE, 111); // through the first connection's EP
            fill(p.client.buf, 0, 4096, 12);
            clientEp2.postRdmaWrite(1, iov(p.client.lmr, 0, 4096), 112, t, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 112, 4096);
            assertPattern(p.server.buf, 8192, 4096, 12, 0, "write through the second connection");
            assertUntouched(p.server.buf, 0, 8192, "before the RMR");
            rmr.bind(new io.jdat.LmrTriplet(p.server.lmr.lmrContext(), p.server.lmr.registeredAddress(), 0), 0,
                    serverEp2, 113, CompletionFlags.DEFAULT); // unbind through the other EP
            bind(p.server.reqEvd, DtoCompletionStatus.SUCCESS, 113);
            rmr.free();
            clientEp2.disconnect(CloseFlags.ABRUPT);
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, next(p.client.connEvd).eventNumber());
            assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, next(p.server.connEvd).eventNumber());
            assertEquals(EpState.CONNECTED, p.server.ep.getStatus().epState(), "the first connection is still up");
            disconnect(p);
        }
    }

    /**
     * As an unprivileged user with RLIMIT_MEMLOCK of {@code -Dmemlock} KiB: a registration within the limit works,
     * one beyond it fails with DAT_INSUFFICIENT_RESOURCES / DAT_RESOURCE_MEMORY_REGION (the device pins pages).
     */
    static void memlock() {
        long limit = Long.getLong("memlock") * 1024;
        InterfaceAdapter a = InterfaceAdapter.open(ia, 16, null);
        try (Arena arena = Arena.ofShared()) {
            io.jdat.ProtectionZone pz = io.jdat.ProtectionZone.create(a);
            MemorySegment small = arena.allocate(4096, 4096);
            Lmr ok = Lmr.create(a, MemType.VIRTUAL, RegionDescription.forVa(small), 4096, pz, MemPriv.ALL);
            ok.free();
            MemorySegment big = arena.allocate(limit * 4, 4096);
            io.jdat.DatException e = expectDat(DatReturnType.INSUFFICIENT_RESOURCES,
                    io.jdat.DatReturnSubtype.RESOURCE_MEMORY_REGION, () -> Lmr.create(a, MemType.VIRTUAL,
                            RegionDescription.forVa(big), big.byteSize(), pz, MemPriv.ALL));
            System.out.println("  " + e.getMessage());
        } finally {
            a.close(CloseFlags.ABRUPT);
        }
    }

    /** Send/receive ping-pong, 64 B: bytes allocated per round by the posting and polling thread. */
    static void allocationFree() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Pair p = connected()) {
            DatEvent e = new DatEvent();
            io.jdat.LmrTriplet[] s = iov(p.client.lmr, 0, 64);
            io.jdat.LmrTriplet[] r = iov(p.server.lmr, 0, 64);
            int warm = 20_000;
            int rounds = 5_000;
            long perRound = Long.MAX_VALUE;
            for (int attempt = 0; attempt < 5 && perRound > 0; attempt++) {
                int n = attempt == 0 ? warm : rounds;
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < n; i++) {
                    p.server.ep.postRecv(1, r, i, CompletionFlags.DEFAULT);
                    p.client.ep.postSend(1, s, i, CompletionFlags.DEFAULT);
                    while (!p.client.reqEvd.dequeue(e)) {
                        Thread.onSpinWait();
                    }
                    while (!p.server.recvEvd.dequeue(e)) {
                        Thread.onSpinWait();
                    }
                }
                long bytes = mx.getCurrentThreadAllocatedBytes() - before;
                perRound = bytes / n;
                System.out.println("  " + n + " rounds: " + bytes + " bytes allocated (" + perRound + " per round)");
            }
            assertEquals(0, perRound, "bytes allocated per post/poll round after warm-up");
            disconnect(p);
        }
    }

    /** Unused: keeps imports that some JDKs flag as unused in one place. */
    static List<Object> unused() {
        return new ArrayList<>(List.of(EvdFlags.DTO, EpState.CONNECTED, EventDispatcher.class,
                new InetSocketAddress(0)));
    }
}
