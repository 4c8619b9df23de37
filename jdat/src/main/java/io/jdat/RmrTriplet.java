package io.jdat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code DAT_RMR_TRIPLET}: a range of the peer's memory, named by a 32-bit remote context (an LMR's
 * {@code rmr_context} or a bound RMR's context; an iWARP STag on the wire) and a target address.
 *
 * <h2>Exchanging triplets</h2>
 * A consumer tells its peer where it may RDMA by sending it a triplet - in connection private data, in a
 * Send, in a file. {@link #encode} and {@link #decode} give every jdat program the same
 * {@value #BYTES}-byte, big-endian (network order) encoding, the one DAPL's {@code dtest} sends
 * ({@code DAT_RMR_TRIPLET} of DAT 2.0, so a jdat program and a C uDAPL program can exchange them):
 *
 * <pre>
 * offset  size  field
 *      0     8  target address    (virtual_address, unsigned)
 *      8     4  segment length    (segment_length, unsigned, at most 2^32 - 1)
 *     12     4  rmr_context
 * </pre>
 *
 * <pre>{@code
 * lmr.remoteTriplet(0, size).encode(message, 0);      // the side that registered the memory
 * RmrTriplet peer = RmrTriplet.decode(received, 0);    // the side that will RDMA into it
 * ep.postRdmaRead(1, local, cookie, peer, CompletionFlags.DEFAULT);
 * }</pre>
 *
 * Both check their bounds and throw {@link DatException} rather than read or write outside the segment; a
 * decoded triplet is the peer's claim and is checked again by the peer's provider when it is used.
 *
 * @param rmrContext    the remote context the peer handed over
 * @param targetAddress an absolute address inside the peer's registered range
 * @param segmentLength the number of bytes
 */
public record RmrTriplet(int rmrContext, long targetAddress, long segmentLength) {
    /** The size of an encoded triplet: 16 bytes. */
    public static final int BYTES = 16;

    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Writes this triplet as {@value #BYTES} big-endian bytes (address, length, context) at {@code offset} of
     * {@code segment}.
     *
     * @param segment where to write; writable
     * @param offset  the byte offset of the first byte
     * @return {@code offset + BYTES}, where a following field starts
     * @throws DatException {@code DAT_LENGTH_ERROR} when the segment has fewer than {@value #BYTES} bytes at
     *         {@code offset} (or {@code offset} is negative); {@code DAT_INVALID_PARAMETER} with
     *         {@code DAT_INVALID_ARG1} for a {@code null} or read-only segment, and when
     *         {@link #segmentLength()} does not fit the 32-bit length field
     */
    public long encode(MemorySegment segment, long offset) {
        check(segment, offset);
        if (segment.isReadOnly()) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "RmrTriplet.encode: read-only segment");
        }
        if (segmentLength < 0 || segmentLength > 0xFFFF_FFFFL) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "RmrTriplet.encode: segment length " + segmentLength + " does not fit the 32-bit field");
        }
        segment.set(BE64, offset, targetAddress);
        segment.set(BE32, offset + 8, (int) segmentLength);
        segment.set(BE32, offset + 12, rmrContext);
        return offset + BYTES;
    }

    /**
     * Reads a triplet that {@link #encode} (or a C {@code DAT_RMR_TRIPLET} in network order) wrote at
     * {@code offset} of {@code segment}. The bytes are the peer's: nothing is trusted beyond their bounds.
     *
     * @param segment the received bytes
     * @param offset  the byte offset of the first byte
     * @return the triplet; its length is 0 to 2<sup>32</sup> - 1
     * @throws DatException {@code DAT_LENGTH_ERROR} when the segment has fewer than {@value #BYTES} bytes at
     *         {@code offset} (or {@code offset} is negative); {@code DAT_INVALID_PARAMETER} with
     *         {@code DAT_INVALID_ARG1} for a {@code null} segment
     */
    public static RmrTriplet decode(MemorySegment segment, long offset) {
        check(segment, offset);
        return new RmrTriplet(segment.get(BE32, offset + 12), segment.get(BE64, offset),
                Integer.toUnsignedLong(segment.get(BE32, offset + 8)));
    }

    private static void check(MemorySegment segment, long offset) {
        if (segment == null) {
            throw new DatException(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "RmrTriplet: null segment");
        }
        if (offset < 0 || offset > segment.byteSize() - BYTES) {
            throw new DatException(DatReturnType.LENGTH_ERROR,
                    "RmrTriplet: " + BYTES + " bytes at offset " + offset + " do not fit a segment of "
                            + segment.byteSize() + " bytes");
        }
    }
}
