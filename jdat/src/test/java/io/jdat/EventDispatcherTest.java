package io.jdat;

import static io.jdat.testing.Background.awaitEvdWaiter;
import static io.jdat.testing.Background.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.testing.Background;
import io.jdat.testing.Pair;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * dat_evd_wait (EVW), dat_evd_dequeue and the other EVD calls (EVQ, EVD) of CONFORMANCE §2.8/§2.9, and the
 * local dapltest cases FFT-CM-0/1, FFT-DX-1/2, FFT-QRY-2/14/15.
 */
class EventDispatcherTest {
    /** Microseconds per millisecond: DAT timeouts are in µs. */
    private static final int MS = 1000;
    private static final int INF = Dat.TIMEOUT_INFINITE;

    private static InterfaceAdapter open() {
        return InterfaceAdapter.open("mem", 16, null);
    }

    private static EventDispatcher sw(InterfaceAdapter ia, int qlen) {
        return EventDispatcher.create(ia, qlen, null, EvdFlags.SOFTWARE);
    }

    private static void post(EventDispatcher evd, Object pointer) {
        evd.postSe(DatEvent.software(pointer));
    }

    private static Object take(EventDispatcher evd) {
        DatEvent e = new DatEvent();
        assertTrue(evd.dequeue(e), "queue unexpectedly empty");
        assertEquals(EventNumber.SOFTWARE_EVENT, e.eventNumber());
        return e.softwarePointer();
    }

    private static int qlen(EventDispatcher evd) {
        return evd.query(EvdParam.FIELD_ALL).evdQlen();
    }

    private static int state(EventDispatcher evd) {
        return evd.query(EvdParam.FIELD_EVD_STATE).evdState();
    }

    /** Starts a thread blocked in {@code evd.waitFor(INFINITE, threshold)} and returns once it waits. */
    private static Background<DatEvent> waiter(EventDispatcher evd, int threshold) {
        Background<DatEvent> w = Background.start(() -> {
            DatEvent e = new DatEvent();
            assertTrue(evd.waitFor(INF, threshold, e), "infinite wait returned TIMEOUT_EXPIRED");
            return e;
        });
        awaitEvdWaiter(evd);
        return w;
    }

    // ================================================================== dat_evd_wait

    @Test
    @DisplayName("EVW-01 EVW-02 EVD-03: waitFor copies the head event into the caller's DatEvent, overwriting every field, and reports nmore")
    void waitCopiesHeadEvent() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 8);
            Object opaque = new Object();
            post(evd, opaque);
            post(evd, "second");
            post(evd, null);
            DatEvent e = new DatEvent().eventNumber(EventNumber.DTO_COMPLETION_EVENT).ep(null).userCookie(77)
                    .status(DtoCompletionStatus.ERR_FLUSHED).transferredLength(5).connQual(9).asyncHandle(ia)
                    .reason(3).privateData(new byte[] {1, 2}).softwarePointer("stale").nmore(-7);
            assertTrue(evd.waitFor(0, 1, e));
            assertEquals(EventNumber.SOFTWARE_EVENT, e.eventNumber());
            assertSame(evd, e.evd());
            assertSame(opaque, e.softwarePointer(), "the pointer is opaque: the same object comes back");
            assertEquals(2, e.nmore());
            assertEquals(0, e.userCookie());
            assertNull(e.status());
            assertEquals(0, e.transferredLength());
            assertEquals(0, e.connQual());
            assertNull(e.asyncHandle());
            assertEquals(0, e.reason());
            assertEquals(0, e.privateDataSize());
            assertNull(e.ep());
            assertNull(e.rmr());
            assertNull(e.cr());
            assertNull(e.spHandle());
            assertNull(e.localIaAddress());

            assertTrue(evd.waitFor(INF, 1, e));
            assertEquals("second", e.softwarePointer());
            assertEquals(1, e.nmore());
            assertTrue(evd.waitFor(10 * MS, 1, e));
            assertNull(e.softwarePointer(), "a null pointer is a legal opaque value");
            assertEquals(0, e.nmore());
        }
    }

    @Test
    @DisplayName("EVW-03 EVW-04: threshold <= 0 or above the queue length gives INVALID_PARAMETER; threshold = qlen is allowed")
    void thresholdRange() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 4);
            int q = qlen(evd);
            assertTrue(q >= 4);
            DatEvent e = new DatEvent();
            for (int bad : new int[] {0, -1, Integer.MIN_VALUE, q + 1, Integer.MAX_VALUE}) {
                fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, () -> evd.waitFor(0, bad, e));
                fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, () -> evd.waitFor(INF, bad, e));
            }
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG4, () -> evd.waitFor(0, 1, null));
            assertFalse(evd.waitFor(0, q, e));
            for (int i = 0; i < q; i++) {
                post(evd, i);
            }
            assertTrue(evd.waitFor(0, q, e));
            assertEquals(0, e.softwarePointer());
            assertEquals(q - 1, e.nmore());
        }
    }

    @Test
    @DisplayName("EVW-05 EVW-09: a threshold-3 waiter ignores two events, returns the head once the third arrives, with nmore >= threshold-1")
    void thresholdWakeUp() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 8);
            Background<DatEvent> w = waiter(evd, 3);
            post(evd, "a");
            post(evd, "b");
            // Bounded wait to show that two events do NOT satisfy threshold 3.
            w.assertStillRunning(50);
            post(evd, "c");
            DatEvent got = w.join();
            assertEquals("a", got.softwarePointer());
            assertEquals(2, got.nmore());

            post(evd, "d");
            post(evd, "e");
            post(evd, "f");
            DatEvent e = new DatEvent();
            assertTrue(evd.waitFor(0, 3, e));
            assertEquals("b", e.softwarePointer());
            assertEquals(4, e.nmore(), "nmore counts every event still queued (EVW-09: >= 2)");
        }
    }

    @Test
    @DisplayName("EVW-06 EVW-10: a timeout with fewer than threshold events gives TIMEOUT_EXPIRED, removes nothing and reports nmore")
    void timeoutKeepsEvents() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 8);
            post(evd, "only");
            DatEvent e = new DatEvent();
            long t0 = System.nanoTime();
            assertFalse(evd.waitFor(10 * MS, 2, e));
            assertTrue(System.nanoTime() - t0 >= 10_000_000L, "returned before the 10 ms timeout");
            assertEquals(1, e.nmore());
            assertFalse(evd.waitFor(0, 2, e));
            assertEquals(1, e.nmore());
            assertEquals("only", take(evd), "the timed-out waits removed nothing");
        }
    }

    @Test
    @DisplayName("EVW-06 FFT-DX-2: waitFor on an EP's request EVD with nothing posted gives TIMEOUT_EXPIRED with nmore 0")
    void timeoutOnIdleRequestEvd() {
        try (InterfaceAdapter ia = open()) {
            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher req = EventDispatcher.create(ia, 8, null, EvdFlags.DTO | EvdFlags.RMR_BIND);
            EventDispatcher recv = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            Endpoint.create(ia, pz, recv, req, conn, null);
            DatEvent e = new DatEvent().nmore(-1);
            long t0 = System.nanoTime();
            assertFalse(req.waitFor(20 * MS, 1, e));
            assertTrue(System.nanoTime() - t0 >= 20_000_000L, "returned before the 20 ms timeout");
            assertEquals(0, e.nmore());
        }
    }

    @Test
    @DisplayName("EVW-07 FFT-CM-0 FFT-CM-1: on the CR EVD of a PSP with no client, timeout 0 expires at once and 10 ms after 10 ms")
    void timeoutZeroAndShortOnCrEvd() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher crEvd = EventDispatcher.create(ia, 8, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.create(ia, Pair.freshQual(), crEvd, PspFlags.CONSUMER);
            DatEvent e = new DatEvent().nmore(-1);
            long t0 = System.nanoTime();
            assertFalse(crEvd.waitFor(0, 1, e));
            assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "timeout 0 must not block");
            assertEquals(0, e.nmore());
            t0 = System.nanoTime();
            assertFalse(crEvd.waitFor(10_000, 1, e));
            assertTrue(System.nanoTime() - t0 >= 10_000_000L, "returned before the 10 ms timeout");
            assertEquals(0, e.nmore());
            psp.free();
            crEvd.free();
        }
    }

    @Test
    @DisplayName("EVW-08: a TIMEOUT_INFINITE wait (~0 µs) blocks until a producer thread posts")
    void infiniteWaitWokenByProducer() {
        assertEquals(-1, Dat.TIMEOUT_INFINITE, "DAT_TIMEOUT_INFINITE is (DAT_TIMEOUT) ~0");
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 4);
            Background<Void> producer = Background.start(() -> {
                awaitEvdWaiter(evd);
                post(evd, "wake");
                return null;
            });
            DatEvent e = new DatEvent();
            assertTrue(evd.waitFor(INF, 1, e));
            assertEquals("wake", e.softwarePointer());
            assertEquals(0, e.nmore());
            producer.join();
        }
    }

    @Test
    @DisplayName("EVW-11 EVQ-03: while a thread is blocked in waitFor, a concurrent waitFor or dequeue gives INVALID_STATE")
    void blockedWaiterOwnsEvd() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 4);
            Background<DatEvent> w = waiter(evd, 1);
            DatEvent e = new DatEvent();
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_WAITER, () -> evd.dequeue(e));
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_WAITER, () -> evd.waitFor(0, 1, e));
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_WAITER, () -> evd.waitFor(INF, 1, e));
            post(evd, "go");
            assertEquals("go", w.join().softwarePointer());
            assertFalse(evd.dequeue(e), "the waiter took the only event; the EVD is free again");
            post(evd, "next");
            assertTrue(evd.waitFor(0, 1, e));
            assertEquals("next", e.softwarePointer());
        }
    }

    @Test
    @DisplayName("EVW-12 CNO-03: a blocked direct waiter keeps the EVD from triggering its CNO; afterwards events trigger it again")
    void waiterSuppressesCnoTrigger() {
        try (InterfaceAdapter ia = open()) {
            AtomicInteger calls = new AtomicInteger();
            Cno cno = Cno.create(ia, x -> calls.incrementAndGet());
            EventDispatcher evd = EventDispatcher.create(ia, 8, cno, EvdFlags.SOFTWARE);
            Background<DatEvent> w = waiter(evd, 2);
            post(evd, 1);
            assertEquals(0, calls.get(), "proxy agent called although a direct waiter waits");
            assertNull(cno.waitFor(0), "CNO triggered although a direct waiter waits");
            post(evd, 2);
            DatEvent got = w.join();
            assertEquals(1, got.softwarePointer());
            assertEquals(1, got.nmore());
            assertEquals(0, calls.get());
            post(evd, 3);
            assertEquals(1, calls.get(), "without a direct waiter the event triggers the CNO");
            assertSame(evd, cno.waitFor(0));
        }
    }

    @Test
    @DisplayName("EVW-13: threshold > 1 on an EVD fed by an UNSIGNALLED or SOLICITED_WAIT EP stream gives INVALID_STATE; threshold 1 works")
    void thresholdOnConsumerNotifiedEvd() {
        try (InterfaceAdapter ia = open()) {
            ProtectionZone pz = ProtectionZone.create(ia);
            DatEvent e = new DatEvent();

            EventDispatcher recvU = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            Endpoint epU = Endpoint.create(ia, pz, recvU, null, null,
                    ia.defaultEpAttr().recvCompletionFlags(CompletionFlags.UNSIGNALLED));
            assertEquals(EvdParam.STATE_CONFIG_NOTIFY, state(recvU) & EvdParam.STATE_CONFIG_MASK);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                    () -> recvU.waitFor(0, 2, e));
            assertFalse(recvU.waitFor(0, 1, e));

            EventDispatcher recvS = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            Endpoint.create(ia, pz, recvS, null, null,
                    ia.defaultEpAttr().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT));
            assertEquals(EvdParam.STATE_CONFIG_SOLICITED, state(recvS) & EvdParam.STATE_CONFIG_MASK);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_CONFIG_SOLICITED,
                    () -> recvS.waitFor(0, 2, e));
            assertFalse(recvS.waitFor(0, 1, e));

            EventDispatcher reqU = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            Endpoint.create(ia, pz, null, reqU, null,
                    ia.defaultEpAttr().requestCompletionFlags(CompletionFlags.UNSIGNALLED));
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_CONFIG_NOTIFY,
                    () -> reqU.waitFor(0, 2, e));
            assertFalse(reqU.waitFor(0, 1, e));

            // AMB-18: threshold > 1 is allowed on EVD_THRESHOLD and DEFAULT streams.
            EventDispatcher recvT = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            Endpoint.create(ia, pz, recvT, null, null, ia.defaultEpAttr());
            assertEquals(EvdParam.STATE_CONFIG_THRESHOLD, state(recvT) & EvdParam.STATE_CONFIG_MASK);
            assertFalse(recvT.waitFor(0, 2, e));
            EventDispatcher recvD = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            Endpoint.create(ia, pz, recvD, null, null, ia.defaultEpAttr().recvCompletionFlags(CompletionFlags.DEFAULT));
            assertFalse(recvD.waitFor(0, 2, e));
            // The rule follows the streams: once the UNSIGNALLED EP is gone, threshold 2 is fine.
            epU.free();
            assertFalse(recvU.waitFor(0, 2, e));
        }
    }

    @Test
    @DisplayName("EVW-05 EVW-13: an UNSIGNALLED completion is queued without waking a waiter; the next notifying one returns it first")
    void unsignalledCompletionDoesNotWake() {
        EpAttr attr;
        try (InterfaceAdapter tmp = open()) {
            attr = tmp.defaultEpAttr().requestCompletionFlags(CompletionFlags.UNSIGNALLED);
        }
        try (Pair p = new Pair(attr, 16).connect()) {
            Endpoint ep = p.client.ep;
            ep.postRdmaWrite(1, new LmrTriplet[] {p.client.lmr.triplet(0, 8)}, 1, p.server.lmr.remoteTriplet(0, 8),
                    CompletionFlags.UNSIGNALLED);
            long end = System.nanoTime() + 5_000_000_000L;
            while (!ep.getStatus().requestIdle()) {
                assertTrue(System.nanoTime() < end, "RDMA write did not complete");
                Thread.yield();
            }
            DatEvent e = new DatEvent();
            // Bounded wait: the queued unsignalled completion must NOT satisfy the waiter.
            assertFalse(p.client.reqEvd.waitFor(10 * MS, 1, e));
            assertEquals(1, e.nmore(), "the unsignalled completion is queued");
            ep.postRdmaWrite(1, new LmrTriplet[] {p.client.lmr.triplet(8, 8)}, 2, p.server.lmr.remoteTriplet(8, 8),
                    CompletionFlags.DEFAULT);
            assertTrue(p.client.reqEvd.waitFor(5_000 * MS, 1, e));
            assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber());
            assertEquals(1, e.userCookie(), "the head (unsignalled) completion comes first");
            assertEquals(DtoCompletionStatus.SUCCESS, e.status());
            assertEquals(1, e.nmore());
            assertTrue(p.client.reqEvd.dequeue(e));
            assertEquals(2, e.userCookie());
        }
    }

    @Test
    @DisplayName("EVW-14 EVQ-05: completions of one EP stream are returned in generation order, by waitFor and by dequeue")
    void dtoStreamOrder() {
        try (Pair p = new Pair().connect()) {
            int n = 8;
            for (int i = 0; i < n; i++) {
                p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(i * 64L, 64)}, i, 0);
            }
            for (int i = 0; i < n; i++) {
                p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(i * 64L, 8)}, 100 + i, 0);
            }
            DatEvent e = new DatEvent();
            for (int i = 0; i < n; i++) {
                assertTrue(p.client.reqEvd.waitFor(5_000 * MS, 1, e));
                assertEquals(100 + i, e.userCookie());
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
            }
            assertTrue(p.server.recvEvd.waitFor(5_000 * MS, n, e), "all receives complete");
            assertEquals(0, e.userCookie());
            assertEquals(n - 1, e.nmore());
            for (int i = 1; i < n; i++) {
                assertTrue(p.server.recvEvd.dequeue(e));
                assertEquals(i, e.userCookie());
                assertEquals(8, e.transferredLength());
            }
            assertFalse(p.server.recvEvd.dequeue(e));
        }
    }

    /** One software event of a producer's stream. */
    private record Tag(int producer, int seq) {
    }

    @Test
    @DisplayName("EVQ-05 EVW-14: two producer threads' software streams each come out in their own order under serialized dequeuing")
    void softwareStreamsKeepOrder() {
        try (InterfaceAdapter ia = open()) {
            int n = 300;
            EventDispatcher evd = sw(ia, 2 * n);
            List<Background<Void>> producers = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                int id = p;
                producers.add(Background.start(() -> {
                    for (int i = 0; i < n; i++) {
                        post(evd, new Tag(id, i));
                    }
                    return null;
                }));
            }
            producers.forEach(Background::join);
            int[] next = new int[2];
            DatEvent e = new DatEvent();
            while (evd.dequeue(e)) {
                Tag t = (Tag) e.softwarePointer();
                assertEquals(next[t.producer()]++, t.seq(), "stream " + t.producer() + " out of order");
            }
            assertEquals(n, next[0]);
            assertEquals(n, next[1]);
        }
    }

    @Test
    @DisplayName("EVW-15 EVQ-07 EVD-09: set_unwaitable wakes a blocked waiter with INVALID_STATE and refuses waits; dequeue still works")
    void unwaitable() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 4);
            assertEquals(EvdParam.STATE_WAITABLE, state(evd) & (EvdParam.STATE_WAITABLE | EvdParam.STATE_UNWAITABLE));
            Background<DatEvent> w = waiter(evd, 1);
            evd.setUnwaitable();
            DatException x = w.joinFailure();
            assertEquals(DatReturnType.INVALID_STATE, x.type());
            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, x.subtype());
            assertEquals(EvdParam.STATE_UNWAITABLE, state(evd) & (EvdParam.STATE_WAITABLE | EvdParam.STATE_UNWAITABLE));
            DatEvent e = new DatEvent();
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, () -> evd.waitFor(0, 1, e));
            post(evd, "u");
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_UNWAITABLE, () -> evd.waitFor(INF, 1, e));
            assertEquals("u", take(evd), "dequeue works on an unwaitable EVD (EVQ-07)");
            evd.setUnwaitable();
            assertEquals(EvdParam.STATE_UNWAITABLE, state(evd) & (EvdParam.STATE_WAITABLE | EvdParam.STATE_UNWAITABLE));
            evd.clearUnwaitable();
            evd.clearUnwaitable();
            assertEquals(EvdParam.STATE_WAITABLE, state(evd) & (EvdParam.STATE_WAITABLE | EvdParam.STATE_UNWAITABLE));
            post(evd, "v");
            assertTrue(evd.waitFor(0, 1, e));
            assertEquals("v", e.softwarePointer());
        }
    }

    @Test
    @DisplayName("EVW-16: freeing the EVD while a thread waits on it returns DAT_ABORT to the waiter")
    void freeDuringWaitAborts() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 4);
            Background<DatEvent> w = waiter(evd, 1);
            evd.free();
            DatException x = w.joinFailure();
            assertEquals(DatReturnType.ABORT, x.type());
            assertEquals(DatReturnSubtype.SUB_INTERRUPTED, x.subtype());
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, () -> evd.dequeue(new DatEvent()));
        }
    }

    @Test
    @DisplayName("EVW-16: an abrupt IA close returns DAT_ABORT to waiters on its EVDs and on its provider-created async EVD")
    void iaCloseDuringWaitAborts() {
        InterfaceAdapter ia = open();
        try {
            EventDispatcher evd = sw(ia, 4);
            EventDispatcher async = ia.asyncEvd();
            Background<DatEvent> w1 = waiter(evd, 1);
            Background<DatEvent> w2 = waiter(async, 1);
            ia.close(CloseFlags.ABRUPT);
            for (Background<DatEvent> w : List.of(w1, w2)) {
                DatException x = w.joinFailure();
                assertEquals(DatReturnType.ABORT, x.type(), x.getMessage());
                assertEquals(DatReturnSubtype.SUB_INTERRUPTED, x.subtype());
            }
        } finally {
            closeQuietly(ia);
        }
    }

    @Test
    @DisplayName("EVW-17 EVW-10: Thread.interrupt fails a blocked waitFor with INTERRUPTED_CALL, keeps the interrupt status, reports nmore")
    void interruptedWait() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 4);
            Background<String> w = Background.start(() -> {
                DatEvent e = new DatEvent();
                try {
                    evd.waitFor(INF, 2, e);
                    return "returned";
                } catch (DatException x) {
                    return x.type() + " " + x.subtype() + " interrupted=" + Thread.currentThread().isInterrupted()
                            + " nmore=" + e.nmore();
                }
            });
            awaitEvdWaiter(evd);
            post(evd, "one");
            w.thread().interrupt();
            assertEquals("INTERRUPTED_CALL SUB_INTERRUPTED interrupted=true nmore=1", w.join());
            assertEquals("one", take(evd), "the interrupted wait removed nothing");

            // A thread that is already interrupted does not block either.
            Thread.currentThread().interrupt();
            try {
                fails(DatReturnType.INTERRUPTED_CALL, DatReturnSubtype.SUB_INTERRUPTED,
                        () -> evd.waitFor(INF, 1, new DatEvent()));
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt status stays set");
            } finally {
                Thread.interrupted();
            }
        }
    }

    @Test
    @DisplayName("EVW-18 EVQ-06 EVD-11 FFT-DX-1 FFT-QRY-15: every call on a freed EVD, on an EVD of a closed IA or on a sentinel handle gives INVALID_HANDLE")
    void invalidHandles() {
        InterfaceAdapter ia = open();
        try {
            EventDispatcher freed = sw(ia, 4);
            freed.free();
            EventDispatcher ofClosed = sw(ia, 4);
            Cno cno = Cno.create(ia, null);
            List<EventDispatcher> bad = new ArrayList<>(List.of(freed, EventDispatcher.ASYNC_EXISTS, EventDispatcher.OUT_OF_SCOPE));
            checkAllInvalid(bad, cno);
            ia.close(CloseFlags.ABRUPT);
            checkAllInvalid(List.of(ofClosed), null);
        } finally {
            closeQuietly(ia);
        }
    }

    private static void checkAllInvalid(List<EventDispatcher> evds, Cno cno) {
        DatEvent e = new DatEvent();
        for (EventDispatcher evd : evds) {
            List<Executable> calls = List.of(() -> evd.waitFor(0, 1, e), () -> evd.waitFor(INF, 1, e),
                    () -> evd.dequeue(e), () -> evd.query(EvdParam.FIELD_ALL), () -> evd.postSe(DatEvent.software(1)),
                    () -> evd.resize(8), evd::enable, evd::disable, evd::setUnwaitable, evd::clearUnwaitable,
                    () -> evd.modifyCno(cno), () -> evd.modifyCno(null), evd::getHandleType,
                    () -> evd.setConsumerContext("x"), evd::getConsumerContext, evd::free);
            for (Executable c : calls) {
                fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, c);
            }
        }
    }

    // ================================================================== create / query

    @Test
    @DisplayName("EVD-01: create with qlen <= 0 gives INVALID_PARAMETER; the actual qlen is at least the request; flags and limits are checked")
    void createChecks() {
        try (InterfaceAdapter ia = open()) {
            for (int bad : new int[] {0, -1, Integer.MIN_VALUE}) {
                fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                        () -> EventDispatcher.create(ia, bad, null, EvdFlags.SOFTWARE));
            }
            for (int q : new int[] {1, 7, 64, 1000}) {
                EventDispatcher evd = EventDispatcher.create(ia, q, null, EvdFlags.DEFAULT);
                assertTrue(qlen(evd) >= q, "qlen " + qlen(evd) + " < requested " + q);
                evd.free();
            }
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG4, () -> EventDispatcher.create(ia, 4, null, 0));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG4,
                    () -> EventDispatcher.create(ia, 4, null, EvdFlags.DTO | 0x1000));
            int max = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().maxEvdQlen();
            fails(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEVD,
                    () -> EventDispatcher.create(ia, max + 1, null, EvdFlags.SOFTWARE));
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                    () -> EventDispatcher.create(null, 4, null, EvdFlags.SOFTWARE));
        }
    }

    @Test
    @DisplayName("EVD-02: create with a freed CNO or a CNO of another IA gives INVALID_HANDLE")
    void createWithBadCno() {
        try (InterfaceAdapter ia = open(); InterfaceAdapter other = open()) {
            Cno freed = Cno.create(ia, null);
            freed.free();
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO,
                    () -> EventDispatcher.create(ia, 4, freed, EvdFlags.SOFTWARE));
            Cno foreign = Cno.create(other, null);
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO,
                    () -> EventDispatcher.create(ia, 4, foreign, EvdFlags.SOFTWARE));
            foreign.free();
        }
    }

    @Test
    @DisplayName("EVD-11 FFT-QRY-2 FFT-QRY-14: query reports ia, qlen, state, CNO and flags; undefined mask bits give INVALID_PARAMETER")
    void query() {
        try (InterfaceAdapter ia = InterfaceAdapter.open("mem", 10, null)) {
            Cno cno = Cno.create(ia, null);
            EventDispatcher evd = EventDispatcher.create(ia, 5, cno, EvdFlags.SOFTWARE | EvdFlags.DTO);
            EvdParam p = evd.query(EvdParam.FIELD_ALL);
            assertSame(ia, p.iaHandle());
            assertTrue(p.evdQlen() >= 5);
            assertEquals(EvdParam.STATE_ENABLED | EvdParam.STATE_WAITABLE,
                    p.evdState() & (EvdParam.STATE_ENABLED | EvdParam.STATE_WAITABLE | EvdParam.STATE_DISABLED
                            | EvdParam.STATE_UNWAITABLE));
            assertSame(cno, p.cnoHandle());
            assertEquals(EvdFlags.SOFTWARE | EvdFlags.DTO, p.evdFlags());
            evd.query(0);
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> evd.query(0x20));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> evd.query(-1L));

            EvdParam a = ia.asyncEvd().query(EvdParam.FIELD_ALL);
            assertSame(ia, a.iaHandle());
            assertTrue(a.evdQlen() >= 10);
            assertEquals(EvdFlags.ASYNC, a.evdFlags() & EvdFlags.ASYNC);
            assertNull(a.cnoHandle());
        }
    }

    // ================================================================== post_se / resize / free

    @Test
    @DisplayName("EVD-04: post_se on a full queue gives QUEUE_FULL, queues nothing and raises no overflow error")
    void postSeQueueFull() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 2);
            int q = qlen(evd);
            for (int i = 0; i < q; i++) {
                post(evd, i);
            }
            fails(DatReturnType.QUEUE_FULL, DatReturnSubtype.NO_SUBTYPE, () -> post(evd, "lost"));
            fails(DatReturnType.QUEUE_FULL, DatReturnSubtype.NO_SUBTYPE, () -> post(evd, "lost"));
            DatEvent e = new DatEvent();
            assertFalse(ia.asyncEvd().dequeue(e), "QUEUE_FULL must not raise an overflow: " + e);
            assertEquals(0, take(evd));
            post(evd, "after");
            for (int i = 1; i < q; i++) {
                assertEquals(i, take(evd));
            }
            assertEquals("after", take(evd));
            assertFalse(evd.dequeue(e));
        }
    }

    @Test
    @DisplayName("EVD-05: post_se on an EVD without SOFTWARE flag, or of a non-software event, gives INVALID_PARAMETER")
    void postSeChecks() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher dto = EventDispatcher.create(ia, 4, null, EvdFlags.DEFAULT);
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> post(dto, "x"));
            assertFalse(dto.dequeue(new DatEvent()));
            EventDispatcher evd = sw(ia, 4);
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> evd.postSe(new DatEvent().eventNumber(EventNumber.DTO_COMPLETION_EVENT)));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> evd.postSe(new DatEvent().eventNumber(EventNumber.ASYNC_ERROR_EVD_OVERFLOW)));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> evd.postSe(new DatEvent()));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> evd.postSe(null));
            assertFalse(evd.dequeue(new DatEvent()), "nothing was queued");
        }
    }

    @Test
    @DisplayName("EVD-06: resize keeps queued events in order across the ring's wrap; below the queued count gives INVALID_STATE and changes nothing")
    void resize() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 4);
            int q = qlen(evd);
            // Move the head so that the queued events wrap around the end of the ring.
            int seq = 0;
            for (int i = 0; i < q - 1; i++) {
                post(evd, seq++);
            }
            int first = 0;
            for (int i = 0; i < q - 2; i++) {
                assertEquals(first++, take(evd));
            }
            while (seq - first < q) {
                post(evd, seq++);
            }
            int queued = seq - first;
            assertEquals(q, queued);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, () -> evd.resize(queued - 1));
            assertEquals(q, qlen(evd), "a refused resize leaves the EVD unchanged");
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> evd.resize(0));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> evd.resize(-3));
            int max = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().maxEvdQlen();
            fails(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEVD, () -> evd.resize(max + 1));
            evd.resize(queued);
            assertTrue(qlen(evd) >= queued);
            evd.resize(32);
            assertTrue(qlen(evd) >= 32);
            for (int i = 0; i < 10; i++) {
                post(evd, seq++);
            }
            DatEvent e = new DatEvent();
            assertTrue(evd.waitFor(0, 1, e));
            assertEquals(first++, e.softwarePointer());
            assertEquals(seq - first, e.nmore());
            while (first < seq) {
                assertEquals(first++, take(evd), "resize lost or reordered events");
            }
            assertFalse(evd.dequeue(e));
            evd.resize(2);
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, () -> evd.waitFor(0, qlen(evd) + 1, e));

            Background<DatEvent> w = waiter(evd, 1);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_WAITER, () -> evd.resize(8));
            post(evd, "w");
            assertEquals("w", w.join().softwarePointer());
        }
    }

    @Test
    @DisplayName("EVD-07: free gives INVALID_STATE (EVD_IN_USE) while an EP, a PSP or another IA feeds the EVD; queued events do not block it")
    void freeInUse() {
        InterfaceAdapter ia = open();
        try {
            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher recv = EventDispatcher.create(ia, 4, null, EvdFlags.DTO);
            EventDispatcher req = EventDispatcher.create(ia, 4, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(ia, 4, null, EvdFlags.CONNECTION);
            Endpoint ep = Endpoint.create(ia, pz, recv, req, conn, null);
            for (EventDispatcher evd : List.of(recv, req, conn)) {
                fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, evd::free);
                assertTrue(qlen(evd) >= 4, "a refused free leaves the EVD usable");
            }
            ep.free();
            recv.free();
            req.free();
            conn.free();

            EventDispatcher cr = EventDispatcher.create(ia, 4, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.create(ia, Pair.freshQual(), cr, PspFlags.CONSUMER);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, cr::free);
            psp.free();
            cr.free();

            EventDispatcher async = EventDispatcher.create(ia, 4, null, EvdFlags.ASYNC);
            InterfaceAdapter user = InterfaceAdapter.open("mem", 0, async);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE, async::free);
            user.close(CloseFlags.ABRUPT);
            async.free();

            EventDispatcher full = sw(ia, 4);
            post(full, 1);
            post(full, 2);
            full.free();
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC, () -> full.dequeue(new DatEvent()));
            pz.free();
            ia.close(CloseFlags.GRACEFUL);
        } finally {
            closeQuietly(ia);
        }
    }

    // ================================================================== enable / disable / CNO

    @Test
    @DisplayName("EVD-08 CNO-03: enable and disable only control CNO triggering, are idempotent, and never affect a direct waiter")
    void enableDisable() {
        try (InterfaceAdapter ia = open()) {
            AtomicInteger calls = new AtomicInteger();
            Cno cno = Cno.create(ia, x -> calls.incrementAndGet());
            EventDispatcher evd = EventDispatcher.create(ia, 8, cno, EvdFlags.SOFTWARE);
            int enabledBits = EvdParam.STATE_ENABLED | EvdParam.STATE_DISABLED;
            assertEquals(EvdParam.STATE_ENABLED, state(evd) & enabledBits);
            evd.disable();
            evd.disable();
            assertEquals(EvdParam.STATE_DISABLED, state(evd) & enabledBits);
            post(evd, "d");
            assertEquals(0, calls.get(), "a disabled EVD must not trigger its CNO");
            assertNull(cno.waitFor(0));
            assertEquals("d", take(evd));

            Background<DatEvent> w = waiter(evd, 1);
            post(evd, "direct");
            assertEquals("direct", w.join().softwarePointer(), "a disabled EVD still wakes its direct waiter");
            assertEquals(0, calls.get());

            evd.enable();
            evd.enable();
            assertEquals(EvdParam.STATE_ENABLED, state(evd) & enabledBits);
            post(evd, "e");
            assertEquals(1, calls.get());
            assertSame(evd, cno.waitFor(0));
        }
    }

    @Test
    @DisplayName("EVD-10: modify_cno attaches, replaces and (with null) detaches the CNO; a bad CNO gives INVALID_HANDLE")
    void modifyCno() {
        try (InterfaceAdapter ia = open(); InterfaceAdapter other = open()) {
            AtomicInteger a = new AtomicInteger();
            AtomicInteger b = new AtomicInteger();
            Cno cnoA = Cno.create(ia, x -> a.incrementAndGet());
            Cno cnoB = Cno.create(ia, x -> b.incrementAndGet());
            EventDispatcher evd = sw(ia, 16);
            assertNull(evd.query(EvdParam.FIELD_CNO).cnoHandle());
            post(evd, 0);
            evd.modifyCno(cnoA);
            assertSame(cnoA, evd.query(EvdParam.FIELD_CNO).cnoHandle());
            post(evd, 1);
            assertEquals(1, a.get());
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, cnoA::free);
            evd.modifyCno(cnoB);
            assertSame(cnoB, evd.query(EvdParam.FIELD_CNO).cnoHandle());
            post(evd, 2);
            assertEquals(1, a.get());
            assertEquals(1, b.get());
            cnoA.free();
            evd.modifyCno(null);
            assertNull(evd.query(EvdParam.FIELD_CNO).cnoHandle());
            post(evd, 3);
            assertEquals(1, b.get(), "a detached CNO is no longer triggered");
            cnoB.free();
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, () -> evd.modifyCno(cnoA));
            Cno foreign = Cno.create(other, null);
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, () -> evd.modifyCno(foreign));
            assertNull(evd.query(EvdParam.FIELD_CNO).cnoHandle());
        }
    }

    // ================================================================== overflow

    @Test
    @DisplayName("EVD-12: a DTO EVD of qlen 2 given three completions raises one DAT_ASYNC_ERROR_EVD_OVERFLOW naming the EVD on the async EVD")
    void overflow() {
        try (Pair p = new Pair(null, 2).connect()) {
            EventDispatcher req = p.client.reqEvd;
            int q = qlen(req);
            for (int i = 1; i <= q + 1; i++) {
                p.client.ep.postRdmaWrite(1, new LmrTriplet[] {p.client.lmr.triplet(i * 8L, 8)}, i,
                        p.server.lmr.remoteTriplet(i * 8L, 8), 0);
            }
            DatEvent e = new DatEvent();
            EventDispatcher async = p.client.ia.asyncEvd();
            assertTrue(async.waitFor(5_000 * MS, 1, e), "no overflow reported");
            assertEquals(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, e.eventNumber());
            assertSame(req, e.asyncHandle());
            assertEquals(AsyncReason.EVD_OVERFLOW_ERROR, e.reason());
            assertSame(async, e.evd());
            long end = System.nanoTime() + 5_000_000_000L;
            while (!p.client.ep.getStatus().requestIdle()) {
                assertTrue(System.nanoTime() < end, "writes did not complete");
                Thread.yield();
            }
            assertFalse(async.dequeue(e), "one overflow, one report: " + e);
            for (int i = 1; i <= q; i++) {
                assertTrue(req.dequeue(e));
                assertEquals(i, e.userCookie(), "the events that fitted are kept in order");
            }
            assertFalse(req.dequeue(e), "the overflowing completion is lost");
            assertFalse(p.server.ia.asyncEvd().dequeue(e), "the peer saw no overflow");
        }
    }

    static void closeQuietly(InterfaceAdapter ia) {
        try {
            ia.close(CloseFlags.ABRUPT);
        } catch (DatException e) {
            if (e.type() != DatReturnType.INVALID_HANDLE) {
                fail(e);
            }
        }
    }
}
