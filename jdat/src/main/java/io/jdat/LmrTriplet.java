package io.jdat;

/**
 * {@code DAT_LMR_TRIPLET}: one segment of a local I/O vector, named by the LMR context and the
 * virtual address inside that LMR's registered range.
 *
 * <p>Triplets are immutable; a consumer builds its I/O vectors once and reuses them for every post,
 * so posting allocates nothing. A {@code segmentLength} of 0 makes the other two fields irrelevant.
 *
 * @param lmrContext     the {@code lmr_context} returned by {@code dat_lmr_create} (32 bits)
 * @param virtualAddress an absolute address inside the LMR ({@code registeredAddress() + offset})
 * @param segmentLength  the number of bytes
 */
public record LmrTriplet(int lmrContext, long virtualAddress, long segmentLength) {
}
