package io.jdat.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A deterministic stream of records for the ring tests: record {@code seq} has a length drawn from a
 * {@code SplittableRandom(seed)} (the producer and the checker draw the same sequence), type
 * {@code 1 + seq % maxType}, and a payload whose first (up to 8) bytes are {@code seq} (little-endian) and the
 * rest bytes of a random pattern at an offset that depends on {@code seq}. The writer cycles through the three
 * ways to write: one source, two parts, claim/commit.
 */
final class RecordStream {
    static final int MAX_TYPE = 7;
    private static final int PATTERN_SHIFTS = 4096;

    final int maxPayload;
    final int maxSmall;
    final MemorySegment pattern;

    RecordStream(long seed, int maxPayload, Arena arena) {
        this.maxPayload = maxPayload;
        this.maxSmall = Math.min(256, maxPayload);
        pattern = arena.allocate(maxPayload + PATTERN_SHIFTS, 8);
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (long i = 0; i < pattern.byteSize(); i++) {
            pattern.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    /** Mostly small records (0..256 bytes), one in five up to the maximum payload. */
    int nextLength(SplittableRandom sizes) {
        return sizes.nextInt(5) == 0 ? sizes.nextInt(maxPayload + 1) : sizes.nextInt(maxSmall + 1);
    }

    static int type(long seq) {
        return 1 + (int) (seq % MAX_TYPE);
    }

    static long patternOffset(long seq) {
        return (seq * 8) & (PATTERN_SHIFTS - 1);
    }

    /** Spin, then yield, then park briefly: the machine may have two CPUs for both sides and more. */
    static void idle(int attempt) {
        if (attempt < 64) {
            Thread.onSpinWait();
        } else if (attempt < 1024) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(20_000);
        }
    }

    /** Writes the stream's records in order. */
    final class Writer {
        private final SplittableRandom sizes;
        private final MemorySegment scratch;
        private final MemorySegment seqBytes;
        long seq;
        private int pending = -1;

        Writer(long seed, Arena arena) {
            sizes = new SplittableRandom(seed);
            scratch = arena.allocate(maxPayload, 8);
            seqBytes = arena.allocate(8, 8);
        }

        /** Tries to write the next record; true if written. */
        boolean offer(ShmRing.Producer p) throws RingCorruptException {
            if (pending < 0) {
                pending = nextLength(sizes);
            }
            int len = pending;
            int head = Math.min(8, len);
            long po = patternOffset(seq);
            int type = type(seq);
            boolean ok;
            switch ((int) (seq % 3)) {
                case 0 -> {
                    scratch.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                    if (len > 8) {
                        MemorySegment.copy(pattern, po + 8, scratch, 8, len - 8);
                    }
                    ok = p.tryWrite(type, scratch, 0, len);
                }
                case 1 -> {
                    seqBytes.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                    ok = p.tryWrite(type, seqBytes, 0, head, pattern, po + 8, len - head);
                }
                default -> {
                    long at = p.tryClaim(type, len);
                    ok = at >= 0;
                    if (ok) {
                        MemorySegment ring = p.segment();
                        for (int j = 0; j < head; j++) {
                            ring.set(ValueLayout.JAVA_BYTE, at + j, (byte) (seq >>> (8 * j)));
                        }
                        if (len > 8) {
                            MemorySegment.copy(pattern, po + 8, ring, at + 8, len - 8);
                        }
                        p.commit(at);
                    }
                }
            }
            if (ok) {
                seq++;
                pending = -1;
            }
            return ok;
        }

        /** Writes the next record, waiting for room. */
        void write(ShmRing.Producer p) throws RingCorruptException {
            for (int attempt = 0; !offer(p); attempt++) {
                idle(attempt);
            }
        }
    }

    /** Checks every record against the stream; throws AssertionError on the first difference. */
    final class Checker implements RecordHandler {
        private final SplittableRandom sizes;
        long seq;
        long bytes;

        Checker(long seed) {
            sizes = new SplittableRandom(seed);
        }

        @Override
        public boolean onRecord(int type, MemorySegment segment, long offset, int length) {
            int len = nextLength(sizes);
            if (length != len || type != type(seq)) {
                throw new AssertionError("record " + seq + ": type " + type + " length " + length
                        + ", expected type " + type(seq) + " length " + len);
            }
            int head = Math.min(8, len);
            for (int j = 0; j < head; j++) {
                if (segment.get(ValueLayout.JAVA_BYTE, offset + j) != (byte) (seq >>> (8 * j))) {
                    throw new AssertionError("record " + seq + ": sequence byte " + j + " differs");
                }
            }
            if (len > 8) {
                long po = patternOffset(seq);
                long m = MemorySegment.mismatch(segment, offset + 8, offset + len, pattern, po + 8, po + len);
                if (m >= 0) {
                    throw new AssertionError("record " + seq + " (length " + len + "): byte " + (8 + m)
                            + " differs");
                }
            }
            seq++;
            bytes += len;
            return true;
        }
    }
}
