package io.jdat.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * {@link ByteBuffer} views of registered segments for socket I/O, cached by segment identity so that
 * moving bytes between a socket and registered memory allocates nothing once warmed up. The core hands
 * transports the region's own segment object, so a region keeps hitting its cache entry.
 *
 * <p>One instance per direction of one connection, used by one thread at a time (under that direction's
 * lock). A view returned by {@link #view} is valid until the next call: callers that need two at once
 * (two pieces of one segment in one gathering write) get the second from {@link #freshView}.
 *
 * <p>A view keeps the segment's scope alive only while an I/O operation runs on it; if the consumer closes
 * the arena meanwhile, the I/O fails with {@link IllegalStateException}, which the connection reports as a
 * transport error.
 */
final class SegmentViews {
    private static final int ENTRIES = 8;
    private final MemorySegment[] keys = new MemorySegment[ENTRIES];
    private final ByteBuffer[] views = new ByteBuffer[ENTRIES];
    private int next;

    /**
     * A view of {@code length} bytes at {@code offset} of {@code segment}: position {@code offset}, limit
     * {@code offset + length} (or a fresh buffer of exactly that range for segments over 2 GiB).
     */
    ByteBuffer view(MemorySegment segment, long offset, int length) {
        for (int i = 0; i < ENTRIES; i++) {
            if (keys[i] == segment) {
                return range(views[i], offset, length);
            }
        }
        if (segment.byteSize() > Integer.MAX_VALUE) {
            return freshView(segment, offset, length);
        }
        int i = next;
        next = (next + 1) & (ENTRIES - 1);
        keys[i] = segment;
        views[i] = segment.asByteBuffer();
        return range(views[i], offset, length);
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
