package io.jdat;

/**
 * {@code DAT_SRQ_PARAM} ({@code dat_srq_query}, API.md §4.8), with the {@code DAT_SRQ_PARAM_MASK} bits.
 * jdat fills every field whatever the mask (SRQ-01).
 *
 * @param iaHandle            ia_handle
 * @param srqState            srq_state
 * @param pzHandle            pz_handle
 * @param maxRecvDtos         max_recv_dtos: the actual queue depth
 * @param maxRecvIov          max_recv_iov: the actual segments per buffer
 * @param lowWatermark        low_watermark
 * @param availableDtoCount   available_dto_count: buffers on the SRQ that EPs can take (SRQ-03), or
 *                            {@link Dat#VALUE_UNKNOWN}
 * @param outstandingDtoCount outstanding_dto_count: occupied entries, posted and not yet reaped: on the SRQ,
 *                            held by EPs, or completed and not yet dequeued (SRQ-04), or {@link Dat#VALUE_UNKNOWN}
 */
public record SrqParam(InterfaceAdapter iaHandle, SrqState srqState, ProtectionZone pzHandle, int maxRecvDtos,
        int maxRecvIov, int lowWatermark, int availableDtoCount, int outstandingDtoCount) {
    /** {@code DAT_SRQ_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x001L;
    /** {@code DAT_SRQ_FIELD_SRQ_STATE}. */
    public static final long FIELD_SRQ_STATE = 0x002L;
    /** {@code DAT_SRQ_FIELD_PZ_HANDLE}. */
    public static final long FIELD_PZ_HANDLE = 0x004L;
    /** {@code DAT_SRQ_FIELD_MAX_RECV_DTO}. */
    public static final long FIELD_MAX_RECV_DTO = 0x008L;
    /** {@code DAT_SRQ_FIELD_MAX_RECV_IOV}. */
    public static final long FIELD_MAX_RECV_IOV = 0x010L;
    /** {@code DAT_SRQ_FIELD_LOW_WATERMARK}. */
    public static final long FIELD_LOW_WATERMARK = 0x020L;
    /** {@code DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT}. */
    public static final long FIELD_AVAILABLE_DTO_COUNT = 0x040L;
    /** {@code DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT}. */
    public static final long FIELD_OUTSTANDING_DTO_COUNT = 0x080L;
    /** {@code DAT_SRQ_FIELD_ALL}. */
    public static final long FIELD_ALL = 0x0FFL;
}
