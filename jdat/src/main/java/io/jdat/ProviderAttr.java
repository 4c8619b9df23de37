package io.jdat;

import java.util.List;

/**
 * {@code DAT_PROVIDER_ATTR}: the attributes of the provider behind an IA ({@code dat_ia_query}),
 * with the uDAPL 1.2 mask bits ({@code DAT_PROVIDER_ATTR_MASK}). jdat always fills every field.
 *
 * @param providerName                 provider_name
 * @param providerVersionMajor         provider_version_major
 * @param providerVersionMinor         provider_version_minor
 * @param daplVersionMajor             dapl_version_major
 * @param daplVersionMinor             dapl_version_minor
 * @param lmrMemTypesSupported         lmr_mem_types_supported: bit {@code 1 << type} per {@link MemType}
 *                                     (C uses the enum values as bits; VIRTUAL is 0, so jdat reports a set)
 * @param iovOwnershipOnReturn         iov_ownership_on_return
 * @param datQosSupported              dat_qos_supported ({@link Qos} bits)
 * @param completionFlagsSupported     completion_flags_supported ({@link CompletionFlags} bits)
 * @param isThreadSafe                 is_thread_safe
 * @param maxPrivateDataSize           max_private_data_size (at least 64)
 * @param supportsMultipath            supports_multipath
 * @param epCreator                    ep_creator
 * @param pzSupport                    pz_support
 * @param optimalBufferAlignment       optimal_buffer_alignment (divides 256)
 * @param evdStreamMergingSupported    evd_stream_merging_supported [6][6], index order software, CR, DTO,
 *                                     connection, RMR bind, async
 * @param srqSupported                 srq_supported (1.2)
 * @param srqWatermarksSupported       srq_watermarks_supported (1.2): {@code SRQ_WATERMARK_*} bits
 * @param srqEpPzDifferenceSupported   srq_ep_pz_difference_supported (1.2)
 * @param srqInfoSupported             srq_info_supported (1.2): {@code SRQ_INFO_*} bits
 * @param epRecvInfoSupported          ep_recv_info_supported (1.2): {@code EP_RECV_INFO_*} bits
 * @param lmrSyncReq                   lmr_sync_req (1.2)
 * @param dtoAsyncReturnGuaranteed     dto_async_return_guaranteed (1.2)
 * @param rdmaWriteForRdmaReadReq      rdma_write_for_rdma_read_req (1.2)
 * @param providerSpecificAttr         provider_specific_attr (its count is the list size)
 */
public record ProviderAttr(String providerName, int providerVersionMajor, int providerVersionMinor,
        int daplVersionMajor, int daplVersionMinor, int lmrMemTypesSupported, IovOwnership iovOwnershipOnReturn,
        int datQosSupported, int completionFlagsSupported, boolean isThreadSafe, int maxPrivateDataSize,
        boolean supportsMultipath, EpCreatorForPsp epCreator, PzSupport pzSupport, int optimalBufferAlignment,
        boolean[][] evdStreamMergingSupported, boolean srqSupported, int srqWatermarksSupported,
        boolean srqEpPzDifferenceSupported, int srqInfoSupported, int epRecvInfoSupported, boolean lmrSyncReq,
        boolean dtoAsyncReturnGuaranteed, boolean rdmaWriteForRdmaReadReq, List<NamedAttr> providerSpecificAttr) {
    /** {@code DAT_PROVIDER_FIELD_NONE}. */
    public static final long FIELD_NONE = 0L;
    /** {@code DAT_PROVIDER_FIELD_PROVIDER_NAME}. */
    public static final long FIELD_PROVIDER_NAME = 0x1L;
    /** {@code DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE}. */
    public static final long FIELD_MAX_PRIVATE_DATA_SIZE = 0x400L;
    /** {@code DAT_PROVIDER_FIELD_ALL} (1.2). */
    public static final long FIELD_ALL = 0x3FFFFFFL;

    // The 1.2 headers type srq_watermarks_supported, srq_info_supported and ep_recv_info_supported as
    // DAT_COUNT without defining values; jdat uses the bit encoding of the illumos (Sun) uDAPL 1.2 provider.

    /** {@code srq_watermarks_supported} bit: the SRQ low watermark ({@code dat_srq_set_lw}). */
    public static final int SRQ_WATERMARK_LOW = 0x001;
    /** {@code srq_watermarks_supported} bit: the EP soft high watermark ({@code dat_ep_set_watermark}). */
    public static final int SRQ_WATERMARK_SOFT_HIGH = 0x010;
    /** {@code srq_watermarks_supported} bit: the EP hard high watermark ({@code dat_ep_set_watermark}). */
    public static final int SRQ_WATERMARK_HARD_HIGH = 0x100;
    /** {@code srq_info_supported} bit: {@code dat_srq_query} reports available_dto_count. */
    public static final int SRQ_INFO_AVAILABLE_DTO_COUNT = 0x01;
    /** {@code srq_info_supported} bit: {@code dat_srq_query} reports outstanding_dto_count. */
    public static final int SRQ_INFO_OUTSTANDING_DTO_COUNT = 0x10;
    /** {@code ep_recv_info_supported} bit: {@code dat_ep_recv_query} reports nbufs_allocated. */
    public static final int EP_RECV_INFO_NBUFS_ALLOCATED = 0x01;
    /** {@code ep_recv_info_supported} bit: {@code dat_ep_recv_query} reports bufs_alloc_span. */
    public static final int EP_RECV_INFO_BUFS_ALLOC_SPAN = 0x10;

    /** Immutable copy of the attribute list. */
    public ProviderAttr {
        providerSpecificAttr = List.copyOf(providerSpecificAttr);
    }

    /**
     * True when {@code dat_lmr_create} accepts this {@link MemType}.
     *
     * @param memType a {@link MemType} value
     * @return true when {@code dat_lmr_create} accepts this {@link MemType}
     */
    public boolean supportsMemType(int memType) {
        return (lmrMemTypesSupported & (1 << memType)) != 0;
    }
}
