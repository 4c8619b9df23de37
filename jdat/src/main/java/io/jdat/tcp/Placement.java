package io.jdat.tcp;

import io.jdat.spi.IoVector;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ScatteringByteChannel;
import java.util.zip.CRC32C;

/**
 * Where the payload of the DDP segment being received goes: a contiguous piece of a registered segment (an
 * RDMA Write's target, checked by the core) or a position in an I/O vector (a posted receive, a Read's
 * sink). The receiver has already checked that the whole payload fits; this class only moves bytes, either
 * from the receive staging buffer or straight from the socket, and adds them to the CRC.
 *
 * <p>Receive path only; one instance per connection.
 */
final class Placement {
    private final SegmentViews views = new SegmentViews();
    private final ByteBuffer[] pair = new ByteBuffer[2];
    private IoVector vector;
    private MemorySegment segment;
    private long base;
    /** Bytes placed so far, from the start of the target. */
    private long position;

    /** Targets {@code segment} from {@code offset} on. */
    void contiguous(MemorySegment segment, long offset) {
        this.vector = null;
        this.segment = segment;
        this.base = offset;
        this.position = 0;
    }

    /** Targets {@code vector} from {@code offset} bytes into it on. */
    void vector(IoVector vector, long offset) {
        this.vector = vector;
        this.segment = null;
        this.base = 0;
        this.position = offset;
    }

    /** Copies {@code n} bytes from the staging buffer at {@code srcOffset}. */
    void copy(MemorySegment staging, long srcOffset, int n) {
        if (n == 0) {
            return;
        }
        if (vector == null) {
            MemorySegment.copy(staging, srcOffset, segment, base + position, n);
        } else {
            vector.scatter(position, staging, srcOffset, n);
        }
        position += n;
    }

    /**
     * Reads at most {@code max} bytes from {@code ch} straight into the target, adding them to {@code crc}
     * when it is not null. When the target's current piece takes all {@code max} bytes and {@code spill} is
     * not null, the same read (a scattering one) goes on into {@code spill}: the trailer and the next header
     * come with the payload's end, in one system call.
     *
     * @return bytes placed in the target (those in {@code spill} show in its position), or -1 at end of stream
     */
    int read(ScatteringByteChannel ch, int max, CRC32C crc, ByteBuffer spill) throws IOException {
        MemorySegment seg;
        long off;
        int len;
        if (vector == null) {
            seg = segment;
            off = base + position;
            len = max;
        } else {
            long skip = position;
            int i = 0;
            while (skip >= vector.length(i)) {
                skip -= vector.length(i);
                i++;
            }
            seg = vector.segment(i);
            off = vector.offset(i) + skip;
            len = (int) Math.min(max, vector.length(i) - skip);
        }
        ByteBuffer b = views.view(seg, off, len);
        int start = b.position();
        long n;
        if (spill != null && len == max) {
            pair[0] = b;
            pair[1] = spill;
            n = ch.read(pair);
            pair[0] = null;
            pair[1] = null;
        } else {
            n = ch.read(b);
        }
        if (n < 0) {
            return -1;
        }
        int placed = b.position() - start;
        if (placed > 0) {
            position += placed;
            if (crc != null) {
                b.limit(start + placed).position(start);
                crc.update(b);
            }
        }
        return placed;
    }

    /** Drops references to consumer memory. */
    void clear() {
        vector = null;
        segment = null;
        views.clear();
    }
}
