package io.jdat;

/**
 * {@code DAT_RMR_TRIPLET}: a range of the peer's memory, named by a 32-bit remote context (an LMR's
 * {@code rmr_context} or a bound RMR's context; an iWARP STag on the wire) and a target address.
 *
 * @param rmrContext    the remote context the peer handed over
 * @param targetAddress an absolute address inside the peer's registered range
 * @param segmentLength the number of bytes
 */
public record RmrTriplet(int rmrContext, long targetAddress, long segmentLength) {
}
