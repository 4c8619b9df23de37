package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One thread: layout, validation at attach, wrap-around with every record size, claims, doorbell, files. */
class ShmRingTest {
    private Arena arena;

    @BeforeEach
    void open() {
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private MemorySegment ring(int capacity) {
        MemorySegment s = arena.allocate(RingDescriptor.totalLength(capacity), 4096);
        ShmRing.format(s, capacity);
        return s;
    }

    @Test
    void layoutConstants() {
        assertEquals(0, RingDescriptor.TAIL_OFFSET % RingDescriptor.LINE);
        assertEquals(RingDescriptor.LINE, RingDescriptor.HEAD_OFFSET - RingDescriptor.TAIL_OFFSET);
        assertEquals(RingDescriptor.LINE, RingDescriptor.SLEEPING_OFFSET - RingDescriptor.HEAD_OFFSET);
        assertEquals(512, RingDescriptor.HEADER_LENGTH);
        assertEquals(128, RingDescriptor.maxRecordLength(1024));
        assertEquals(112, RingDescriptor.maxPayload(1024));
        assertFalse(RingDescriptor.isValidCapacity(1000));
        assertFalse(RingDescriptor.isValidCapacity(128));
        assertFalse(RingDescriptor.isValidCapacity(512), "the largest record of a ring must span two lines");
        assertThrows(IllegalArgumentException.class, () -> RingDescriptor.totalLength(3000));
    }

    @Test
    void formatWritesHeader() {
        MemorySegment s = ring(1024);
        assertEquals(RingDescriptor.MAGIC, s.get(ValueLayout.JAVA_INT, RingDescriptor.MAGIC_OFFSET));
        assertEquals(RingDescriptor.VERSION, s.get(ValueLayout.JAVA_INT, RingDescriptor.VERSION_OFFSET));
        assertEquals(1024, s.get(ValueLayout.JAVA_INT, RingDescriptor.CAPACITY_OFFSET));
        assertEquals(128, s.get(ValueLayout.JAVA_INT, RingDescriptor.MAX_RECORD_OFFSET));
        assertThrows(IllegalArgumentException.class, () -> ShmRing.format(arena.allocate(1000, 8), 1024));
    }

    @Test
    void recordsStartAtCacheLineBoundaries() throws Exception {
        MemorySegment s = ring(4096);
        ShmRing.Producer p = ShmRing.producer(s);
        MemorySegment src = arena.allocate(256);
        long[] expected = {64, 128, 256, 320};
        int[] sizes = {0, 64 - RingDescriptor.RECORD_HEADER, 65 - RingDescriptor.RECORD_HEADER, 1};
        for (int i = 0; i < sizes.length; i++) {
            assertTrue(p.tryWrite(1, src, 0, sizes[i]));
            assertEquals(expected[i], p.position(), "after a payload of " + sizes[i]);
        }
    }

    @Test
    void attachRejectsBadHeaders() throws Exception {
        MemorySegment s = ring(1024);
        assertEquals(1024, ShmRing.consumer(s, 3).capacity());
        assertEquals(112, ShmRing.producer(s).maxPayload());
        int[][] bad = {
            {RingDescriptor.MAGIC_OFFSET, 0}, {RingDescriptor.VERSION_OFFSET, RingDescriptor.VERSION - 1},
            {RingDescriptor.CAPACITY_OFFSET, 1000}, {RingDescriptor.CAPACITY_OFFSET, 4096},
            {RingDescriptor.MAX_RECORD_OFFSET, 1024},
        };
        for (int[] b : bad) {
            MemorySegment t = ring(1024);
            t.set(ValueLayout.JAVA_INT, b[0], b[1]);
            assertThrows(RingCorruptException.class, () -> ShmRing.producer(t), "field " + b[0]);
            assertThrows(RingCorruptException.class, () -> ShmRing.consumer(t, 3), "field " + b[0]);
        }
        MemorySegment t = ring(1024);
        t.set(ValueLayout.JAVA_LONG, RingDescriptor.TAIL_OFFSET, 4096);
        assertThrows(RingCorruptException.class, () -> ShmRing.producer(t));
        assertThrows(RingCorruptException.class, () -> ShmRing.producer(arena.allocate(100, 8)));
    }

    /** Every payload size from 0 to the maximum, each through several wraps, full-then-drain and one-by-one. */
    @ParameterizedTest
    @ValueSource(ints = {1024, 4096})
    void wrapAroundWithEveryRecordSize(int capacity) throws Exception {
        MemorySegment s = ring(capacity);
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, 255);
        MemorySegment src = arena.allocate(p.maxPayload(), 8);
        long[] seq = {0, 0}; // written, read
        for (int size = 0; size <= p.maxPayload(); size++) {
            int sz = size;
            RecordHandler check = (type, seg, off, len) -> {
                assertEquals(sz, len);
                assertEquals(1 + (int) (seq[1] % 255), type);
                for (int j = 0; j < len; j++) {
                    assertEquals((byte) (seq[1] * 31 + j), seg.get(ValueLayout.JAVA_BYTE, off + j));
                }
                seq[1]++;
                return true;
            };
            for (int round = 0; round < 3; round++) {
                // fill until full
                int n = 0;
                while (true) {
                    for (int j = 0; j < size; j++) {
                        src.set(ValueLayout.JAVA_BYTE, j, (byte) (seq[0] * 31 + j));
                    }
                    if (!p.tryWrite(1 + (int) (seq[0] % 255), src, 0, size)) {
                        break;
                    }
                    seq[0]++;
                    n++;
                }
                long used = p.position() - c.position();
                // full one line early: the producer keeps a line of slack for the next record's header word
                assertTrue(used <= capacity - RingDescriptor.ALIGNMENT
                        && used + 2L * RingDescriptor.align(RingDescriptor.RECORD_HEADER + size) + RingDescriptor.ALIGNMENT > capacity,
                        "size " + size + ": full at " + used);
                assertEquals(used, c.available());
                int limit = 1 + round;
                int got = 0;
                for (int r; (r = c.read(check, limit)) > 0; ) {
                    assertTrue(r <= limit);
                    got += r;
                }
                assertEquals(n, got);
                assertEquals(seq[0], seq[1]);
                assertEquals(p.position(), c.position());
                // one by one, a capacity and a half of bytes
                for (int i = 0; i < 3 * capacity / 2 / RingDescriptor.align(RingDescriptor.RECORD_HEADER + size); i++) {
                    for (int j = 0; j < size; j++) {
                        src.set(ValueLayout.JAVA_BYTE, j, (byte) (seq[0] * 31 + j));
                    }
                    assertTrue(p.tryWrite(1 + (int) (seq[0] % 255), src, 0, size));
                    seq[0]++;
                    assertEquals(1, c.read(check, 10));
                }
                assertEquals(0, c.read(check, 10));
            }
        }
        // where the next record will start, the producer left a zero header word
        assertEquals(0L, s.get(ValueLayout.JAVA_LONG, RingDescriptor.HEADER_LENGTH + (p.position() & (capacity - 1))));
    }

    /**
     * Ring version 3: the consumer writes nothing in the data area (it zeroed the header word of every line it
     * consumed before, stores into lines the producer's core owned; issue 18). Only the header's head moves.
     */
    @Test
    void consumerWritesNothingInTheDataArea() throws Exception {
        int capacity = 4096;
        MemorySegment s = ring(capacity);
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, 5);
        MemorySegment src = arena.allocate(p.maxPayload(), 8);
        src.fill((byte) 0x33);
        MemorySegment data = s.asSlice(RingDescriptor.HEADER_LENGTH, capacity);
        MemorySegment before = arena.allocate(capacity, 8);
        java.util.SplittableRandom r = new java.util.SplittableRandom(7);
        long records = 0;
        for (int lap = 0; lap < 6 * capacity / 64; lap++) {
            for (int n = 1 + r.nextInt(6); n > 0 && p.tryWrite(1 + r.nextInt(5), src, 0, r.nextInt(p.maxPayload() + 1));
                    n--) {
                records++;
            }
            MemorySegment.copy(data, 0, before, 0, capacity);
            long read = c.read((t, g, o, l) -> true, 1 + r.nextInt(8));
            assertEquals(-1L, before.mismatch(data), "the consumer wrote into the data area");
            records -= read;
        }
        while (records > 0) {
            records -= c.read((t, g, o, l) -> true, 100);
        }
        assertEquals(p.position(), c.position());
    }

    /**
     * A length left by an earlier lap is never read as a record: the producer zeroes the next record's header
     * word before it publishes, also across padding. The data area is first filled with plausible stale records
     * (every line a published 8-byte record of type 1); the consumer must see exactly what was written since.
     */
    @ParameterizedTest
    @ValueSource(ints = {1024, 4096})
    void staleLengthsOfAnEarlierLapAreNeverRead(int capacity) throws Exception {
        MemorySegment s = ring(capacity);
        for (int at = 0; at < capacity; at += RingDescriptor.ALIGNMENT) {
            s.set(ValueLayout.JAVA_INT, RingDescriptor.HEADER_LENGTH + at + RingDescriptor.LENGTH_FIELD,
                    RingDescriptor.RECORD_HEADER + 8);
            s.set(ValueLayout.JAVA_INT, RingDescriptor.HEADER_LENGTH + at + RingDescriptor.TYPE_FIELD, 1);
        }
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, 5);
        MemorySegment src = arena.allocate(p.maxPayload(), 8);
        List<Integer> written = new ArrayList<>();
        List<Integer> seen = new ArrayList<>();
        java.util.SplittableRandom r = new java.util.SplittableRandom(11);
        for (int round = 0; round < 400; round++) {
            for (int n = 1 + r.nextInt(4); n > 0; n--) {
                int type = 2 + r.nextInt(4);
                int size = r.nextInt(p.maxPayload() + 1); // sizes that leave the tail anywhere: padding too
                if (!p.tryWrite(type, src, 0, size)) {
                    break;
                }
                written.add(type * 100_000 + size);
            }
            c.read((t, g, o, l) -> seen.add(t * 100_000 + l), 100);
            assertEquals(written, seen, "round " + round);
        }
    }

    /** Random size patterns through the three write variants, in small rings with many wraps. */
    @ParameterizedTest
    @ValueSource(ints = {1024, 2048, 4096, 65536})
    void randomSizesAllWriteVariants(int capacity) throws Exception {
        MemorySegment s = ring(capacity);
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, RecordStream.MAX_TYPE);
        RecordStream stream = new RecordStream(capacity, p.maxPayload(), arena);
        RecordStream.Writer w = stream.new Writer(capacity, arena);
        RecordStream.Checker ch = stream.new Checker(capacity);
        java.util.SplittableRandom r = new java.util.SplittableRandom(42);
        while (w.seq < 50_000) {
            int burst = 1 + r.nextInt(20);
            for (int i = 0; i < burst && w.offer(p); i++) {
                // keep writing
            }
            c.read(ch, 1 + r.nextInt(20));
        }
        while (c.read(ch, 100) > 0) {
            // drain
        }
        assertEquals(w.seq, ch.seq);
    }

    @Test
    void claimIsInvisibleUntilCommitted() throws Exception {
        MemorySegment s = ring(1024);
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, 5);
        List<String> got = new ArrayList<>();
        RecordHandler h = (type, seg, off, len) -> got.add(type + ":" + seg.getString(off));
        long at = p.tryClaim(5, 6);
        assertThrows(IllegalStateException.class, () -> p.tryClaim(5, 6));
        assertThrows(IllegalStateException.class, () -> p.commit(at + RingDescriptor.RECORD_HEADER));
        s.setString(at, "hello");
        assertEquals(0, c.read(h, 10));
        assertEquals(RingDescriptor.ALIGNMENT, c.available()); // claimed (one line), not published
        p.commit(at);
        assertThrows(IllegalStateException.class, () -> p.commit(at));
        assertEquals(1, c.read(h, 10));
        assertEquals(List.of("5:hello"), got);
        assertThrows(IllegalArgumentException.class, () -> p.tryClaim(0, 1));
        assertThrows(IllegalArgumentException.class, () -> p.tryClaim(1, 113));
        assertThrows(IndexOutOfBoundsException.class, () -> p.tryWrite(1, s, s.byteSize() - 2, 4));
        assertTrue(p.tryWrite(1, s, 0, 4)); // no claim was left dangling by the failed call
    }

    @Test
    void recordIsConsumedEvenIfTheHandlerThrows() throws Exception {
        MemorySegment s = ring(1024);
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, 5);
        MemorySegment src = arena.allocate(16);
        assertTrue(p.tryWrite(1, src, 0, 16));
        assertTrue(p.tryWrite(2, src, 0, 16));
        assertThrows(IllegalStateException.class, () -> c.read((t, g, o, l) -> {
            throw new IllegalStateException("handler");
        }, 10));
        int[] types = new int[1];
        assertEquals(1, c.read((t, g, o, l) -> {
            types[0] = t;
            return true;
        }, 10));
        assertEquals(2, types[0]);
    }

    @Test
    @DisplayName("a record the handler declines stays at the head, unconsumed, and is offered again")
    void declinedRecordStays() throws RingCorruptException {
        MemorySegment s = ring(1024);
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, 5);
        MemorySegment src = arena.allocate(16, 8);
        assertTrue(p.tryWrite(1, src, 0, 16));
        assertTrue(p.tryWrite(2, src, 0, 16));
        List<Integer> seen = new ArrayList<>();
        assertEquals(0, c.read((t, g, o, l) -> seen.add(t) && false, 10));
        assertEquals(0, p.consumerPosition(), "nothing consumed");
        assertEquals(1, c.read((t, g, o, l) -> seen.add(t) && t == 1, 10));
        assertEquals(2, c.read((t, g, o, l) -> seen.add(t), 10) + 1);
        assertEquals(List.of(1, 1, 2, 2), seen);
        assertEquals(p.position(), p.consumerPosition(), "all consumed");
    }

    @Test
    void doorbellHandshake() throws Exception {
        MemorySegment s = ring(1024);
        ShmRing.Producer p = ShmRing.producer(s);
        ShmRing.Consumer c = ShmRing.consumer(s, 5);
        assertFalse(p.consumerSleeping());
        assertTrue(c.prepareToSleep());
        assertTrue(p.consumerSleeping());
        c.awake();
        assertFalse(p.consumerSleeping());
        assertTrue(p.tryWrite(1, s, 0, 8));
        assertFalse(c.prepareToSleep()); // a record is there: not sleeping
        assertFalse(p.consumerSleeping());
    }

    @Test
    void ringFileIsOwnerOnly(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("ring");
        MemorySegment m = RingFile.create(f, RingDescriptor.totalLength(4096), arena);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(RingDescriptor.totalLength(4096), Files.size(f));
        ShmRing.format(m, 4096);
        MemorySegment again = RingFile.open(f, arena);
        assertEquals(RingDescriptor.MAGIC, again.get(ValueLayout.JAVA_INT, 0));
        assertThrows(IOException.class, () -> RingFile.create(f, 8192, arena)); // never reuses a file
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));
        assertThrows(IOException.class, () -> RingFile.open(f, arena));
    }
}
