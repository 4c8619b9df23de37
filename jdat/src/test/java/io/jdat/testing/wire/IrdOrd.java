package io.jdat.testing.wire;

/**
 * The RFC 6581 control block at the start of the private data of an enhanced (revision 2) MPA Request or
 * Reply: two big-endian 16-bit words, {@code |P|S| IRD |} then {@code |W|R| ORD |}.
 *
 * @param ird the inbound RDMA Read queue depth, 0 to 0x3FFF
 * @param ord the outbound RDMA Read queue depth, 0 to 0x3FFF
 * @param peerToPeer P (0x8000 of the IRD word): peer-to-peer mode
 * @param zeroLengthSendRtr S (0x4000 of the IRD word): a zero-length Send is acceptable as the RTR message
 * @param writeRtr W (0x8000 of the ORD word): a zero-length RDMA Write is acceptable as the RTR message
 * @param readRtr R (0x4000 of the ORD word): a zero-length RDMA Read Request is acceptable as the RTR message
 */
public record IrdOrd(int ird, int ord, boolean peerToPeer, boolean zeroLengthSendRtr, boolean writeRtr,
        boolean readRtr) {
    /** The length of the block on the wire. */
    public static final int LENGTH = 4;

    /**
     * Decodes the block.
     *
     * @param bytes the bytes holding it
     * @param offset where it starts
     * @return the decoded block
     * @throws IndexOutOfBoundsException if fewer than 4 bytes follow {@code offset}
     */
    public static IrdOrd parse(byte[] bytes, int offset) {
        if (offset < 0 || offset + LENGTH > bytes.length) {
            throw new IndexOutOfBoundsException("IRD/ORD block needs 4 bytes at " + offset + " of " + bytes.length);
        }
        int irdWord = (bytes[offset] & 0xFF) << 8 | bytes[offset + 1] & 0xFF;
        int ordWord = (bytes[offset + 2] & 0xFF) << 8 | bytes[offset + 3] & 0xFF;
        return new IrdOrd(irdWord & 0x3FFF, ordWord & 0x3FFF, (irdWord & 0x8000) != 0, (irdWord & 0x4000) != 0,
                (ordWord & 0x8000) != 0, (ordWord & 0x4000) != 0);
    }
}
