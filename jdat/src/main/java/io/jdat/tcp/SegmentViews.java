package io.jdat.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * {@link ByteBuffer} views of registered segments for socket I/O, cached by segment identity so that
 * moving bytes between a socket and registered memory allocates nothing once warmed up. The core hands
 * transports the region's own segment object, so a region keeps hitting its cache entry.
 *
 * <p>Each cached segment has {@value #COPIES} views of its own (duplicates of one buffer), so one gathering
 * write can carry up to that many pieces of the same segment at different positions: {@code view(..., k)}
 * returns copy {@code k}. A view is valid until the next call with the same copy number.
 *
 * <p>One instance per direction of one connection, used by one thread at a time (under that direction's
 * lock). A view keeps the segment's scope alive only while an I/O operation runs on it; if the consumer
 * closes the arena meanwhile, the I/O fails with {@link IllegalStateException}, which the connection
 * reports as a transport error.
 */
final class SegmentViews {
    /** Views per cached segment: the pieces of one segment one batch may carry. */
    static final int COPIES = 16;
    private static final int ENTRIES = 8;
    private final MemorySegment[] keys = new MemorySegment[ENTRIES];
    private final ByteBuffer[][] views = new ByteBuffer[ENTRIES][];
    private int next;

    /** Copy 0 of the view of {@code segment}, set to {@code length} bytes at {@code offset}. */
    ByteBuffer view(MemorySegment segment, long offset, int length) {
        return view(segment, offset, length, 0);
    }

    /**
     * Copy {@code copy} (below {@link #COPIES}) of the view of {@code segment}: position {@code offset},
     * limit {@code offset + length} (or a fresh buffer of exactly that range for segments over 2 GiB).
     */
    ByteBuffer view(MemorySegment segment, long offset, int length, int copy) {
        for (int i = 0; i < ENTRIES; i++) {
            if (keys[i] == segment) {
                return range(views[i][copy], offset, length);
            }
        }
        if (segment.byteSize() > Integer.MAX_VALUE) {
            return freshView(segment, offset, length);
        }
        int i = next;
        next = (next + 1) & (ENTRIES - 1);
        ByteBuffer base = segment.asByteBuffer();
        ByteBuffer[] copies = new ByteBuffer[COPIES];
        copies[0] = base;
        for (int k = 1; k < COPIES; k++) {
            copies[k] = base.duplicate();
        }
        keys[i] = segment;
        views[i] = copies;
        return range(copies[copy], offset, length);
    }

    /** A new buffer of exactly {@code length} bytes at {@code offset}: allocates, for the rare cases. */
    static ByteBuffer freshView(MemorySegment segment, long offset, int length) {
        return segment.asSlice(offset, length).asByteBuffer();
    }

    /** Forgets every segment, so no view keeps a reference to consumer memory. */
    void clear() {
        for (int i = 0; i < ENTRIES; i++) {
            keys[i] = null;
            views[i] = null;
        }
    }

    private static ByteBuffer range(ByteBuffer b, long offset, int length) {
        b.clear();
        b.limit((int) offset + length);
        b.position((int) offset);
        return b;
    }
}
