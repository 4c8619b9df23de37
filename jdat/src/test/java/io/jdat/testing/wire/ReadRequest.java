package io.jdat.testing.wire;

/**
 * The 28-byte RDMAP header of an RDMA Read Request (RFC 5040 section 4.4), which follows the untagged DDP
 * header.
 *
 * @param sinkStag the Data Sink STag: where the Read Responses are placed
 * @param sinkTo the Data Sink Tagged Offset
 * @param size the RDMA Read Message Size in bytes
 * @param sourceStag the Data Source STag: what the responder reads
 * @param sourceTo the Data Source Tagged Offset
 */
public record ReadRequest(int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
    /** The length of the header on the wire. */
    public static final int LENGTH = 28;

    /**
     * A one-line summary with the STags and offsets in hexadecimal.
     *
     * @return the summary
     */
    @Override
    public String toString() {
        return String.format("ReadRequest[sink 0x%08x/0x%x, size %d, source 0x%08x/0x%x]", sinkStag, sinkTo,
                Integer.toUnsignedLong(size), sourceStag, sourceTo);
    }
}
