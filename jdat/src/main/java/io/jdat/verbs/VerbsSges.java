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
}
