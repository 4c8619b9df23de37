package io.jdat;

/**
 * {@code DAT_SRQ_ATTR}: what {@link SharedReceiveQueue#create} is asked for (API.md §4.8).
 *
 * @param maxRecvDtos  max_recv_dtos: the queue depth (&gt; 0); the SRQ gets at least this many entries
 * @param maxRecvIov   max_recv_iov: segments per posted buffer (&ge; 0); the SRQ takes at least this many
 * @param lowWatermark low_watermark: 0..maxRecvDtos; {@link Dat#SRQ_LW_DEFAULT} (0) as the consumer must pass
 *                     (SRQ-17). The value is stored but arms nothing: only {@link SharedReceiveQueue#setLw} arms
 *                     the event (AMB-26)
 */
public record SrqAttr(int maxRecvDtos, int maxRecvIov, int lowWatermark) {
}
