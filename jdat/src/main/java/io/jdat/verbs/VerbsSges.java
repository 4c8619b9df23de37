package io.jdat.verbs;

import static io.jdat.verbs.VerbsLayouts.SGE;
import static io.jdat.verbs.VerbsLayouts.SGE_ADDR;
import static io.jdat.verbs.VerbsLayouts.SGE_LENGTH;
import static io.jdat.verbs.VerbsLayouts.SGE_LKEY;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.jdat.spi.IoVector;
import java.lang.foreign.MemorySegment;

/**
 * Writes a validated I/O vector as a {@code struct ibv_sge} array. Zero-length entries are left out: DAT lets them
 * name any context (the core does not resolve them), and a device reads an SGE length of 0 as 2 GiB on some NICs.
 * An RDMA Read's list is cut at the remote segment's length: the device reads as many bytes as the local list
 * holds, DAT reads the remote segment (the local vector may be longer).
 */
final class VerbsSges {
    private VerbsSges() {
    }

    /**
     * Fills the SGEs at {@code at} in {@code sges} from {@code v}, at most {@code max} of them and {@code limit} bytes.
     *
     * @return the SGEs written, or -1 when more than {@code max} would be needed
     */
    static int fill(MemorySegment sges, long at, IoVector v, int max, long limit) {
        int n = 0;
        long left = limit;
        for (int i = 0, count = v.count(); i < count && left > 0; i++) {
            long len = Math.min(v.length(i), left);
            if (len == 0) {
                continue;
            }
            if (n == max) {
                return -1;
            }
            long o = at + n * SGE.byteSize();
            sges.set(JAVA_LONG, o + SGE_ADDR, v.segment(i).address() + v.offset(i));
            sges.set(JAVA_INT, o + SGE_LENGTH, (int) len);
            sges.set(JAVA_INT, o + SGE_LKEY, v.key(i));
            left -= len;
            n++;
        }
        return n;
    }

    /**
     * The most bytes of a request that siw 6.1 may send as one short FPDU ({@code siw_try_1seg}: a payload of at
     * most {@code MAX_HDR_INLINE} bytes from one SGE, copied into the header buffer). Read responses of 31 bytes and
     * less that cross a page of the source were measured wrong, 51 and more right; 64 covers the gap.
     */
    static final int SIW_SHORT = 64;
    /** The page size {@link #splitShortPageCrossings} splits at: the smallest a Linux peer uses. */
    static final long PAGE = 4096;

    /**
     * On siw, splits each SGE of at most {@link #SIW_SHORT} bytes whose span starting at {@code start} (the remote
     * address of the first SGE's first byte, for an RDMA Read; -1: each SGE's own local address) crosses a
     * {@link #PAGE} boundary into two SGEs, one on either side. siw 6.1 copies a short payload that crosses a page
     * of its source wrongly ({@code siw_try_1seg} copies {@code bytes - (PAGE_SIZE - off)} bytes from the first page
     * where it means {@code PAGE_SIZE - off}, then the rest from the second page behind them: a byte from beyond
     * the first page, and the last byte lost; docs/verbs.md, "siw: short payloads across a page"). The responder
     * sends a Read's response from its transmit thread, which takes that path: a Read whose parts each stay within
     * a page of the responder's memory is right. A Send or Write posted through the doorbell's system call is
     * copied with {@code copy_from_user}, which is right, but one that siw's transmit thread sends takes the same
     * path; as two SGEs it takes siw's other path, which is right. The list at {@code at} has room for twice
     * {@code count} entries.
     *
     * @return the SGEs now in the list
     */
    static int splitShortPageCrossings(MemorySegment sges, long at, int count, long start) {
        long r = start;
        int splits = 0;
        for (int i = 0; i < count; i++) {
            long len = Integer.toUnsignedLong(sges.get(JAVA_INT, at + i * SGE.byteSize() + SGE_LENGTH));
            long from = start < 0 ? sges.get(JAVA_LONG, at + i * SGE.byteSize() + SGE_ADDR) : r;
            if (crosses(from, len)) {
                splits++;
            }
            r += len;
        }
        if (splits == 0) {
            return count;
        }
        // backwards, so that no entry is overwritten before it is read (each moves to the same index or later)
        int w = count + splits;
        for (int i = count - 1; i >= 0; i--) {
            long o = at + i * SGE.byteSize();
            long addr = sges.get(JAVA_LONG, o + SGE_ADDR);
            long len = Integer.toUnsignedLong(sges.get(JAVA_INT, o + SGE_LENGTH));
            int key = sges.get(JAVA_INT, o + SGE_LKEY);
            r -= len;
            long from = start < 0 ? addr : r;
            if (crosses(from, len)) {
                long first = PAGE - (from & (PAGE - 1));
                put(sges, at, --w, addr + first, len - first, key);
                put(sges, at, --w, addr, first, key);
            } else {
                put(sges, at, --w, addr, len, key);
            }
        }
        return count + splits;
    }

    private static boolean crosses(long from, long len) {
        return len <= SIW_SHORT && (from & (PAGE - 1)) + len > PAGE;
    }

    private static void put(MemorySegment sges, long at, int i, long addr, long len, int key) {
        long o = at + i * SGE.byteSize();
        sges.set(JAVA_LONG, o + SGE_ADDR, addr);
        sges.set(JAVA_INT, o + SGE_LENGTH, (int) len);
        sges.set(JAVA_INT, o + SGE_LKEY, key);
    }
}
