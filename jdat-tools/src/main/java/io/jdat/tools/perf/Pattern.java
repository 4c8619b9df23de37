package io.jdat.tools.perf;

import io.jdat.tools.cli.ToolFailure;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The test payload: 64-bit words that depend on a seed (a sequence number or a slot number) and on their
 * position, so a lost, stale, shifted or torn transfer is detected. Offsets and lengths are multiples of 8
 * and the memory is 8-byte aligned.
 */
final class Pattern {
    private Pattern() {
    }

    /**
     * The word at index {@code k} of the pattern {@code seed}.
     *
     * @param seed the pattern's seed
     * @param k    the word index
     * @return the word
     */
    static long word(long seed, long k) {
        return (seed + 1) * 0x9E3779B97F4A7C15L + k * 0xBF58476D1CE4E5B9L;
    }

    /**
     * Writes the pattern into {@code len} bytes at {@code off}.
     *
     * @param seg  the memory
     * @param off  the start
     * @param len  the length
     * @param seed the pattern's seed
     */
    static void fill(MemorySegment seg, long off, long len, long seed) {
        long words = len >>> 3;
        for (long k = 0; k < words; k++) {
            seg.set(ValueLayout.JAVA_LONG, off + (k << 3), word(seed, k));
        }
    }

    /**
     * Finds the first word that differs from the pattern.
     *
     * @param seg  the memory
     * @param off  the start
     * @param len  the length
     * @param seed the expected pattern's seed
     * @return the byte offset (relative to {@code off}) of the first wrong word, or -1 when all match
     */
    static long mismatch(MemorySegment seg, long off, long len, long seed) {
        long words = len >>> 3;
        for (long k = 0; k < words; k++) {
            if (seg.get(ValueLayout.JAVA_LONG, off + (k << 3)) != word(seed, k)) {
                return k << 3;
            }
        }
        return -1;
    }

    /**
     * Checks the pattern and fails with a readable message when it differs.
     *
     * @param seg  the memory
     * @param off  the start
     * @param len  the length
     * @param seed the expected pattern's seed
     * @param what the transfer, for the message (e.g. {@code "client: send/recv ping-pong 64 B echo"})
     * @throws ToolFailure on a mismatch
     */
    static void verify(MemorySegment seg, long off, long len, long seed, String what) {
        long at = mismatch(seg, off, len, seed);
        if (at >= 0) {
            throw mismatchFailure(seg, off, at, seed, what);
        }
    }

    /**
     * The failure for a wrong word.
     *
     * @param seg  the memory
     * @param off  the start of the checked range
     * @param at   the offset of the wrong word in the range
     * @param seed the expected seed
     * @param what the transfer
     * @return the failure to throw
     */
    static ToolFailure mismatchFailure(MemorySegment seg, long off, long at, long seed, String what) {
        long got = seg.get(ValueLayout.JAVA_LONG, off + at);
        return new ToolFailure("data verification failed: " + what + ", pattern #" + seed + ": byte " + at + " holds 0x"
                + Long.toHexString(got) + ", expected 0x" + Long.toHexString(word(seed, at >>> 3)));
    }

    /**
     * Checks the pattern of memory that an RDMA Write may still be placing: DAT orders RDMA Write data only
     * up to its completion, so after the last word arrived the other words may lag. Re-checks for up to
     * {@code graceNanos} before failing.
     *
     * @param seg        the memory
     * @param off        the start
     * @param len        the length
     * @param seed       the expected pattern's seed
     * @param graceNanos how long to wait for a late word
     * @param what       the transfer, for the message
     * @throws ToolFailure when the pattern is still wrong after the grace time
     */
    static void verifyEventually(MemorySegment seg, long off, long len, long seed, long graceNanos, String what) {
        long at = mismatch(seg, off, len, seed);
        if (at < 0) {
            return;
        }
        long deadline = System.nanoTime() + graceNanos;
        while (at >= 0 && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
            java.lang.invoke.VarHandle.acquireFence();
            at = mismatch(seg, off, len, seed);
        }
        if (at >= 0) {
            throw mismatchFailure(seg, off, at, seed, what);
        }
    }
}
