package io.jdat.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Whole-region byte images for exact data-path checks: fast patterns that never equal {@link #SENTINEL}, images
 * of untouched memory, gather/scatter lists ({@link #spread}) and where a message lands in them. A test builds
 * the image a region must hold and compares the region with it byte for byte ({@link Region#assertImage}), so
 * every byte written outside a target is caught too.
 */
public final class Images {
    /** What untouched memory holds (the same byte as {@link DataPath#SENTINEL}). */
    public static final byte SENTINEL = DataPath.SENTINEL;

    private Images() {
    }

    /** {@code len} bytes of a pattern that depends on {@code seed} and position, never the sentinel. */
    public static byte[] pattern(int seed, int len) {
        byte[] b = new byte[len];
        long x = 0x9E3779B97F4A7C15L * (seed + 1);
        for (int i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            byte v = (byte) (x >>> 24);
            b[i] = v == SENTINEL ? 0x11 : v;
        }
        return b;
    }

    /** An image of {@code size} sentinel bytes. */
    public static byte[] sentinelImage(long size) {
        byte[] b = new byte[(int) size];
        Arrays.fill(b, SENTINEL);
        return b;
    }

    /**
     * Splits {@code n} bytes into the (offset, length) pairs of {@code pieces} segments starting at
     * {@code base}, each {@code gap} bytes after the previous one's end. Lengths: roughly equal, a short
     * one in the middle, the rest in the last; with {@code slack} extra bytes on the last (a partial segment).
     */
    public static long[] spread(long base, long n, int pieces, long gap, long slack) {
        long[] r = new long[2 * pieces];
        long left = n;
        long at = base;
        for (int i = 0; i < pieces; i++) {
            long len;
            if (i == pieces - 1) {
                len = left + slack;
            } else if (i == 1) {
                len = Math.min(left, 7);
            } else {
                len = Math.min(left, n / pieces);
            }
            r[2 * i] = at;
            r[2 * i + 1] = len;
            left -= Math.min(len, left);
            at += len + gap;
        }
        return r;
    }

    /** Writes {@code msg} into the segments of {@code spread} (in order) of image {@code img}. */
    public static void scatterInto(byte[] img, long[] spread, byte[] msg) {
        int from = 0;
        for (int i = 0; i < spread.length && from < msg.length; i += 2) {
            int n = (int) Math.min(spread[i + 1], msg.length - from);
            System.arraycopy(msg, from, img, (int) spread[i], n);
            from += n;
        }
    }

    /** Writes {@code msg} into the segments of {@code spread} (in order) of {@code r}. */
    public static void scatterInto(Region r, long[] spread, byte[] msg) {
        int from = 0;
        for (int i = 0; i < spread.length && from < msg.length; i += 2) {
            int n = (int) Math.min(spread[i + 1], msg.length - from);
            r.put(spread[i], msg, from, n);
            from += n;
        }
    }

    /** Checks {@code seg} byte for byte against {@code expected}, naming the first differing byte. */
    public static void assertImageEquals(MemorySegment seg, byte[] expected, String what) {
        long at = seg.mismatch(MemorySegment.ofArray(expected));
        if (at >= 0) {
            String got = at < seg.byteSize() ? String.valueOf(seg.get(ValueLayout.JAVA_BYTE, at)) : "end";
            String exp = at < expected.length ? String.valueOf(expected[(int) at]) : "end";
            String first = differences(seg, expected);
            // A second look tells a late write (the bytes arrive after the completion: an ordering fault) from
            // wrong bytes (they stay).
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            fail(what + ": byte " + at + " is " + got + ", expected " + exp + " (" + first + "; 100 ms later: "
                    + differences(seg, expected) + ")");
        }
    }

    /** How many bytes of {@code seg} differ from {@code expected}, and where the first and last are. */
    private static String differences(MemorySegment seg, byte[] expected) {
        long n = Math.min(seg.byteSize(), expected.length);
        long count = Math.abs(seg.byteSize() - expected.length);
        long lo = -1;
        long hi = -1;
        for (long i = 0; i < n; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) != expected[(int) i]) {
                count++;
                lo = lo < 0 ? i : lo;
                hi = i;
            }
        }
        return count == 0 ? "no byte differs" : count + " bytes differ, in " + lo + ".." + hi;
    }
}
