package io.jdat.spi;

import java.lang.foreign.MemorySegment;

/**
 * A validated I/O vector: the registered memory a posted DTO names, resolved by the core from LMR
 * triplets to (segment, offset, length) entries. Pre-allocated per queue slot and reused, so posting
 * allocates nothing. Written by the core before it hands the vector to a transport; read-only for the
 * transport.
 */
public class IoVector {
    // Entry 0 lives in fields of this object and the rest in arrays, so that a one-segment vector - the
    // common case - is one object and crosses between threads as one or two cache lines.
    private MemorySegment segment0;
    private long offset0;
    private long length0;
    private int key0;
    private final int[] keys;
    private final MemorySegment[] segments;
    private final long[] offsets;
    private final long[] lengths;
    private final int capacity;
    private int count;
    private long totalLength;

    /**
     * A vector with room for {@code capacity} entries.
     *
     * @param capacity the maximum number of segments
     */
    public IoVector(int capacity) {
        this.capacity = capacity;
        int rest = Math.max(capacity - 1, 0);
        segments = new MemorySegment[rest];
        offsets = new long[rest];
        lengths = new long[rest];
        keys = new int[rest];
    }

    /** {@return the number of entries} */
    public final int count() {
        return count;
    }

    /** {@return the sum of the entry lengths} */
    public final long totalLength() {
        return totalLength;
    }

    /**
     * The registered memory of entry {@code i}.
     *
     * @param i the entry index, from 0
     * @return the registered memory of entry {@code i}
     */
    public final MemorySegment segment(int i) {
        return i == 0 ? segment0 : segments[i - 1];
    }

    /**
     * The offset of entry {@code i} in {@link #segment(int)}.
     *
     * @param i the entry index, from 0
     * @return the offset of entry {@code i} in {@link #segment(int)}
     */
    public final long offset(int i) {
        return i == 0 ? offset0 : offsets[i - 1];
    }

    /**
     * The length of entry {@code i}.
     *
     * @param i the entry index, from 0
     * @return the length of entry {@code i}
     */
    public final long length(int i) {
        return i == 0 ? length0 : lengths[i - 1];
    }

    /**
     * The device's local key of entry {@code i} ({@link DeviceMemory.Registration#localKey()}); 0 on a
     * transport without {@link DeviceMemory}.
     *
     * @param i the entry's index
     * @return the local key
     */
    public final int key(int i) {
        return i == 0 ? key0 : keys[i - 1];
    }

    /** {@return the maximum number of entries} */
    public final int capacity() {
        return capacity;
    }

    /** Empties the vector (core only). */
    public final void reset() {
        segment0 = null;
        for (int i = 1; i < count; i++) {
            segments[i - 1] = null;
        }
        count = 0;
        totalLength = 0;
    }

    /**
     * Appends an entry without a device key (core only; the caller has checked bounds and capacity).
     *
     * @param segment the memory
     * @param offset the byte offset
     * @param length the length in bytes
     */
    public final void add(MemorySegment segment, long offset, long length) {
        add(segment, offset, length, 0);
    }

    /**
     * Appends an entry (core only; the caller has checked bounds and capacity).
     *
     * @param segment the memory
     * @param offset the byte offset
     * @param length the length in bytes
     * @param key the device's local key of the memory, 0 without {@link DeviceMemory}
     */
    public final void add(MemorySegment segment, long offset, long length, int key) {
        if (count == 0) {
            segment0 = segment;
            offset0 = offset;
            length0 = length;
            key0 = key;
        } else {
            segments[count - 1] = segment;
            offsets[count - 1] = offset;
            lengths[count - 1] = length;
            keys[count - 1] = key;
        }
        count++;
        totalLength += length;
    }

    /**
     * Copies {@code length} bytes from {@code src} into this vector, starting {@code vectorOffset} bytes
     * into the vector and filling entries in order (RCV-02, RDR-03).
     *
     * @param vectorOffset where in the vector the bytes go
     * @param src          the source memory
     * @param srcOffset    offset in {@code src}
     * @param length       bytes; the caller guarantees {@code vectorOffset + length <= totalLength()}
     */
    public final void scatter(long vectorOffset, MemorySegment src, long srcOffset, long length) {
        copy(vectorOffset, src, srcOffset, length, true);
    }

    /**
     * Copies {@code length} bytes of this vector, starting {@code vectorOffset} bytes into it, to one
     * contiguous region (a partial gather, the inverse of {@link #scatter}).
     *
     * @param vectorOffset where in the vector the bytes start
     * @param dst          the destination memory
     * @param dstOffset    offset in {@code dst}
     * @param length       bytes; the caller guarantees {@code vectorOffset + length <= totalLength()}
     */
    public final void gather(long vectorOffset, MemorySegment dst, long dstOffset, long length) {
        copy(vectorOffset, dst, dstOffset, length, false);
    }

    /**
     * The walk of {@link #scatter} and {@link #gather}: the entries from {@code vectorOffset} on, in order,
     * against one contiguous region, copied into the vector ({@code intoVector}) or out of it.
     */
    private void copy(long vectorOffset, MemorySegment region, long regionOffset, long length, boolean intoVector) {
        long skip = vectorOffset;
        for (int i = 0; i < count && length > 0; i++) {
            long len = length(i);
            if (skip >= len) {
                skip -= len;
                continue;
            }
            long n = Math.min(len - skip, length);
            if (intoVector) {
                MemorySegment.copy(region, regionOffset, segment(i), offset(i) + skip, n);
            } else {
                MemorySegment.copy(segment(i), offset(i) + skip, region, regionOffset, n);
            }
            regionOffset += n;
            length -= n;
            skip = 0;
        }
    }

    /**
     * Copies the whole of this vector, in order, into {@code dst} (a gather).
     *
     * @param dst       another vector with at least {@link #totalLength()} bytes
     * @param dstOffset where in {@code dst} the bytes go
     */
    public final void gatherInto(IoVector dst, long dstOffset) {
        for (int i = 0; i < count; i++) {
            long len = length(i);
            if (len > 0) {
                dst.scatter(dstOffset, segment(i), offset(i), len);
                dstOffset += len;
            }
        }
    }

    /**
     * Copies the whole of this vector into one contiguous region.
     *
     * @param dst       destination memory
     * @param dstOffset offset in {@code dst}
     */
    public final void gatherInto(MemorySegment dst, long dstOffset) {
        for (int i = 0; i < count; i++) {
            long len = length(i);
            if (len > 0) {
                MemorySegment.copy(segment(i), offset(i), dst, dstOffset, len);
                dstOffset += len;
            }
        }
    }
}
