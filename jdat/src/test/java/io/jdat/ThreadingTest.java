package io.jdat;

import static io.jdat.testing.Background.awaitEvdWaiter;
import static io.jdat.testing.Background.awaitParked;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Background;
import io.jdat.testing.Pair;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Concurrency of the event machinery: many producers and consumers, overlapping waits and dequeues,
 * virtual-thread waiters, allocation-free polling, and posting right at connection establishment.
 */
class ThreadingTest {
    private static final int INF = Dat.TIMEOUT_INFINITE;

    private static InterfaceAdapter open() {
        return InterfaceAdapter.open("mem", 16, null);
    }

    private static EventDispatcher sw(InterfaceAdapter ia, int qlen) {
        return EventDispatcher.create(ia, qlen, null, EvdFlags.SOFTWARE);
    }

    /** One software event: producer id and its sequence number. */
    private record Tag(int producer, int seq) {
    }

    /** Posts {@code n} tagged events, retrying while the queue is full. */
    private static Background<Void> producer(EventDispatcher evd, int id, int n) {
        return Background.start(() -> {
            DatEvent ev = DatEvent.software(null);
            for (int i = 0; i < n; i++) {
                ev.softwarePointer(new Tag(id, i));
                for (;;) {
                    try {
                        evd.postSe(ev);
                        break;
                    } catch (DatException e) {
                        assertEquals(DatReturnType.QUEUE_FULL, e.type(), e.getMessage());
                        Thread.yield();
                    }
                }
            }
            return null;
        });
    }

    /** Checks that every tag of {@code producers} × {@code n} arrived exactly once, in order per consumer. */
    private static void checkExactlyOnce(List<List<Tag>> perConsumer, int producers, int n) {
        boolean[][] seen = new boolean[producers][n];
        int total = 0;
        for (List<Tag> got : perConsumer) {
            int[] last = new int[producers];
            java.util.Arrays.fill(last, -1);
            for (Tag t : got) {
                assertTrue(!seen[t.producer()][t.seq()], "delivered twice: " + t);
                seen[t.producer()][t.seq()] = true;
                assertTrue(t.seq() > last[t.producer()], "a consumer saw producer " + t.producer() + " out of order");
                last[t.producer()] = t.seq();
                total++;
            }
        }
        assertEquals(producers * n, total, "events lost");
    }

    @Test
    @DisplayName("EVQ-04 EVQ-05 EVW-14: 4 threads dequeue while 4 threads post: every event is delivered exactly once, each stream in order")
    void concurrentDequeuers() {
        int producers = 4;
        int consumers = 4;
        int n = 2_000;
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 64);
            AtomicInteger received = new AtomicInteger();
            int total = producers * n;
            List<Background<List<Tag>>> cs = new ArrayList<>();
            for (int c = 0; c < consumers; c++) {
                cs.add(Background.start(() -> {
                    List<Tag> got = new ArrayList<>();
                    DatEvent ev = new DatEvent();
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
                    while (received.get() < total) {
                        if (evd.dequeue(ev)) {
                            assertEquals(EventNumber.SOFTWARE_EVENT, ev.eventNumber());
                            assertSame(evd, ev.evd());
                            got.add((Tag) ev.softwarePointer());
                            received.incrementAndGet();
                        } else {
                            assertTrue(System.nanoTime() < end, "events missing");
                            Thread.yield();
                        }
                    }
                    return got;
                }));
            }
            List<Background<Void>> ps = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                ps.add(producer(evd, p, n));
            }
            ps.forEach(Background::join);
            List<List<Tag>> results = new ArrayList<>();
            cs.forEach(c -> results.add(c.join()));
            checkExactlyOnce(results, producers, n);
            assertTrue(!evd.dequeue(new DatEvent()), "nothing left over");
        }
    }

    @Test
    @DisplayName("EVW-23 EVW-11 EVQ-03 EVQ-04: overlapping waitFor and dequeue calls from several threads deliver every event exactly once")
    void overlappingWaitAndDequeue() {
        int producers = 2;
        int n = 1_000;
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 32);
            AtomicInteger received = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            int total = producers * n;
            List<Background<List<Tag>>> cs = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                boolean waits = c < 2;
                cs.add(Background.start(() -> {
                    List<Tag> got = new ArrayList<>();
                    DatEvent ev = new DatEvent();
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
                    while (received.get() < total) {
                        assertTrue(System.nanoTime() < end, "events missing");
                        boolean ok;
                        try {
                            ok = waits ? evd.waitFor(1_000, 1, ev) : evd.dequeue(ev);
                        } catch (DatException e) {
                            assertEquals(DatReturnType.INVALID_STATE, e.type(), e.getMessage());
                            assertEquals(DatReturnSubtype.INVALID_STATE_EVD_WAITER, e.subtype());
                            refused.incrementAndGet();
                            Thread.yield();
                            continue;
                        }
                        if (ok) {
                            got.add((Tag) ev.softwarePointer());
                            received.incrementAndGet();
                        } else if (!waits) {
                            Thread.yield();
                        }
                    }
                    return got;
                }));
            }
            List<Background<Void>> ps = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                ps.add(producer(evd, p, n));
            }
            ps.forEach(Background::join);
            List<List<Tag>> results = new ArrayList<>();
            cs.forEach(c -> results.add(c.join()));
            checkExactlyOnce(results, producers, n);
        }
    }

    @Test
    @DisplayName("EVQ-01 EVQ-02: polling with a reused DatEvent allocates nothing (100 000 non-empty and 100 000 empty dequeues)")
    void pollingDoesNotAllocate() {
        java.lang.management.ThreadMXBean std = ManagementFactory.getThreadMXBean();
        assertTrue(std instanceof com.sun.management.ThreadMXBean, "needs com.sun.management.ThreadMXBean");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) std;
        if (!mx.isThreadAllocatedMemoryEnabled()) {
            mx.setThreadAllocatedMemoryEnabled(true);
        }
        long tid = Thread.currentThread().threadId();
        int n = 100_000;
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, n);
            DatEvent post = DatEvent.software(new Object());
            DatEvent ev = new DatEvent();
            for (int round = 0; round < 4; round++) { // the last round is measured
                for (int i = 0; i < n; i++) {
                    evd.postSe(post);
                }
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < n; i++) {
                    if (!evd.dequeue(ev)) {
                        throw new AssertionError("queue empty at " + i);
                    }
                }
                for (int i = 0; i < n; i++) {
                    if (evd.dequeue(ev)) {
                        throw new AssertionError("queue not empty");
                    }
                }
                long dequeueBytes = mx.getThreadAllocatedBytes(tid) - before;

                for (int i = 0; i < 1_000; i++) {
                    evd.postSe(post);
                }
                before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 1_000; i++) {
                    if (!evd.waitFor(0, 1, ev)) {
                        throw new AssertionError("waitFor(0) found nothing at " + i);
                    }
                }
                for (int i = 0; i < 1_000; i++) {
                    if (evd.waitFor(0, 1, ev)) {
                        throw new AssertionError("waitFor(0) found an event");
                    }
                }
                long waitBytes = mx.getThreadAllocatedBytes(tid) - before;
                if (round == 3) {
                    assertTrue(dequeueBytes < 64 * 1024, "200 000 dequeues allocated " + dequeueBytes + " bytes");
                    assertTrue(waitBytes < 16 * 1024, "2 000 waitFor(0) calls allocated " + waitBytes + " bytes");
                }
            }
            assertSame(post.softwarePointer(), ev.softwarePointer());
        }
    }

    @Test
    @DisplayName("EVW-08 EVW-16 EVW-17 CNO-03: waitFor and cno_wait work from virtual threads: 50 blocked at once on 2 cores, woken by posts, free and interrupt")
    void virtualThreadWaiters() {
        try (InterfaceAdapter ia = open()) {
            int n = 50;
            List<EventDispatcher> evds = new ArrayList<>();
            List<Background<Object>> waiters = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                EventDispatcher evd = sw(ia, 2);
                evds.add(evd);
                waiters.add(Background.startVirtual(() -> {
                    DatEvent e = new DatEvent();
                    assertTrue(evd.waitFor(INF, 1, e));
                    assertTrue(Thread.currentThread().isVirtual());
                    return e.softwarePointer();
                }));
            }
            // All of them wait at the same time: a parked virtual thread does not hold a carrier.
            evds.forEach(Background::awaitEvdWaiter);
            for (int i = n - 1; i >= 0; i--) {
                evds.get(i).postSe(DatEvent.software(i));
            }
            for (int i = 0; i < n; i++) {
                assertEquals(i, waiters.get(i).join());
            }

            EventDispatcher freed = sw(ia, 2);
            Background<Boolean> aborted = Background.startVirtual(() -> freed.waitFor(INF, 1, new DatEvent()));
            awaitEvdWaiter(freed);
            freed.free();
            assertEquals(DatReturnType.ABORT, aborted.joinFailure().type());

            EventDispatcher evd = sw(ia, 2);
            Background<Boolean> interrupted = Background.startVirtual(() -> evd.waitFor(INF, 1, new DatEvent()));
            awaitEvdWaiter(evd);
            interrupted.thread().interrupt();
            assertEquals(DatReturnType.INTERRUPTED_CALL, interrupted.joinFailure().type());

            Cno cno = Cno.create(ia, null);
            EventDispatcher attached = EventDispatcher.create(ia, 2, cno, EvdFlags.SOFTWARE);
            Background<EventDispatcher> cnoWaiter = Background.startVirtual(() -> cno.waitFor(INF));
            awaitParked(cnoWaiter.thread());
            attached.postSe(DatEvent.software("cno"));
            assertSame(attached, cnoWaiter.join());
            Background<EventDispatcher> timedOut = Background.startVirtual(() -> cno.waitFor(5_000));
            assertNull(timedOut.join(), "a virtual-thread cno_wait times out with a NULL EVD (CNO-02)");
        }
    }

    @Test
    @DisplayName("EVW-06 EVW-08: a waiter that finds nothing parks instead of spinning: a 300 ms wait uses far less than 300 ms of CPU")
    void idleWaiterParks() {
        try (InterfaceAdapter ia = open()) {
            EventDispatcher evd = sw(ia, 2);
            Background<Long> w = Background.start(() -> {
                java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
                long cpu0 = mx.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                assertTrue(!evd.waitFor(300_000, 1, new DatEvent()), "nothing was posted");
                assertTrue(System.nanoTime() - t0 >= 300_000_000L, "returned before the timeout");
                return mx.getCurrentThreadCpuTime() - cpu0;
            });
            long cpu = w.join();
            assertTrue(cpu < 100_000_000L, "the waiter burned " + cpu / 1_000_000 + " ms of CPU in a 300 ms wait");
        }
    }

    /** Dequeues from {@code evd} in a busy loop (bounded) until an event arrives, and checks its number. */
    private static void spinFor(EventDispatcher evd, EventNumber expected) {
        DatEvent e = new DatEvent();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!evd.dequeue(e)) {
            assertTrue(System.nanoTime() < end, "no event on " + evd);
            Thread.onSpinWait();
        }
        assertEquals(expected, e.eventNumber());
    }

    @Test
    @DisplayName("CON-09 SND-06: both sides may post the instant they see ESTABLISHED (no race with the end of the transport handshake)")
    void postRightAfterEstablished() {
        for (int round = 0; round < 25; round++) {
            try (Pair p = new Pair()) {
                p.client.ep.postRecv(1, new LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 1, 0);
                p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 64)}, 2, 0);
                p.psp = PublicServicePoint.create(p.server.ia, p.qual, p.crEvd, PspFlags.CONSUMER);
                p.client.ep.connect(Pair.address(), p.qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
                p.server.next(p.crEvd).cr().accept(p.server.ep, 0, null);
                // Busy-poll (no parking) so that the post follows the event as closely as possible.
                spinFor(p.server.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                p.server.ep.postSend(1, new LmrTriplet[] {p.server.lmr.triplet(64, 8)}, 3, 0);
                spinFor(p.client.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(64, 8)}, 4, 0);
                p.server.expectDto(p.server.reqEvd, 3);
                assertEquals(8, p.client.expectDto(p.client.recvEvd, 1).transferredLength());
                p.client.expectDto(p.client.reqEvd, 4);
                assertEquals(8, p.server.expectDto(p.server.recvEvd, 2).transferredLength());
            }
        }
    }
}
