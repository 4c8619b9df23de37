package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Paired rings ({@link ShmRing#pair}): the consumer's position rides on its side's next record in the other ring
 * (the answer) and is stored in the ring header only when no record carried it (issue 18: the head store of every
 * read was a line taken from the peer's core). Side X consumes ring A and produces into B; side Y the reverse.
 */
class ShmRingPairTest {
    private static final int CAPACITY = 4096;
    private Arena arena;
    private MemorySegment a;
    private MemorySegment b;
    private ShmRing.Consumer xIn;
    private ShmRing.Producer xOut;
    private ShmRing.Producer yOut;
    private ShmRing.Consumer yIn;
    private MemorySegment src;

    @BeforeEach
    void open() throws RingCorruptException {
        arena = Arena.ofShared();
        a = ring();
        b = ring();
        xIn = ShmRing.consumer(a, RecordStream.MAX_TYPE);
        xOut = ShmRing.producer(b);
        yOut = ShmRing.producer(a);
        yIn = ShmRing.consumer(b, RecordStream.MAX_TYPE);
        ShmRing.pair(xIn, xOut);
        ShmRing.pair(yIn, yOut);
        src = arena.allocate(xOut.maxPayload(), 8);
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private MemorySegment ring() {
        MemorySegment s = arena.allocate(RingDescriptor.totalLength(CAPACITY), 4096);
        ShmRing.format(s, CAPACITY);
        return s;
    }

    private static long headerHead(MemorySegment ring) {
        return ring.get(ValueLayout.JAVA_LONG, RingDescriptor.HEAD_OFFSET);
    }

    @Test
    void theHeadRidesOnTheAnswer() throws Exception {
        assertTrue(yOut.tryWrite(1, src, 0, 64)); // the request
        assertEquals(1, xIn.read((t, s, o, l) -> true, 10));
        assertEquals(0, headerHead(a), "a paired consumer stores no head when it reads");
        assertEquals(0, yOut.consumerPosition(), "not known to the requester yet");
        assertTrue(xOut.tryWrite(2, src, 0, 64)); // the answer carries X's position of ring A
        long[] seenInHandler = {-1};
        assertEquals(1, yIn.read((t, s, o, l) -> {
            try {
                seenInHandler[0] = yOut.consumerPosition(); // the answer's acknowledgement, before its handler runs
            } catch (RingCorruptException e) {
                throw new AssertionError(e);
            }
            return true;
        }, 10));
        assertEquals(yOut.position(), seenInHandler[0]);
        assertEquals(yOut.position(), yOut.consumerPosition());
        assertFalse(xIn.publish(), "the answer carried it: nothing to store");
        assertEquals(0, headerHead(a), "no head store on ring A in the whole exchange");
        assertThrows(IllegalStateException.class, () -> ShmRing.pair(xIn, yOut));
    }

    @Test
    void withoutAnAnswerPublishStoresTheHead() throws Exception {
        assertTrue(yOut.tryWrite(1, src, 0, 10));
        assertTrue(yOut.tryWrite(1, src, 0, 100));
        assertEquals(2, xIn.read((t, s, o, l) -> true, 10));
        assertEquals(0, headerHead(a));
        assertTrue(xIn.publish());
        assertEquals(xIn.position(), headerHead(a));
        assertEquals(yOut.position(), yOut.consumerPosition());
        assertFalse(xIn.publish(), "stored already");
        // a later answer acknowledges the same position: the requester keeps the larger of the two, unchanged
        assertTrue(xOut.tryWrite(2, src, 0, 0));
        assertEquals(1, yIn.read((t, s, o, l) -> true, 10));
        assertEquals(yOut.position(), yOut.consumerPosition());
    }

    /**
     * A handler that ends the connection publishes from inside the read (ShmReceiver#fail, before the close state):
     * the records this read consumed before its own count as handled, its own does not. Before, head was the
     * position before the read, so the requester failed its oldest handled request with the error (issue 18,
     * ShmStreamEndingTest's refused Write).
     */
    @Test
    void publishInsideAHandlerCountsTheRecordsConsumedBeforeIt() throws Exception {
        assertTrue(yOut.tryWrite(1, src, 0, 10));
        long first = yOut.position();
        assertTrue(yOut.tryWrite(1, src, 0, 100));
        long second = yOut.position();
        assertTrue(yOut.tryWrite(2, src, 0, 10)); // the record at fault
        assertTrue(yOut.tryWrite(1, src, 0, 10));
        long[] stored = {-1};
        assertEquals(2, xIn.read((t, s, o, l) -> {
            if (t != 2) {
                return true;
            }
            assertTrue(xIn.publish());
            stored[0] = headerHead(a);
            return false;
        }, 10));
        assertTrue(first < second);
        assertEquals(second, stored[0], "the two records before the one at fault, stored before the handler returned");
        assertEquals(second, yOut.consumerPosition());
        assertFalse(xIn.publish(), "stored already");
    }

    /** The producer fills ring A; its room comes back through the acknowledgements alone, head never stored. */
    @Test
    void roomComesBackThroughAcknowledgements() throws Exception {
        int written = 0;
        while (yOut.tryWrite(1, src, 0, 200)) {
            written++;
        }
        assertTrue(written > 10);
        for (int lap = 0; lap < 5; lap++) {
            assertEquals(written, drain(xIn));
            assertFalse(yOut.tryWrite(1, src, 0, 200), "no acknowledgement yet: still full");
            assertTrue(xOut.tryWrite(2, src, 0, 8));
            assertEquals(1, drain(yIn));
            written = 0;
            while (yOut.tryWrite(1, src, 0, 200)) {
                written++;
            }
            assertTrue(written > 10, "lap " + lap + ": room known from the acknowledgement");
        }
        assertEquals(0, headerHead(a));
    }

    private static int drain(ShmRing.Consumer c) throws RingCorruptException {
        int n = 0;
        for (int r; (r = c.read((t, s, o, l) -> true, 100)) > 0; ) {
            n += r;
        }
        return n;
    }

    /** An acknowledgement is the peer's word: past the tail or off the line grid is corruption; an old one is ignored. */
    @Test
    void hostileAcknowledgements() throws Exception {
        long[] forged = {2 * RingDescriptor.ALIGNMENT, 8, -RingDescriptor.ALIGNMENT};
        boolean[] corrupt = {true, true, false};
        for (int i = 0; i < forged.length; i++) {
            close();
            open(); // fresh rings
            assertTrue(yOut.tryWrite(1, src, 0, 16));
            long record = RingDescriptor.HEADER_LENGTH + (xOut.position() & (CAPACITY - 1));
            assertTrue(xOut.tryWrite(2, src, 0, 16));
            b.set(ValueLayout.JAVA_LONG, record + RingDescriptor.ACK_FIELD, forged[i]);
            assertEquals(1, yIn.read((t, s, o, l) -> true, 10), "the ring itself stays readable");
            if (corrupt[i]) {
                assertThrows(RingCorruptException.class, yOut::consumerPosition, "acknowledgement " + forged[i]);
                assertTrue(yOut.isCorrupt());
            } else {
                assertEquals(0, yOut.consumerPosition());
                assertTrue(yOut.tryWrite(1, src, 0, 16));
            }
        }
    }

    /**
     * A record that Y cannot handle yet (no receive buffer) stays at the head of ring B; X's answer behind it
     * acknowledges Y's request, and X stores no head for it. Y still learns the position: the consumer reads the
     * acknowledgements behind a declined record. (Without that, a requester that waits for its RDMA Write's
     * completion before it posts the receive buffer would wait for the receive timeout.)
     */
    @Test
    void acknowledgementsBehindADeclinedRecordArrive() throws Exception {
        assertTrue(xOut.tryWrite(1, src, 0, 64)); // a Send for Y, written before X handled Y's request
        assertTrue(yOut.tryWrite(2, src, 0, 64)); // Y's request (an RDMA Write, say)
        assertEquals(1, xIn.read((t, s, o, l) -> true, 10));
        assertTrue(xOut.tryWrite(3, src, 0, 8)); // carries X's position of ring A
        assertFalse(xIn.publish(), "carried: X stores no head");
        assertEquals(0, yIn.read((t, s, o, l) -> false, 10), "Y declines the Send (no receive buffer)");
        assertEquals(yOut.position(), yOut.consumerPosition(), "Y's request is known handled");
        assertTrue(xOut.tryWrite(3, src, 0, 8));
        assertEquals(0, yIn.read((t, s, o, l) -> false, 10));
        assertEquals(3, yIn.read((t, s, o, l) -> true, 10), "the declined records are all still there");
    }

    /** A ping-pong of paired rings in one thread, publish included, after warm-up: zero bytes allocated. */
    @Test
    void pairedHotPathAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long[] sink = new long[1];
        RecordHandler h = (type, seg, off, len) -> {
            sink[0] += len + type;
            return true;
        };
        for (int round = 0; round < 3; round++) {
            pingPong(h, 200_000); // warm-up
            long before = mx.getCurrentThreadAllocatedBytes();
            pingPong(h, 100_000);
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            if (allocated == 0 || round == 2) {
                assertEquals(0, allocated, "bytes allocated by 100k paired round trips");
                break;
            }
        }
        assertTrue(sink[0] > 0);
    }

    private void pingPong(RecordHandler h, int n) throws RingCorruptException {
        for (int i = 0; i < n; i++) {
            // each publish comes right after its side's record, which carried the position: nothing to store
            if (!yOut.tryWrite(1, src, 0, 64) || yIn.publish() || xIn.read(h, 4) != 1
                    || !xOut.tryWrite(2, src, 0, 64) || xIn.publish() || yIn.read(h, 4) != 1) {
                throw new AssertionError("round trip " + i);
            }
            if ((i & 7) == 0 && (!yOut.tryWrite(1, src, 0, 8) || xIn.read(h, 4) != 1 || !xIn.publish())) {
                throw new AssertionError("one way " + i); // no answer: publish stores the head
            }
        }
    }

    /**
     * Two threads, each a side: Y streams checked records onto A in bursts; X reads them, answers now and then (a
     * record that acknowledges) and otherwise stores head only at a later {@link ShmRing.Consumer#publish}. A wrong
     * acknowledgement (room given back too early) overwrites records before they are read: the checker sees it.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void streamWithOccasionalAnswers() throws Exception {
        long records = 300_000;
        RecordStream stream = new RecordStream(5, yOut.maxPayload(), arena);
        RecordStream.Checker ch = stream.new Checker(5);
        CompletableFuture<Long> y = CompletableFuture.supplyAsync(() -> {
            RecordStream.Writer w = stream.new Writer(5, arena);
            try {
                for (int attempt = 0; w.seq < records; ) {
                    if (w.offer(yOut)) {
                        attempt = 0;
                    } else {
                        RecordStream.idle(attempt++);
                    }
                    // the answers, with their acknowledgements: read also while ring A is full, as the receive
                    // path of a connection does
                    yIn.read((t, s, o, l) -> true, 16);
                }
            } catch (RingCorruptException e) {
                throw new AssertionError(e);
            }
            return w.seq;
        }, r -> Thread.ofPlatform().name("side-y").start(r));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(100);
        java.util.SplittableRandom r = new java.util.SplittableRandom(3);
        for (int idle = 0; ch.seq < records; ) {
            xIn.publish(); // one pass late, as ShmReceiver does: a no-op when an answer carried the position
            if (xIn.read(ch, 1 + r.nextInt(32)) == 0) {
                RecordStream.idle(idle++);
                assertTrue(System.nanoTime() < deadline, "stuck at record " + ch.seq);
            } else {
                idle = 0;
                if (r.nextInt(4) == 0) {
                    xOut.tryWrite(2, src, 0, r.nextInt(64)); // an answer (the ring may be full: then none)
                }
            }
        }
        assertEquals(records, y.get(10, TimeUnit.SECONDS));
        assertEquals(yOut.position(), xIn.position());
    }
}
