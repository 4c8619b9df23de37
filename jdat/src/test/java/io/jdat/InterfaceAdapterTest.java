package io.jdat;

import static io.jdat.testing.Background.awaitEvdWaiter;
import static io.jdat.testing.Background.awaitParked;
import static io.jdat.testing.Background.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.RegistryEntry;
import io.jdat.testing.Background;
import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * dat_ia_open / dat_ia_close / dat_ia_query (CONFORMANCE §2.16: IAO-01..10, IAC-01..08, IAQ-01..02) and the
 * local dapltest cases FFT-HW-0..3 and FFT-QRY-0/10/11.
 */
class InterfaceAdapterTest {
    private static final int INF = Dat.TIMEOUT_INFINITE;

    private static InterfaceAdapter open() {
        return InterfaceAdapter.open("mem", 16, null);
    }

    private static void closeQuietly(InterfaceAdapter ia) {
        EventDispatcherTest.closeQuietly(ia);
    }

    // ================================================================== dat_ia_open

    @Test
    @DisplayName("IAO-01: several IAs of the same name may be open at once, also opened concurrently by several threads")
    void concurrentOpens() {
        List<Background<InterfaceAdapter>> openers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            openers.add(Background.start(() -> {
                InterfaceAdapter ia = open();
                ProtectionZone.create(ia);
                return ia;
            }));
        }
        List<InterfaceAdapter> ias = new ArrayList<>();
        try {
            for (Background<InterfaceAdapter> b : openers) {
                ias.add(b.join());
            }
            ias.add(open());
            Map<InterfaceAdapter, Boolean> distinct = new IdentityHashMap<>();
            for (InterfaceAdapter ia : ias) {
                distinct.put(ia, true);
                assertSame(ia, ia.asyncEvd().query(EvdParam.FIELD_IA_HANDLE).iaHandle());
                assertNotNull(ia.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL));
            }
            assertEquals(5, distinct.size(), "each open returns its own IA");
            assertNotSame(ias.get(0).asyncEvd(), ias.get(1).asyncEvd(), "each IA has its own async EVD");
        } finally {
            ias.forEach(InterfaceAdapterTest::closeQuietly);
        }
    }

    @Test
    @DisplayName("IAO-02 IAO-03 IAO-09 IAC-05 FFT-HW-0: a NULL async EVD makes the provider create one (qlen >= min, no CNO); open + abrupt close succeed and the close destroys it")
    void providerAsyncEvd() {
        InterfaceAdapter ia = InterfaceAdapter.open("mem", 10, null);
        try {
            EventDispatcher async = ia.asyncEvd();
            assertNotNull(async);
            assertEquals(HandleType.EVD, async.getHandleType());
            EvdParam p = async.query(EvdParam.FIELD_ALL);
            assertSame(ia, p.iaHandle());
            assertTrue(p.evdQlen() >= 10, "async qlen " + p.evdQlen());
            assertNull(p.cnoHandle());
            assertEquals(EvdFlags.ASYNC, p.evdFlags() & EvdFlags.ASYNC);
            assertSame(async, ia.query(0, 0).asyncEvd());
            ia.close(CloseFlags.ABRUPT);
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                    () -> async.query(EvdParam.FIELD_ALL));
        } finally {
            closeQuietly(ia);
        }

        try (InterfaceAdapter big = InterfaceAdapter.open("mem", 1000, null)) {
            assertTrue(big.asyncEvd().query(EvdParam.FIELD_EVD_QLEN).evdQlen() >= 1000);
        }
    }

    @Test
    @DisplayName("IAO-04 IAC-05: a consumer-supplied async EVD is used unchanged (min qlen ignored) and survives the close; a bad one gives INVALID_HANDLE")
    void consumerAsyncEvd() {
        InterfaceAdapter owner = open();
        InterfaceAdapter user = null;
        try {
            EventDispatcher evd = EventDispatcher.create(owner, 4, null, EvdFlags.ASYNC | EvdFlags.SOFTWARE);
            int qlen = evd.query(EvdParam.FIELD_EVD_QLEN).evdQlen();
            user = InterfaceAdapter.open("mem", 1000, evd);
            assertSame(evd, user.asyncEvd(), "the handle is returned unchanged");
            assertSame(evd, user.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL).asyncEvd());
            assertEquals(qlen, evd.query(EvdParam.FIELD_EVD_QLEN).evdQlen(), "async_evd_min_qlen is ignored");
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, evd::free);

            Background<DatEvent> w = Background.start(() -> {
                DatEvent e = new DatEvent();
                assertTrue(evd.waitFor(INF, 1, e));
                return e;
            });
            awaitEvdWaiter(evd);
            user.close(CloseFlags.ABRUPT);
            // Bounded wait: closing the IA that merely used the EVD must NOT abort its waiter.
            w.assertStillRunning(50);
            evd.postSe(DatEvent.software("alive"));
            assertEquals("alive", w.join().softwarePointer());
            evd.free();

            EventDispatcher freed = EventDispatcher.create(owner, 4, null, EvdFlags.ASYNC);
            freed.free();
            EventDispatcher notAsync = EventDispatcher.create(owner, 4, null, EvdFlags.DEFAULT & ~EvdFlags.ASYNC);
            for (EventDispatcher bad : List.of(freed, notAsync, EventDispatcher.OUT_OF_SCOPE)) {
                fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                        () -> InterfaceAdapter.open("mem", 16, bad));
            }
            notAsync.free();
        } finally {
            if (user != null) {
                closeQuietly(user);
            }
            closeQuietly(owner);
        }
    }

    @Test
    @DisplayName("IAO-05 IAO-03 AMB-32: DAT_EVD_ASYNC_EXISTS is accepted (by a first open too); query then reports DAT_EVD_OUT_OF_SCOPE")
    void asyncExists() {
        InterfaceAdapter ia = InterfaceAdapter.open("mem", 0, EventDispatcher.ASYNC_EXISTS);
        try {
            assertSame(EventDispatcher.OUT_OF_SCOPE, ia.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL).asyncEvd());
            assertSame(EventDispatcher.OUT_OF_SCOPE, ia.asyncEvd());
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                    () -> ia.asyncEvd().dequeue(new DatEvent()));
            ProtectionZone.create(ia).free();
            ia.close(CloseFlags.GRACEFUL);
        } finally {
            closeQuietly(ia);
        }
    }

    @Test
    @DisplayName("IAO-06 IAO-08 FFT-HW-1: bogus IA names give PROVIDER_NOT_FOUND (NAME_NOT_REGISTERED)")
    void unknownNames() {
        for (String name : List.of("40", "x", "xsdf", "x34", "34df", "", "MEM", "mem ", "n".repeat(255))) {
            fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    () -> InterfaceAdapter.open(name, 10, null));
        }
    }

    @Test
    @DisplayName("IAO-07 IAO-08: a NULL or >= 256-character name gives INVALID_PARAMETER; a bad async qlen INVALID_PARAMETER or INSUFFICIENT_RESOURCES")
    void badArguments() {
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> InterfaceAdapter.open(null, 10, null));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                () -> InterfaceAdapter.open("m".repeat(256), 10, null));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                () -> InterfaceAdapter.open("m".repeat(10_000), 10, null));
        fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> InterfaceAdapter.open("mem", -1, null));
        int max;
        try (InterfaceAdapter ia = open()) {
            max = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().maxEvdQlen();
        }
        fails(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEVD,
                () -> InterfaceAdapter.open("mem", max + 1, null));
    }

    @Test
    @DisplayName("IAO-10: dat_ia_openv matches the registered major with any minor <= the registered one and either thread-safety request")
    void versionMatching() {
        int[][] ok = {{1, 0}, {1, 1}, {1, 2}};
        for (int[] v : ok) {
            for (boolean ts : new boolean[] {false, true}) {
                try (InterfaceAdapter ia = InterfaceAdapter.openv("mem", 8, null, v[0], v[1], ts)) {
                    assertEquals(1, ia.query(0, ProviderAttr.FIELD_ALL).providerAttr().daplVersionMajor());
                }
            }
        }
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MINOR_NOT_FOUND,
                () -> InterfaceAdapter.openv("mem", 8, null, 1, 3, false));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND,
                () -> InterfaceAdapter.openv("mem", 8, null, 2, 0, false));
        fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.MAJOR_NOT_FOUND,
                () -> InterfaceAdapter.openv("mem", 8, null, 0, 2, false));
    }

    // ================================================================== dat_ia_close

    @Test
    @DisplayName("IAC-01 IAC-08 FFT-HW-3: an abrupt close with every kind of object alive (connected EP, pending CR, bound RMR, ...) succeeds; then every handle gives INVALID_HANDLE")
    void abruptCloseDestroysEverything() {
        InterfaceAdapter server = open();
        InterfaceAdapter client = open();
        Arena arena = Arena.ofShared();
        try {
            // Server side: PZ, EVDs, a connected EP, a PSP with a pending CR, an RSP, an LMR with a bound RMR, a CNO.
            ProtectionZone pz = ProtectionZone.create(server);
            Cno cno = Cno.create(server, null);
            EventDispatcher recv = EventDispatcher.create(server, 16, null, EvdFlags.DTO);
            EventDispatcher req = EventDispatcher.create(server, 16, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            EventDispatcher conn = EventDispatcher.create(server, 16, null, EvdFlags.CONNECTION);
            EventDispatcher crEvd = EventDispatcher.create(server, 16, null, EvdFlags.CR);
            EventDispatcher swEvd = EventDispatcher.create(server, 16, cno, EvdFlags.SOFTWARE);
            swEvd.postSe(DatEvent.software("queued"));
            Endpoint ep = Endpoint.create(server, pz, recv, req, conn, null);
            Endpoint rspEp = Endpoint.create(server, pz, recv, req, conn, null);
            ReservedServicePoint rsp = ReservedServicePoint.create(server, Pair.freshQual(), rspEp, crEvd);
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(server, qual, crEvd, PspFlags.CONSUMER);
            MemorySegment buf = arena.allocate(4096, 256);
            Lmr lmr = Lmr.create(server, MemType.VIRTUAL, RegionDescription.forVa(buf), buf.byteSize(), pz, MemPriv.ALL);
            Rmr rmr = Rmr.create(pz);
            ep.postRecv(1, new LmrTriplet[] {lmr.triplet(0, 64)}, 1, 0);

            // Client side: one EP that gets accepted, one whose request stays pending.
            ProtectionZone cpz = ProtectionZone.create(client);
            EventDispatcher cdto = EventDispatcher.create(client, 16, null, EvdFlags.DTO);
            EventDispatcher cconn = EventDispatcher.create(client, 16, null, EvdFlags.CONNECTION);
            Endpoint a = Endpoint.create(client, cpz, cdto, cdto, cconn, null);
            Endpoint b = Endpoint.create(client, cpz, cdto, cdto, cconn, null);
            DatEvent e = new DatEvent();
            a.connect(Pair.address(), qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
            assertTrue(crEvd.waitFor(5_000_000, 1, e));
            e.cr().accept(ep, 0, null);
            assertTrue(conn.waitFor(5_000_000, 1, e));
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber());
            assertTrue(cconn.waitFor(5_000_000, 1, e));
            assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber());
            rmr.bind(lmr.triplet(0, 1024), MemPriv.REMOTE_WRITE, ep, 2, 0);
            assertTrue(req.waitFor(5_000_000, 1, e));
            assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, e.eventNumber());
            assertEquals(DtoCompletionStatus.SUCCESS, e.status());
            b.connect(Pair.address(), qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
            assertTrue(crEvd.waitFor(5_000_000, 1, e));
            ConnectionRequest cr = e.cr();
            assertEquals(HandleType.CR, cr.getHandleType());
            EventDispatcher async = server.asyncEvd();
            LmrTriplet[] iov = {lmr.triplet(0, 64)};

            server.close(CloseFlags.ABRUPT);

            Map<DatHandle, DatReturnSubtype> handles = new LinkedHashMap<>();
            handles.put(server, DatReturnSubtype.INVALID_HANDLE_IA);
            handles.put(pz, DatReturnSubtype.INVALID_HANDLE_PZ);
            handles.put(cno, DatReturnSubtype.INVALID_HANDLE_CNO);
            for (EventDispatcher evd : List.of(recv, req, conn, crEvd, swEvd, async)) {
                handles.put(evd, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC);
            }
            handles.put(ep, DatReturnSubtype.INVALID_HANDLE_EP);
            handles.put(rspEp, DatReturnSubtype.INVALID_HANDLE_EP);
            handles.put(rsp, DatReturnSubtype.INVALID_HANDLE_RSP);
            handles.put(psp, DatReturnSubtype.INVALID_HANDLE_PSP);
            handles.put(cr, DatReturnSubtype.INVALID_HANDLE_CR);
            handles.put(lmr, DatReturnSubtype.INVALID_HANDLE_LMR);
            handles.put(rmr, DatReturnSubtype.INVALID_HANDLE_RMR);
            handles.forEach((h, sub) -> {
                fails(DatReturnType.INVALID_HANDLE, sub, h::getHandleType);
                fails(DatReturnType.INVALID_HANDLE, sub, () -> h.setConsumerContext("x"));
                fails(DatReturnType.INVALID_HANDLE, sub, h::getConsumerContext);
            });
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, () -> swEvd.dequeue(e));
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> ep.postRecv(1, iov, 3, 0));
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CR, () -> cr.accept(rspEp, 0, null));
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, pz::free);
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> ProtectionZone.create(server));
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> server.query(0, 0));
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, server::asyncEvd);
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, server::defaultEpAttr);
            // The peer IA is unaffected.
            assertSame(client, cpz.query(PzParam.FIELD_ALL).iaHandle());
        } finally {
            closeQuietly(server);
            closeQuietly(client);
            arena.close();
        }
    }

    @Test
    @DisplayName("IAC-02 CNO-04 EVW-16: an abrupt close releases a blocked CNO waiter with a NULL EVD and blocked EVD waiters with DAT_ABORT")
    void abruptCloseReleasesWaiters() {
        InterfaceAdapter ia = open();
        try {
            Cno cno = Cno.create(ia, null);
            EventDispatcher attached = EventDispatcher.create(ia, 8, cno, EvdFlags.SOFTWARE);
            EventDispatcher other = EventDispatcher.create(ia, 8, null, EvdFlags.SOFTWARE);
            Background<EventDispatcher> cnoWaiter = Background.start(() -> cno.waitFor(INF));
            awaitParked(cnoWaiter.thread());
            Background<Boolean> evdWaiter = Background.start(() -> other.waitFor(INF, 1, new DatEvent()));
            awaitEvdWaiter(other);
            ia.close(CloseFlags.ABRUPT);
            assertNull(cnoWaiter.join(), "a released CNO waiter gets a NULL EVD");
            DatException x = evdWaiter.joinFailure();
            assertEquals(DatReturnType.ABORT, x.type());
            assertEquals(DatReturnSubtype.SUB_INTERRUPTED, x.subtype());
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, attached::getHandleType);
        } finally {
            closeQuietly(ia);
        }
    }

    @Test
    @DisplayName("IAC-03 IAC-04: a graceful close with any live object gives INVALID_STATE (IA_IN_USE) and the IA stays usable; after freeing everything it succeeds")
    void gracefulClose() {
        InterfaceAdapter ia = open();
        Arena arena = Arena.ofShared();
        try {
            MemorySegment buf = arena.allocate(1024, 256);
            // Each kind of object alone keeps the IA in use.
            List<Consumer<ProtectionZone>> makers = List.of(
                    pz -> graceful(ia, EventDispatcher.create(ia, 4, null, EvdFlags.SOFTWARE)::free),
                    pz -> graceful(ia, Cno.create(ia, null)::free),
                    pz -> graceful(ia, Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), 1024, pz, MemPriv.ALL)::free),
                    pz -> graceful(ia, Rmr.create(pz)::free),
                    pz -> graceful(ia, Endpoint.create(ia, pz, null, null, null, null)::free),
                    pz -> {
                        EventDispatcher cr = EventDispatcher.create(ia, 4, null, EvdFlags.CR);
                        PublicServicePoint psp = PublicServicePoint.create(ia, Pair.freshQual(), cr, PspFlags.CONSUMER);
                        graceful(ia, () -> {
                            psp.free();
                            cr.free();
                        });
                    });
            ProtectionZone pz = ProtectionZone.create(ia);
            for (Consumer<ProtectionZone> m : makers) {
                m.accept(pz);
            }
            graceful(ia, pz::free);
            ia.close(CloseFlags.GRACEFUL); // the provider-created async EVD need not be freed (IAC-04)
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> ia.query(0, 0));
        } finally {
            closeQuietly(ia);
            arena.close();
        }
    }

    /** A graceful close fails while an object lives; the IA stays usable; then {@code free} releases it. */
    private static void graceful(InterfaceAdapter ia, Runnable free) {
        fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_IA_IN_USE, () -> ia.close(CloseFlags.GRACEFUL));
        assertNotNull(ia.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL), "the IA stays open");
        ProtectionZone.create(ia).free();
        free.run();
    }

    @Test
    @DisplayName("IAC-06 FFT-HW-2: bad close flags give INVALID_PARAMETER and leave the IA open; closing a closed IA gives INVALID_HANDLE")
    void closeArguments() {
        InterfaceAdapter ia = open();
        try {
            for (int bad : new int[] {2, 3, -1, 0x100}) {
                fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> ia.close(bad));
            }
            assertNotNull(ia.query(0, 0), "the IA is still open");
            ia.close(CloseFlags.ABRUPT);
            for (int flags : new int[] {CloseFlags.ABRUPT, CloseFlags.GRACEFUL, 2}) {
                fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> ia.close(flags));
            }
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, ia::close);
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> ProtectionZone.create(null));
        } finally {
            closeQuietly(ia);
        }
    }

    @Test
    @DisplayName("IAC-07: close releases the IA's registry reference: a provider with an open IA cannot be removed, after any close (or failed open) it can")
    void closeLeaksNothing() {
        String name = "jdat-iac07-" + Pair.freshQual();
        Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, true, "mem", "jdat", 1, 0, "", ""));
        boolean removed = false;
        List<InterfaceAdapter> opened = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                InterfaceAdapter ia = InterfaceAdapter.open(name, 4, null);
                opened.add(ia);
                ProtectionZone pz = ProtectionZone.create(ia);
                Endpoint.create(ia, pz, EventDispatcher.create(ia, 4, null, EvdFlags.DTO), null, null, null);
                Cno.create(ia, null);
                assertEquals(1, Registry.openCount(name));
                ia.close(CloseFlags.ABRUPT);
                assertEquals(0, Registry.openCount(name));
            }
            InterfaceAdapter ia = InterfaceAdapter.open(name, 4, null);
            opened.add(ia);
            ProtectionZone.create(ia);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_IA_IN_USE, () -> ia.close(CloseFlags.GRACEFUL));
            fails(DatReturnType.PROVIDER_IN_USE, DatReturnSubtype.NO_SUBTYPE, () -> Registry.removeProvider(name));
            EventDispatcher freed = EventDispatcher.create(ia, 4, null, EvdFlags.ASYNC);
            freed.free();
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC,
                    () -> InterfaceAdapter.open(name, 4, freed));
            assertEquals(1, Registry.openCount(name), "a failed open holds no reference");
            ia.close(CloseFlags.ABRUPT);
            assertEquals(0, Registry.openCount(name));
            Registry.removeProvider(name);
            removed = true;
        } finally {
            opened.forEach(InterfaceAdapterTest::closeQuietly);
            if (!removed) {
                try {
                    Registry.removeProvider(name);
                } catch (DatException ignored) {
                    // best effort; the assertion above already failed
                }
            }
        }
    }

    // ================================================================== dat_ia_query

    @Test
    @DisplayName("IAQ-01 FFT-QRY-0 FFT-QRY-10 FFT-QRY-11: query(ALL, ALL) succeeds; undefined mask bits give INVALID_PARAMETER; a closed IA INVALID_HANDLE")
    void query() {
        InterfaceAdapter ia = open();
        try {
            InterfaceAdapter.QueryResult r = ia.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL);
            assertSame(ia.asyncEvd(), r.asyncEvd());
            assertNotNull(r.iaAttr());
            assertNotNull(r.providerAttr());
            assertEquals(0x7FFFFFFFFL, IaAttr.FIELD_ALL, "1.2 DAT_IA_FIELD_ALL");
            assertEquals(0x3FFFFFFL, ProviderAttr.FIELD_ALL, "1.2 DAT_PROVIDER_FIELD_ALL");
            assertTrue(r.iaAttr().maxEvdQlen() > 0);
            ia.query(0, 0);
            ia.query(IaAttr.FIELD_ALL, 0);
            ia.query(0, ProviderAttr.FIELD_ALL);
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, () -> ia.query(IaAttr.FIELD_ALL + 1, 0));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, () -> ia.query(-1L, 0));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG5,
                    () -> ia.query(0, ProviderAttr.FIELD_ALL + 1));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG5, () -> ia.query(0, 1L << 40));
            ia.close(CloseFlags.ABRUPT);
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                    () -> ia.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL));
        } finally {
            closeQuietly(ia);
        }
    }

    @Test
    @DisplayName("FFT-QRY-1 FFT-QRY-2 FFT-QRY-3 FFT-QRY-4 FFT-QRY-6 FFT-QRY-7 FFT-QRY-8 FFT-QRY-9 FFT-QRY-16 FFT-QRY-17 FFT-DX-0 FFT-DX-3: the dapltest query suite")
    void dapltestQuerySuite() {
        InterfaceAdapter ia = InterfaceAdapter.open("mem", 10, null);
        Arena arena = Arena.ofShared();
        try {
            Cno cno = Cno.create(ia, null); // FFT-QRY-1
            assertSame(ia, cno.query(CnoParam.FIELD_ALL).iaHandle());
            EvdParam async = ia.asyncEvd().query(EvdParam.FIELD_ALL); // FFT-QRY-2
            assertEquals(EvdFlags.ASYNC, async.evdFlags() & EvdFlags.ASYNC);

            EventDispatcher crEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CR);
            long qual = Pair.freshQual();
            PublicServicePoint psp = PublicServicePoint.create(ia, qual, crEvd, PspFlags.PROVIDER); // FFT-QRY-3
            assertEquals(new PspParam(ia, qual, crEvd, PspFlags.PROVIDER), psp.query(PspParam.FIELD_ALL));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> psp.query(0x10)); // FFT-QRY-16

            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher dto = EventDispatcher.create(ia, 8, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            EventDispatcher conn = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            Endpoint ep = Endpoint.create(ia, pz, dto, dto, conn, null);
            long rspQual = Pair.freshQual();
            ReservedServicePoint rsp = ReservedServicePoint.create(ia, rspQual, ep, crEvd); // FFT-QRY-4
            assertEquals(new RspParam(ia, rspQual, crEvd, ep), rsp.query(RspParam.FIELD_ALL));
            Endpoint fresh = Endpoint.create(ia, pz, dto, dto, conn, null); // FFT-QRY-6
            assertSame(ia, fresh.query(EpParam.FIELD_ALL).iaHandle());
            assertEquals(new PzParam(ia), pz.query(PzParam.FIELD_ALL)); // FFT-QRY-7
            MemorySegment buf = arena.allocate(1024, 256);
            Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(buf), 1024, pz, MemPriv.ALL); // FFT-QRY-8
            assertEquals(1024, lmr.query(LmrParam.FIELD_ALL).length());
            Rmr rmr = Rmr.create(pz); // FFT-QRY-9: every field but the (unbound) LMR triplet
            assertSame(pz, rmr.query(RmrParam.FIELD_ALL & ~RmrParam.FIELD_LMR_TRIPLET).pzHandle());

            // FFT-QRY-17 / FFT-DX-0 / FFT-DX-3: the Java forms of "wrong or NULL handle" are freed handles.
            psp.free();
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PSP, () -> psp.query(PspParam.FIELD_ALL));
            LmrTriplet[] iov = {lmr.triplet(0, 64)};
            fresh.free();
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> fresh.postSend(1, iov, 1, 0));
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, () -> fresh.postRecv(1, iov, 2, 0));
        } finally {
            closeQuietly(ia);
            arena.close();
        }
    }

    @Test
    @DisplayName("IAQ-02: max_private_data_size >= 64, optimal_buffer_alignment divides 256, VIRTUAL/LMR/SHARED_VIRTUAL supported, API 1.2")
    void providerAttributes() {
        try (InterfaceAdapter ia = open()) {
            ProviderAttr p = ia.query(0, ProviderAttr.FIELD_ALL).providerAttr();
            assertTrue(p.maxPrivateDataSize() >= 64, "max_private_data_size " + p.maxPrivateDataSize());
            int a = p.optimalBufferAlignment();
            assertTrue(a > 0 && a <= 256 && 256 % a == 0, "optimal_buffer_alignment " + a);
            assertTrue(p.supportsMemType(MemType.VIRTUAL));
            assertTrue(p.supportsMemType(MemType.LMR));
            assertTrue(p.supportsMemType(MemType.SHARED_VIRTUAL));
            assertFalse(p.supportsMemType(3), "no Solaris SO_VIRTUAL (AMB-30)");
            assertEquals(Dat.VERSION_MAJOR, p.daplVersionMajor());
            assertEquals(Dat.VERSION_MINOR, p.daplVersionMinor());
            boolean[][] merge = p.evdStreamMergingSupported();
            assertEquals(6, merge.length);
            for (int i = 0; i < 6; i++) {
                assertEquals(6, merge[i].length);
                assertTrue(merge[i][i], "the merging matrix diagonal is TRUE");
            }
        }
    }
}
