package io.jdat;

import java.net.SocketAddress;
import java.util.List;

/**
 * {@code DAT_IA_ATTR}: the attributes of an open Interface Adapter ({@code dat_ia_query}), with the
 * uDAPL 1.2 mask bits ({@code DAT_IA_ATTR_MASK}). jdat always fills every field.
 *
 * @param adapterName                    adapter_name
 * @param vendorName                     vendor_name
 * @param hardwareVersionMajor           hardware_version_major
 * @param hardwareVersionMinor           hardware_version_minor
 * @param firmwareVersionMajor           firmware_version_major
 * @param firmwareVersionMinor           firmware_version_minor
 * @param iaAddress                      ia_address_ptr: this IA's address
 * @param maxEps                         max_eps
 * @param maxDtoPerEp                    max_dto_per_ep
 * @param maxRdmaReadPerEpIn             max_rdma_read_per_ep_in
 * @param maxRdmaReadPerEpOut            max_rdma_read_per_ep_out
 * @param maxEvds                        max_evds
 * @param maxEvdQlen                     max_evd_qlen
 * @param maxIovSegmentsPerDto           max_iov_segments_per_dto
 * @param maxLmrs                        max_lmrs
 * @param maxLmrBlockSize                max_lmr_block_size
 * @param maxLmrVirtualAddress           max_lmr_virtual_address
 * @param maxPzs                         max_pzs
 * @param maxMessageSize                 max_message_size
 * @param maxRdmaSize                    max_rdma_size
 * @param maxRmrs                        max_rmrs
 * @param maxRmrTargetAddress            max_rmr_target_address
 * @param maxSrqs                        max_srqs (1.2)
 * @param maxEpPerSrq                    max_ep_per_srq (1.2)
 * @param maxRecvPerSrq                  max_recv_per_srq (1.2)
 * @param maxIovSegmentsPerRdmaRead      max_iov_segments_per_rdma_read (1.2)
 * @param maxIovSegmentsPerRdmaWrite     max_iov_segments_per_rdma_write (1.2)
 * @param maxRdmaReadIn                  max_rdma_read_in (1.2)
 * @param maxRdmaReadOut                 max_rdma_read_out (1.2)
 * @param maxRdmaReadPerEpInGuaranteed   max_rdma_read_per_ep_in_guaranteed (1.2)
 * @param maxRdmaReadPerEpOutGuaranteed  max_rdma_read_per_ep_out_guaranteed (1.2)
 * @param transportAttr                  transport_attr (num_transport_attr is its size)
 * @param vendorAttr                     vendor_attr (num_vendor_attr is its size)
 */
public record IaAttr(String adapterName, String vendorName, int hardwareVersionMajor, int hardwareVersionMinor,
        int firmwareVersionMajor, int firmwareVersionMinor, SocketAddress iaAddress, int maxEps, int maxDtoPerEp,
        int maxRdmaReadPerEpIn, int maxRdmaReadPerEpOut, int maxEvds, int maxEvdQlen, int maxIovSegmentsPerDto,
        int maxLmrs, long maxLmrBlockSize, long maxLmrVirtualAddress, int maxPzs, long maxMessageSize,
        long maxRdmaSize, int maxRmrs, long maxRmrTargetAddress, int maxSrqs, int maxEpPerSrq, int maxRecvPerSrq,
        int maxIovSegmentsPerRdmaRead, int maxIovSegmentsPerRdmaWrite, int maxRdmaReadIn, int maxRdmaReadOut,
        boolean maxRdmaReadPerEpInGuaranteed, boolean maxRdmaReadPerEpOutGuaranteed, List<NamedAttr> transportAttr,
        List<NamedAttr> vendorAttr) {
    /** {@code DAT_IA_FIELD_NONE}. */
    public static final long FIELD_NONE = 0L;
    /** {@code DAT_IA_FIELD_IA_ADAPTER_NAME}. */
    public static final long FIELD_IA_ADAPTER_NAME = 0x1L;
    /** {@code DAT_IA_FIELD_IA_VENDOR_NAME}. */
    public static final long FIELD_IA_VENDOR_NAME = 0x2L;
    /** {@code DAT_IA_FIELD_IA_ADDRESS_PTR}. */
    public static final long FIELD_IA_ADDRESS_PTR = 0x40L;
    /** {@code DAT_IA_FIELD_IA_MAX_EPS}. */
    public static final long FIELD_IA_MAX_EPS = 0x80L;
    /** {@code DAT_IA_FIELD_IA_MAX_EVD_QLEN}. */
    public static final long FIELD_IA_MAX_EVD_QLEN = 0x1000L;
    /** {@code DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE}. */
    public static final long FIELD_IA_MAX_MESSAGE_SIZE = 0x40000L;
    /** {@code DAT_IA_FIELD_IA_MAX_RDMA_SIZE}. */
    public static final long FIELD_IA_MAX_RDMA_SIZE = 0x80000L;
    /** {@code DAT_IA_FIELD_ALL} (1.2). */
    public static final long FIELD_ALL = 0x7FFFFFFFFL;

    /** Immutable copies of the attribute lists. */
    public IaAttr {
        transportAttr = List.copyOf(transportAttr);
        vendorAttr = List.copyOf(vendorAttr);
    }
}
