package io.jdat.liveness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EpAttr;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.Registry;
import io.jdat.RegistryEntry;
import io.jdat.RmrTriplet;
import io.jdat.testing.net.ChildJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 14 item 9: the opt-in liveness bound {@code peer_timeout=<ms>}, the same IA parameter on {@code tcp}
 * and {@code shm}. The peer is a child JVM ({@link LivenessPeerMain}) that the test stops with
 * {@code kill -STOP}: its kernel still answers TCP, its memory is still mapped, only its threads stand still.
 * With the bound, a live but idle peer keeps the connection (tcp: zero-length RDMA Read probes; shm: the
 * heartbeat word), a stopped one breaks it within the bound (BROKEN, posted DTOs flushed); without it,
 * nothing changes: requests wait, and complete once the peer runs again.
 */
class PeerTimeoutTest {
    /** Generous for a loaded 2-core machine: a child JVM's threads may not run for hundreds of ms. */
    private static final int BOUND_MS = 2000;
    private static final Duration START = Duration.ofSeconds(30);
    private static final Pattern READY = Pattern.compile("^READY (\\S+) (\\d+)$");

    /** The EP attributes of both sides: one RDMA Read each way, a few receives. */
    static EpAttr attr() {
        return new EpAttr().maxMessageSize(1 << 16).maxRdmaSize(1 << 16).maxRecvDtos(8).maxRequestDtos(8)
                .maxRecvIov(2).maxRequestIov(2).maxRdmaReadIov(2).maxRdmaWriteIov(2).maxRdmaReadIn(2)
                .maxRdmaReadOut(2);
    }

    private static String register(String provider, boolean bound) {
        String name = "liveness-" + provider + (bound ? "-bound" : "-free");
        String params = (provider.equals("tcp") ? "127.0.0.1 " : "") + (bound ? "peer_timeout=" + BOUND_MS : "");
        try {
            Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, provider, "jdat", 1, 0,
                    params.trim(), ""));
        } catch (io.jdat.DatException e) {
            if (e.type() != io.jdat.DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
        return name;
    }

    private static void signal(long pid, String sig) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + sig + " " + pid);
        if (sig.equals("STOP")) {
            // kill(2) only queues the signal: wait until every thread of the child is stopped (state T), so
            // that nothing the test does afterwards can still be served by a thread on its way to stopping.
            long until = System.nanoTime() + 10_000_000_000L;
            while (!allStopped(pid)) {
                assertTrue(System.nanoTime() < until, "the child " + pid + " did not stop");
                Thread.sleep(5);
            }
        }
    }

    private static boolean allStopped(long pid) throws java.io.IOException {
        String[] tasks = new java.io.File("/proc/" + pid + "/task").list();
        if (tasks == null) {
            return false;
        }
        for (String t : tasks) {
            String st;
            try {
                st = java.nio.file.Files.readString(Path.of("/proc/" + pid + "/task/" + t + "/stat"));
            } catch (java.nio.file.NoSuchFileException e) {
                continue; // the thread ended
            }
            char state = st.charAt(st.lastIndexOf(')') + 2);
            if (state != 'T' && state != 't') {
                return false;
            }
        }
        return true;
    }

    /** This side of the connection. */
    private static final class Side implements AutoCloseable {
        final InterfaceAdapter ia;
        final EventDispatcher dto;
        final EventDispatcher conn;
        final Endpoint ep;
        final Arena arena = Arena.ofShared();
        final MemorySegment buf = arena.allocate(64 * 1024, 256);
        final Lmr lmr;
        RmrTriplet peer;

        Side(String iaName) {
            ia = InterfaceAdapter.open(iaName, 16, null);
            ProtectionZone pz = ProtectionZone.create(ia);
            dto = EventDispatcher.create(ia, 64, null, EvdFlags.DTO);
            conn = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            ep = Endpoint.create(ia, pz, dto, dto, conn, attr());
            lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
        }

        void connect(String provider, Matcher ready) {
            SocketAddress to = provider.equals("tcp")
                    ? new InetSocketAddress(ready.group(1), 0)
                    : UnixDomainSocketAddress.of(Path.of(ready.group(1)));
            ep.connect(to, Long.parseLong(ready.group(2)), 10_000_000, 0, null, Qos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            assertTrue(conn.waitFor(10_000_000, 1, e), "no connection event");
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber());
            ByteBuffer pd = ByteBuffer.wrap(e.privateData());
            peer = new RmrTriplet(pd.getInt(), pd.getLong(), 4096);
        }

        /** Two receives: they wait on the peer. */
        void postReceives() {
            ep.postRecv(1, new io.jdat.LmrTriplet[] {lmr.triplet(0, 4096)}, 1, CompletionFlags.DEFAULT);
            ep.postRecv(1, new io.jdat.LmrTriplet[] {lmr.triplet(4096, 4096)}, 2, CompletionFlags.DEFAULT);
        }

        /**
         * A request that completes only when the peer's threads run: on tcp an RDMA Read (a Send or Write
         * completes once in the socket); on shm a Send (the peer must take it; an RDMA Read may be served by
         * cross-memory attach from a stopped process).
         */
        void postPeerRequest(String provider, long cookie) {
            io.jdat.LmrTriplet[] local = {lmr.triplet(8192, 4096)};
            if (provider.equals("tcp")) {
                ep.postRdmaRead(1, local, cookie, peer, CompletionFlags.DEFAULT);
            } else {
                ep.postSend(1, local, cookie, CompletionFlags.DEFAULT);
            }
        }

        @Override
        public void close() {
            ia.close(CloseFlags.ABRUPT);
            arena.close();
        }
    }

    private static ChildJvm startPeer(String provider) throws Exception {
        return ChildJvm.start("peer-" + provider, LivenessPeerMain.class, Map.of(),
                List.of(provider, provider.equals("tcp") ? "127.0.0.1" : ""));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "shm"})
    void aStoppedPeerBreaksTheConnectionWithinTheBound(String provider) throws Exception {
        try (ChildJvm child = startPeer(provider); Side me = new Side(register(provider, true))) {
            Matcher ready = child.awaitLine(READY, START);
            me.connect(provider, ready);
            child.awaitLine("ESTABLISHED"::equals, START);
            me.postReceives();
            me.postPeerRequest(provider, 3);
            DatEvent e = new DatEvent();
            // A live peer that sends nothing keeps the connection: the request completes, nothing breaks.
            assertTrue(me.dto.waitFor(10_000_000, 1, e), "the request to a live peer");
            assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "the request to a live peer: " + e);
            assertFalse(me.conn.waitFor(2 * BOUND_MS * 1000, 1, e),
                    "an idle live peer keeps the connection for 2 bounds: " + e.eventNumber());

            signal(child.pid(), "STOP");
            try {
                long t0 = System.nanoTime();
                me.postPeerRequest(provider, 4);
                assertTrue(me.conn.waitFor((BOUND_MS + 5_000) * 1000, 1, e), "no event after SIGSTOP");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, e.eventNumber());
                assertTrue(ms <= BOUND_MS + 1_000, "BROKEN " + ms + " ms after SIGSTOP, bound " + BOUND_MS + " ms");
                // Every DTO that waited on the peer is flushed: the request, then both receives.
                int flushed = 0;
                DatEvent d = new DatEvent();
                while (me.dto.waitFor(1_000_000, 1, d)) {
                    assertEquals(DtoCompletionStatus.ERR_FLUSHED, d.status(), "after BROKEN: " + d);
                    flushed++;
                }
                assertEquals(3, flushed, "the request and two receives flushed");
            } finally {
                signal(child.pid(), "CONT");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "shm"})
    void withoutTheBoundAStoppedPeerChangesNothing(String provider) throws Exception {
        try (ChildJvm child = startPeer(provider); Side me = new Side(register(provider, false))) {
            Matcher ready = child.awaitLine(READY, START);
            me.connect(provider, ready);
            child.awaitLine("ESTABLISHED"::equals, START);
            signal(child.pid(), "STOP");
            DatEvent e = new DatEvent();
            try {
                me.postPeerRequest(provider, 4);
                assertFalse(me.conn.waitFor((BOUND_MS + 1_500) * 1000, 1, e), "no event: " + e.eventNumber());
                assertFalse(me.dto.waitFor(10_000, 1, e), "the request waits: " + e);
            } finally {
                signal(child.pid(), "CONT");
            }
            assertTrue(me.dto.waitFor(10_000_000, 1, e), "the request completes once the peer runs again");
            assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "" + e);
            assertFalse(me.conn.waitFor(10_000, 1, e), "still connected");
        }
    }
}
