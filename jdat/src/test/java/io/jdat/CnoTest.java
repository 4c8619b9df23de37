package io.jdat;

import static io.jdat.testing.Background.awaitParked;
import static io.jdat.testing.Background.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Background;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The Consumer Notification Object (CONFORMANCE §2.10, CNO-01..07; FFT-QRY-1/12/13). */
class CnoTest {
    private static final int INF = Dat.TIMEOUT_INFINITE;

    private static InterfaceAdapter open() {
        return InterfaceAdapter.open("mem", 16, null);
    }

    private static EventDispatcher sw(InterfaceAdapter ia, Cno cno) {
        return EventDispatcher.create(ia, 8, cno, EvdFlags.SOFTWARE);
    }

    private static void post(EventDispatcher evd, Object pointer) {
        evd.postSe(DatEvent.software(pointer));
    }

    /** A proxy agent that records each call: the EVD and the calling thread. */
    private static final class Recorder implements ProxyAgent {
        record Call(EventDispatcher evd, Thread thread) {
        }

        final List<Call> calls = new CopyOnWriteArrayList<>();

        @Override
        public void trigger(EventDispatcher evd) {
            calls.add(new Call(evd, Thread.currentThread()));
        }
    }

    @Test
    @DisplayName("CNO-01 CNO-07 FFT-QRY-1 FFT-QRY-12: a new CNO reports its IA and its agent (or none) and has no EVDs; bad mask bits give INVALID_PARAMETER")
    void createAndQuery() {
        try (InterfaceAdapter ia = open()) {
            Cno plain = Cno.create(ia, null);
            CnoParam p = plain.query(CnoParam.FIELD_ALL);
            assertSame(ia, p.iaHandle());
            assertNull(p.agent());
            plain.query(0);
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> plain.query(0x4));
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> plain.query(-1L));
            assertNull(plain.waitFor(0), "no EVD, no trigger");
            plain.free(); // no EVD refers to a new CNO

            Recorder agent = new Recorder();
            Cno withAgent = Cno.create(ia, agent);
            assertSame(agent, withAgent.query(CnoParam.FIELD_AGENT).agent());
            assertSame(ia, withAgent.query(CnoParam.FIELD_IA_HANDLE).iaHandle());
            assertEquals(0, agent.calls.size(), "creating a CNO triggers nothing");
            withAgent.free();

            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA, () -> Cno.create(null, null));
        }
    }

    @Test
    @DisplayName("CNO-02: cno_wait times out with DAT_QUEUE_EMPTY and a NULL EVD: timeout 0 at once, 10 ms after 10 ms")
    void waitTimesOut() {
        try (InterfaceAdapter ia = open()) {
            Cno cno = Cno.create(ia, null);
            sw(ia, cno);
            long t0 = System.nanoTime();
            assertNull(cno.waitFor(0));
            assertTrue(System.nanoTime() - t0 < 1_000_000_000L, "timeout 0 must not block");
            t0 = System.nanoTime();
            assertNull(cno.waitFor(10_000));
            assertTrue(System.nanoTime() - t0 >= 10_000_000L, "returned before the 10 ms timeout");
        }
    }

    @Test
    @DisplayName("CNO-03: a trigger that comes before the wait is kept; the EVD returned is a hint, every attached EVD must be polled")
    void triggerIsAHint() {
        try (InterfaceAdapter ia = open()) {
            Cno cno = Cno.create(ia, null);
            EventDispatcher a = sw(ia, cno);
            EventDispatcher b = sw(ia, cno);
            post(a, "a");
            post(b, "b");
            EventDispatcher hint = cno.waitFor(0);
            assertTrue(hint == a || hint == b, "the hint is one of the attached EVDs: " + hint);
            DatEvent e = new DatEvent();
            assertTrue(a.dequeue(e));
            assertEquals("a", e.softwarePointer());
            assertTrue(b.dequeue(e));
            assertEquals("b", e.softwarePointer());
        }
    }

    @Test
    @DisplayName("CNO-03: a thread blocked in cno_wait(INFINITE) is woken by an event another thread posts to an attached EVD")
    void blockedWaiterWoken() {
        try (InterfaceAdapter ia = open()) {
            Cno cno = Cno.create(ia, null);
            EventDispatcher evd = sw(ia, cno);
            Background<EventDispatcher> w = Background.start(() -> cno.waitFor(INF));
            awaitParked(w.thread());
            post(evd, 1);
            assertSame(evd, w.join());
        }
    }

    @Test
    @DisplayName("CNO-04: freeing every attached EVD releases a blocked cno_wait with a NULL EVD; freeing only some does not")
    void freeingAllEvdsReleasesWaiter() {
        try (InterfaceAdapter ia = open()) {
            Cno cno = Cno.create(ia, null);
            EventDispatcher a = sw(ia, cno);
            EventDispatcher b = sw(ia, cno);
            Background<EventDispatcher> w = Background.start(() -> cno.waitFor(INF));
            awaitParked(w.thread());
            a.free();
            // Bounded wait: one EVD is still attached, so the waiter must NOT be released.
            w.assertStillRunning(50);
            b.free();
            assertNull(w.join());
            cno.free();
        }
    }

    @Test
    @DisplayName("CNO-05: cno_free gives INVALID_STATE (CNO_IN_USE) while an EVD references the CNO or a thread waits; a second waiter too")
    void freeInUse() {
        try (InterfaceAdapter ia = open()) {
            Cno cno = Cno.create(ia, null);
            EventDispatcher evd = sw(ia, cno);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, cno::free);
            evd.modifyCno(null);
            EventDispatcher withCno = sw(ia, cno);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, cno::free);
            withCno.free();

            Background<EventDispatcher> w = Background.start(() -> cno.waitFor(INF));
            awaitParked(w.thread());
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, cno::free);
            fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE, () -> cno.waitFor(0));
            w.thread().interrupt();
            DatException x = w.joinFailure();
            assertEquals(DatReturnType.INTERRUPTED_CALL, x.type());
            assertEquals(DatReturnSubtype.SUB_INTERRUPTED, x.subtype());
            cno.free();
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, cno::free);
        }
    }

    @Test
    @DisplayName("CNO-06: the proxy agent is called with the triggering EVD on the producing thread besides waking the waiter; modify_agent replaces it, null removes it")
    void proxyAgent() {
        try (InterfaceAdapter ia = open()) {
            Recorder first = new Recorder();
            Recorder second = new Recorder();
            Cno cno = Cno.create(ia, first);
            EventDispatcher evd = sw(ia, cno);
            post(evd, 1);
            assertEquals(List.of(new Recorder.Call(evd, Thread.currentThread())), first.calls);
            assertSame(evd, cno.waitFor(0), "the agent is called in addition to waking waiters");

            Background<Thread> producer = Background.start(() -> {
                post(evd, 2);
                return Thread.currentThread();
            });
            Thread producerThread = producer.join();
            assertEquals(2, first.calls.size());
            assertSame(producerThread, first.calls.get(1).thread(), "the agent runs on the thread that generated the event");

            cno.modifyAgent(second);
            assertSame(second, cno.query(CnoParam.FIELD_ALL).agent());
            post(evd, 3);
            assertEquals(2, first.calls.size(), "a replaced agent is not called");
            assertEquals(List.of(new Recorder.Call(evd, Thread.currentThread())), second.calls);

            cno.modifyAgent(null);
            assertNull(cno.query(CnoParam.FIELD_ALL).agent());
            post(evd, 4);
            assertEquals(2, first.calls.size());
            assertEquals(1, second.calls.size(), "a removed agent is not called");
            assertSame(evd, cno.waitFor(0), "without an agent the waiter is still triggered");
        }
    }

    @Test
    @DisplayName("CNO-07 FFT-QRY-13: every call on a freed CNO or on a CNO of a closed IA gives INVALID_HANDLE (INVALID_HANDLE_CNO)")
    void invalidHandles() {
        InterfaceAdapter ia = open();
        try {
            Cno freed = Cno.create(ia, null);
            freed.free();
            Cno ofClosed = Cno.create(ia, null);
            checkAllInvalid(freed);
            ia.close(CloseFlags.ABRUPT);
            checkAllInvalid(ofClosed);
        } finally {
            EventDispatcherTest.closeQuietly(ia);
        }
    }

    private static void checkAllInvalid(Cno cno) {
        List<Executable> calls = List.of(() -> cno.query(CnoParam.FIELD_ALL), () -> cno.query(0),
                () -> cno.modifyAgent(null), () -> cno.waitFor(0), () -> cno.waitFor(INF), cno::free,
                cno::getHandleType, () -> cno.setConsumerContext(1), cno::getConsumerContext);
        for (Executable c : calls) {
            fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO, c);
        }
    }
}
