package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SRQ stress test of issue 3: 8 EPs on one SRQ, 100 000 messages from 8 sender threads, two receiving
 * threads (two recv EVDs, four EPs each) that check and re-post every buffer.
 */
class SrqStressTest {
    private static final int CONNS = 8;
    private static final int MESSAGES = 100_000;
    private static final int PER_CONN = MESSAGES / CONNS;
    private static final int BUFFERS = 512;
    private static final int BUF = 64;
    private static final int MSG = 32;
    /** Sends in flight per connection; the sender re-uses a slot of its buffer once that send completed. */
    private static final int WINDOW = 16;

    /** Byte {@code k} of message {@code (conn, seq)} after its 8-byte header. */
    private static byte body(int conn, int seq, int k) {
        return (byte) (conn * 31 + seq * 7 + k * 13 + 1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mem", io.jdat.shm.ShmTesting.SHM})
    @DisplayName("SRQ-24 SRQ-26 SPR-02 SPR-04 SPR-06 SRQ-03 SRQ-04: stress: 8 EPs on one SRQ, 100 000 messages from 8"
            + " sender threads: every message received exactly once with its exact bytes, per-connection order kept,"
            + " counters consistent at the end (in one JVM on mem, between two shm IAs)")
    void eightConnectionsOneSrq(String ia) throws Exception {
        io.jdat.shm.ShmTesting.register();
        try (SrqFixture f = new SrqFixture(ia, new SrqAttr(BUFFERS, 1, Dat.SRQ_LW_DEFAULT))) {
            EventDispatcher[] recvEvds = {f.serverDtoEvd(2 * BUFFERS), f.serverDtoEvd(2 * BUFFERS)};
            SrqFixture.Conn[] conns = new SrqFixture.Conn[CONNS];
            Map<Endpoint, Integer> index = new IdentityHashMap<>();
            for (int k = 0; k < CONNS; k++) {
                conns[k] = f.connect(recvEvds[k % 2]);
                index.put(conns[k].server, k);
            }
            // posted[i] is 1 while buffer i is on the SRQ or in use, 0 while a receiver owns it.
            AtomicIntegerArray posted = new AtomicIntegerArray(BUFFERS);
            for (int i = 0; i < BUFFERS; i++) {
                posted.set(i, 1);
                f.post(i, (long) i * BUF, BUF);
            }
            f.assertCounts(BUFFERS, BUFFERS, BUFFERS, "before the run");
            ExecutorService pool = Executors.newFixedThreadPool(CONNS + 2);
            // Results in the order the threads finish, so the first failure is the one reported.
            ExecutorCompletionService<Object> done = new ExecutorCompletionService<>(pool);
            long start = System.nanoTime();
            try {
                List<Future<Object>> receivers = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    EventDispatcher evd = recvEvds[r];
                    receivers.add(done.submit(() -> receive(f, evd, index, posted)));
                }
                for (int k = 0; k < CONNS; k++) {
                    SrqFixture.Conn c = conns[k];
                    int conn = k;
                    done.submit(() -> send(f, c, conn));
                }
                for (int t = 0; t < CONNS + 2; t++) {
                    Future<Object> next = done.poll(60, TimeUnit.SECONDS);
                    assertTrue(next != null, "a thread did not finish within 60 s");
                    next.get(); // rethrows the thread's failure
                }
                int[] received = new int[CONNS];
                for (Future<Object> r : receivers) {
                    int[] part = (int[]) r.get();
                    for (int k = 0; k < CONNS; k++) {
                        received[k] += part[k];
                    }
                }
                for (int k = 0; k < CONNS; k++) {
                    assertEquals(PER_CONN, received[k], "messages of connection " + k);
                }
            } finally {
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("SrqStressTest: " + MESSAGES + " messages over " + CONNS + " EPs on one SRQ in " + millis
                    + " ms");
            // Counters consistent: every buffer is back on the SRQ, no EP holds one, nothing is left anywhere.
            f.assertCounts(BUFFERS, BUFFERS, BUFFERS, "after the run");
            for (int i = 0; i < BUFFERS; i++) {
                assertEquals(1, posted.get(i), "buffer " + i + " re-posted");
            }
            for (SrqFixture.Conn c : conns) {
                assertEquals(new Endpoint.RecvQueryResult(0, 0), c.server.recvQuery());
                assertEquals(EpState.CONNECTED, c.server.getStatus().epState());
                assertEquals(EpState.CONNECTED, c.client.getStatus().epState());
                assertTrue(c.client.getStatus().requestIdle());
                assertEmpty(c.clientReq, "send completions");
                assertEmpty(c.serverConn, "connection events");
            }
            for (EventDispatcher evd : recvEvds) {
                assertEmpty(evd, "receive completions");
            }
            assertEmpty(f.serverIa.asyncEvd(), "server async errors");
            assertEmpty(f.clientIa.asyncEvd(), "client async errors");
        }
    }

    /** One sender: {@link #PER_CONN} messages on {@code c}, at most {@link #WINDOW} in flight. */
    private static Object send(SrqFixture f, SrqFixture.Conn c, int conn) {
        DatEvent e = new DatEvent();
        LmrTriplet[] iov = new LmrTriplet[1];
        long base = (long) conn * WINDOW * BUF;
        int completed = 0;
        for (int seq = 0; seq < PER_CONN; seq++) {
            while (seq - completed >= WINDOW) {
                completed = awaitSend(c, e, completed);
            }
            long off = base + (long) (seq % WINDOW) * BUF;
            f.clientBuf.set(ValueLayout.JAVA_INT_UNALIGNED, off, conn);
            f.clientBuf.set(ValueLayout.JAVA_INT_UNALIGNED, off + 4, seq);
            for (int k = 8; k < MSG; k++) {
                f.clientBuf.set(ValueLayout.JAVA_BYTE, off + k, body(conn, seq, k));
            }
            iov[0] = f.clientLmr.triplet(off, MSG);
            c.client.postSend(1, iov, seq, CompletionFlags.DEFAULT);
        }
        while (completed < PER_CONN) {
            completed = awaitSend(c, e, completed);
        }
        return PER_CONN;
    }

    private static int awaitSend(SrqFixture.Conn c, DatEvent e, int completed) {
        if (!c.clientReq.waitFor(SrqFixture.WAIT, 1, e)) {
            fail("send " + completed + " did not complete within 5 s");
        }
        if (e.status() != DtoCompletionStatus.SUCCESS || e.userCookie() != completed) {
            fail("send completion " + e + ", expected cookie " + completed);
        }
        return completed + 1;
    }

    /** One receiver: checks and re-posts until the four connections of {@code evd} delivered everything. */
    private static Object receive(SrqFixture f, EventDispatcher evd, Map<Endpoint, Integer> index,
            AtomicIntegerArray posted) {
        int[] next = new int[CONNS];
        int expected = PER_CONN * CONNS / 2;
        DatEvent e = new DatEvent();
        LmrTriplet[] iov = new LmrTriplet[1];
        for (int n = 0; n < expected; n++) {
            if (!evd.waitFor(SrqFixture.WAIT, 1, e)) {
                fail("no receive completion within 5 s after " + n);
            }
            if (e.status() != DtoCompletionStatus.SUCCESS || e.transferredLength() != MSG) {
                fail("receive completion " + e);
            }
            long cookie = e.userCookie();
            if (cookie < 0 || cookie >= BUFFERS || !posted.compareAndSet((int) cookie, 1, 0)) {
                fail("buffer " + cookie + " completed while not posted");
            }
            Integer k = index.get(e.ep());
            if (k == null) {
                fail("completion of an unknown EP " + e.ep());
            }
            long at = cookie * BUF;
            int conn = f.serverBuf.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            int seq = f.serverBuf.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
            if (conn != k) {
                fail("a message of connection " + conn + " completed on EP " + k);
            }
            if (seq != next[k]) {
                fail("connection " + k + ": message " + seq + " where " + next[k] + " was due");
            }
            next[k]++;
            for (int b = 8; b < MSG; b++) {
                if (f.serverBuf.get(ValueLayout.JAVA_BYTE, at + b) != body(conn, seq, b)) {
                    fail("connection " + k + " message " + seq + ": byte " + b + " differs");
                }
            }
            posted.set((int) cookie, 1);
            iov[0] = f.serverLmr.triplet(at, BUF);
            f.srq.postRecv(1, iov, cookie);
        }
        return next;
    }
}
