package io.jdat.tools.tx;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The payload of {@code jdat tx}: every byte is a function of a seed and of its position in the
 * operation's logical byte stream (the concatenation of its segments), so a lost, stale, shifted, torn or
 * misrouted transfer is found. The seed differs for every run, thread, endpoint, iteration and operation,
 * so data left over from an earlier iteration never passes as this one's.
 */
final class TxPattern {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TxPattern() {
    }

    /**
     * The seed of one execution of one operation.
     *
     * @param run       the run's identity
     * @param thread    the thread index
     * @param ep        the endpoint index in its thread
     * @param iteration the iteration
     * @param op        the operation's index in the op list
     * @return the seed
     */
    static long seed(long run, int thread, int ep, long iteration, int op) {
        long h = run ^ 0x9E3779B97F4A7C15L;
        h = mix(h + thread);
        h = mix(h + ep);
        h = mix(h + iteration);
        return mix(h + op);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * The 8 bytes at logical word {@code k} (bytes {@code 8k..8k+7}, little-endian) of pattern {@code seed}.
     *
     * @param seed the pattern
     * @param k    the word index
     * @return the word
     */
    static long word(long seed, long k) {
        return mix(seed + k * 0x9E3779B97F4A7C15L);
    }

    /**
     * The byte at logical position {@code pos} of pattern {@code seed}.
     *
     * @param seed the pattern
     * @param pos  the position
     * @return the byte
     */
    static byte at(long seed, long pos) {
        return (byte) (word(seed, pos >>> 3) >>> ((pos & 7) << 3));
    }

    /**
     * Writes bytes {@code [logical, logical + len)} of the pattern at {@code off}.
     *
     * @param seg     the memory
     * @param off     where the bytes go
     * @param len     how many
     * @param seed    the pattern
     * @param logical the position of the first byte in the logical stream
     */
    static void fill(MemorySegment seg, long off, long len, long seed, long logical) {
        long i = 0;
        if ((logical & 7) == 0) {
            long words = len >>> 3;
            long k0 = logical >>> 3;
            for (long k = 0; k < words; k++) {
                seg.set(WORD, off + (k << 3), word(seed, k0 + k));
            }
            i = words << 3;
        }
        for (; i < len; i++) {
            seg.set(ValueLayout.JAVA_BYTE, off + i, at(seed, logical + i));
        }
    }

    /**
     * Finds the first byte that differs from the pattern.
     *
     * @param seg     the memory
     * @param off     the first byte to check
     * @param len     how many
     * @param seed    the expected pattern
     * @param logical the position of the first byte in the logical stream
     * @return the offset (relative to {@code off}) of the first wrong byte, or -1 when all match
     */
    static long mismatch(MemorySegment seg, long off, long len, long seed, long logical) {
        long i = 0;
        if ((logical & 7) == 0) {
            long words = len >>> 3;
            long k0 = logical >>> 3;
            for (long k = 0; k < words; k++) {
                if (seg.get(WORD, off + (k << 3)) != word(seed, k0 + k)) {
                    i = k << 3;
                    break;
                }
                i = (k + 1) << 3;
            }
        }
        for (; i < len; i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, off + i) != at(seed, logical + i)) {
                return i;
            }
        }
        return -1;
    }
}
