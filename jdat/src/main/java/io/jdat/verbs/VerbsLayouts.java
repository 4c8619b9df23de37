package io.jdat.verbs;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The C structs of rdma-core's stable public ABI that jdat reads or writes, for LP64 Linux (x86-64, aarch64).
 * Each layout follows the struct of the same name in rdma-core's {@code libibverbs/verbs.h} or
 * {@code librdmacm/rdma_cma.h} (checked against rdma-core master of 2026-08, commit 691953d; these structs have
 * not changed layout since rdma-core v13 / libibverbs 1.2, they are ABI). Only fields jdat uses are named;
 * the rest is padding of the header's size. {@code VerbsLayoutsTest} pins every size and offset.
 */
final class VerbsLayouts {
    private VerbsLayouts() {
    }

    /** {@code struct ibv_sge} (verbs.h): addr, length, lkey. 16 bytes. */
    static final StructLayout SGE = structLayout(JAVA_LONG.withName("addr"), JAVA_INT.withName("length"),
            JAVA_INT.withName("lkey"));

    /**
     * {@code struct ibv_mw_bind_info} (verbs.h): mr, addr, length, mw_access_flags. 32 bytes. The part of a window
     * bind that names the region: the {@code struct ibv_mr} the window is bound into, the range, the access.
     */
    static final StructLayout MW_BIND_INFO = structLayout(ADDRESS.withName("mr"), JAVA_LONG.withName("addr"),
            JAVA_LONG.withName("length"), JAVA_INT.withName("mw_access_flags"), paddingLayout(4));

    /** {@code struct ibv_mw_bind} (verbs.h): wr_id, send_flags, bind_info. 48 bytes: ibv_bind_mw's argument. */
    static final StructLayout MW_BIND = structLayout(JAVA_LONG.withName("wr_id"), JAVA_INT.withName("send_flags"),
            paddingLayout(4), MW_BIND_INFO.withName("bind_info"));

    /** {@code struct ibv_mw} (verbs.h): context, pd, rkey, handle, type. 32 bytes. */
    static final StructLayout MW = structLayout(ADDRESS.withName("context"), ADDRESS.withName("pd"),
            JAVA_INT.withName("rkey"), JAVA_INT.withName("handle"), JAVA_INT.withName("type"), paddingLayout(4));

    /**
     * The {@code bind_mw} member of {@code struct ibv_send_wr}'s last union (verbs.h): mw, rkey, bind_info (a type-2
     * window bind posted as {@code IBV_WR_BIND_MW}). 48 bytes, the size of the union.
     */
    static final StructLayout SEND_WR_BIND_MW = structLayout(ADDRESS.withName("mw"), JAVA_INT.withName("rkey"),
            paddingLayout(4), MW_BIND_INFO.withName("bind_info"));

    /**
     * {@code struct ibv_send_wr} (verbs.h): wr_id, next, sg_list, num_sge, opcode, send_flags, the imm/invalidate
     * union, the {@code wr} union (rdma: remote_addr, rkey; the atomic member makes it 32 bytes), the
     * {@code qp_type} union (4 bytes) and the bind_mw/tso union (48 bytes, {@link #SEND_WR_BIND_MW}). 128 bytes.
     */
    static final StructLayout SEND_WR = structLayout(JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"), JAVA_INT.withName("num_sge"), JAVA_INT.withName("opcode"),
            JAVA_INT.withName("send_flags"), JAVA_INT.withName("imm_data"), JAVA_LONG.withName("remote_addr"),
            JAVA_INT.withName("rkey"), paddingLayout(20), JAVA_INT.withName("remote_srqn"), paddingLayout(4),
            SEND_WR_BIND_MW.withName("bind_mw"));

    /** {@code struct ibv_recv_wr} (verbs.h): wr_id, next, sg_list, num_sge. 32 bytes. */
    static final StructLayout RECV_WR = structLayout(JAVA_LONG.withName("wr_id"), ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"), JAVA_INT.withName("num_sge"), paddingLayout(4));

    /**
     * {@code struct ibv_wc} (verbs.h): wr_id, status, opcode, vendor_err, byte_len, imm/invalidated_rkey,
     * qp_num, src_qp, wc_flags, pkey_index, slid, sl, dlid_path_bits. 48 bytes.
     */
    static final StructLayout WC = structLayout(JAVA_LONG.withName("wr_id"), JAVA_INT.withName("status"),
            JAVA_INT.withName("opcode"), JAVA_INT.withName("vendor_err"), JAVA_INT.withName("byte_len"),
            JAVA_INT.withName("imm_data"), JAVA_INT.withName("qp_num"), JAVA_INT.withName("src_qp"),
            JAVA_INT.withName("wc_flags"), JAVA_SHORT.withName("pkey_index"), JAVA_SHORT.withName("slid"),
            JAVA_BYTE.withName("sl"), JAVA_BYTE.withName("dlid_path_bits"), paddingLayout(2));

    /** {@code struct ibv_qp_cap} (verbs.h). 20 bytes. */
    static final StructLayout QP_CAP = structLayout(JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"), JAVA_INT.withName("max_send_sge"), JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data"));

    /** {@code struct ibv_qp_init_attr} (verbs.h): qp_context, send_cq, recv_cq, srq, cap, qp_type, sq_sig_all. 64 bytes. */
    static final StructLayout QP_INIT_ATTR = structLayout(ADDRESS.withName("qp_context"), ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"), ADDRESS.withName("srq"), QP_CAP.withName("cap"), JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"), paddingLayout(4));

    /** {@code struct ibv_srq_attr} (verbs.h): max_wr, max_sge, srq_limit. 12 bytes. */
    static final StructLayout SRQ_ATTR = structLayout(JAVA_INT.withName("max_wr"), JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("srq_limit"));

    /** {@code struct ibv_srq_init_attr} (verbs.h): srq_context, attr. 24 bytes. */
    static final StructLayout SRQ_INIT_ATTR = structLayout(ADDRESS.withName("srq_context"),
            SRQ_ATTR.withName("attr"), paddingLayout(4));

    /** {@code IBV_SRQ_MAX_WR} ({@code enum ibv_srq_attr_mask}). */
    static final int IBV_SRQ_MAX_WR = 1;
    /** {@code IBV_SRQ_LIMIT}. */
    static final int IBV_SRQ_LIMIT = 1 << 1;

    /** {@code struct ibv_mr} (verbs.h): context, pd, addr, length, handle, lkey, rkey. 48 bytes. */
    static final StructLayout MR = structLayout(ADDRESS.withName("context"), ADDRESS.withName("pd"),
            ADDRESS.withName("addr"), JAVA_LONG.withName("length"), JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"), JAVA_INT.withName("rkey"), paddingLayout(4));

    /** {@code struct ibv_qp} (verbs.h), the fields before its mutex: context .. qp_num, state, qp_type. */
    static final StructLayout QP_HEAD = structLayout(ADDRESS.withName("context"), ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"), ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"), ADDRESS.withName("srq"),
            JAVA_INT.withName("handle"), JAVA_INT.withName("qp_num"), JAVA_INT.withName("state"),
            JAVA_INT.withName("qp_type"));

    /** {@code struct ibv_comp_channel} (verbs.h): context, fd, refcnt. 16 bytes. */
    static final StructLayout COMP_CHANNEL = structLayout(ADDRESS.withName("context"), JAVA_INT.withName("fd"),
            JAVA_INT.withName("refcnt"));

    /** Entries of {@code struct ibv_context_ops} (verbs.h), 32 function pointers. */
    static final int CONTEXT_OPS_ENTRIES = 32;
    /** Index of {@code alloc_mw} in {@code struct ibv_context_ops} (after the seven {@code _compat_} entries). */
    static final int OP_ALLOC_MW = 7;
    /** Index of {@code bind_mw} (the type-1 bind that the static inline {@code ibv_bind_mw} calls). */
    static final int OP_BIND_MW = 8;
    /** Index of {@code dealloc_mw}. */
    static final int OP_DEALLOC_MW = 9;
    /** Index of {@code poll_cq} in {@code struct ibv_context_ops}. */
    static final int OP_POLL_CQ = 11;
    /** Index of {@code req_notify_cq}. */
    static final int OP_REQ_NOTIFY_CQ = 12;
    /** Index of {@code post_srq_recv}. */
    static final int OP_POST_SRQ_RECV = 20;
    /** Index of {@code post_send}. */
    static final int OP_POST_SEND = 25;
    /** Index of {@code post_recv}. */
    static final int OP_POST_RECV = 26;

    /**
     * {@code struct ibv_context} (verbs.h), up to {@code num_comp_vectors}: device, the operations table
     * {@code struct ibv_context_ops} (32 pointers), cmd_fd, async_fd, num_comp_vectors.
     */
    static final StructLayout CONTEXT_HEAD = structLayout(ADDRESS.withName("device"),
            sequenceLayout(CONTEXT_OPS_ENTRIES, ADDRESS).withName("ops"), JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"), JAVA_INT.withName("num_comp_vectors"));

    /**
     * {@code struct ibv_device_attr} (verbs.h), 232 bytes: fw_ver[64], the GUIDs, max_mr_size, page_size_cap,
     * vendor ids, then the int limits up to phys_port_cnt.
     */
    static final StructLayout DEVICE_ATTR = structLayout(sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"), JAVA_LONG.withName("sys_image_guid"), JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"), JAVA_INT.withName("vendor_id"), JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"), JAVA_INT.withName("max_qp"), JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"), JAVA_INT.withName("max_sge"), JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"), JAVA_INT.withName("max_cqe"), JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"), JAVA_INT.withName("max_qp_rd_atom"), JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"), JAVA_INT.withName("max_qp_init_rd_atom"),
            JAVA_INT.withName("max_ee_init_rd_atom"), JAVA_INT.withName("atomic_cap"), JAVA_INT.withName("max_ee"),
            JAVA_INT.withName("max_rdd"), JAVA_INT.withName("max_mw"), JAVA_INT.withName("max_raw_ipv6_qp"),
            JAVA_INT.withName("max_raw_ethy_qp"), JAVA_INT.withName("max_mcast_grp"),
            JAVA_INT.withName("max_mcast_qp_attach"), JAVA_INT.withName("max_total_mcast_qp_attach"),
            JAVA_INT.withName("max_ah"), JAVA_INT.withName("max_fmr"), JAVA_INT.withName("max_map_per_fmr"),
            JAVA_INT.withName("max_srq"), JAVA_INT.withName("max_srq_wr"), JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"), JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"), paddingLayout(4));

    /**
     * {@code struct rdma_conn_param} (rdma_cma.h): private_data, private_data_len, responder_resources,
     * initiator_depth, flow_control, retry_count, rnr_retry_count, srq, qp_num. 24 bytes.
     */
    static final StructLayout CONN_PARAM = structLayout(ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"), JAVA_BYTE.withName("responder_resources"),
            JAVA_BYTE.withName("initiator_depth"), JAVA_BYTE.withName("flow_control"), JAVA_BYTE.withName("retry_count"),
            JAVA_BYTE.withName("rnr_retry_count"), JAVA_BYTE.withName("srq"), paddingLayout(1),
            JAVA_INT.withName("qp_num"), paddingLayout(4));

    /**
     * {@code struct rdma_cm_event} (rdma_cma.h): id, listen_id, event, status, then the {@code param} union whose
     * {@code conn} member is a {@code struct rdma_conn_param} (the union is larger: ud carries an ibv_ah_attr).
     */
    static final StructLayout CM_EVENT_HEAD = structLayout(ADDRESS.withName("id"), ADDRESS.withName("listen_id"),
            JAVA_INT.withName("event"), JAVA_INT.withName("status"), CONN_PARAM.withName("conn"));

    /**
     * {@code struct rdma_cm_id} (rdma_cma.h), up to the route's addresses: verbs, channel, context, qp, then
     * {@code struct rdma_route} starting with {@code struct rdma_addr}: src and dst, each a 128-byte
     * {@code sockaddr_storage} union.
     */
    static final StructLayout CM_ID_HEAD = structLayout(ADDRESS.withName("verbs"), ADDRESS.withName("channel"),
            ADDRESS.withName("context"), ADDRESS.withName("qp"), sequenceLayout(128, JAVA_BYTE).withName("src_addr"),
            sequenceLayout(128, JAVA_BYTE).withName("dst_addr"));

    /** {@code struct sockaddr_in} (netinet/in.h): family, port (network order), address, zero. 16 bytes. */
    static final StructLayout SOCKADDR_IN = structLayout(JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withName("sin_port"), JAVA_INT.withName("sin_addr"), paddingLayout(8));

    /** {@code struct ibv_async_event} (verbs.h): the element union (a pointer or port_num), event_type. 16 bytes. */
    static final StructLayout ASYNC_EVENT = structLayout(ADDRESS.withName("element"), JAVA_INT.withName("event_type"),
            paddingLayout(4));

    /** {@code IBV_EVENT_CQ_ERR} ({@code enum ibv_event_type}). */
    static final int IBV_EVENT_CQ_ERR = 0;
    /** {@code IBV_EVENT_QP_FATAL}. */
    static final int IBV_EVENT_QP_FATAL = 1;
    /** {@code IBV_EVENT_QP_REQ_ERR}. */
    static final int IBV_EVENT_QP_REQ_ERR = 2;
    /** {@code IBV_EVENT_QP_ACCESS_ERR}. */
    static final int IBV_EVENT_QP_ACCESS_ERR = 3;

    /** {@code IBV_EVENT_SRQ_ERR}. */
    static final int IBV_EVENT_SRQ_ERR = 14;
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}: fewer WQEs than the armed srq_limit remain on the SRQ. */
    static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;

    /** {@code struct pollfd} (poll.h): fd, events, revents. 8 bytes. */
    static final StructLayout POLLFD = structLayout(JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents"));

    /** The byte offset of {@code field} in {@code layout}. */
    static long offset(MemoryLayout layout, String field) {
        return layout.byteOffset(groupElement(field));
    }

    /** The byte offset of {@code inner} in the struct member {@code outer} of {@code layout}. */
    static long offset(MemoryLayout layout, String outer, String inner) {
        return layout.byteOffset(groupElement(outer), groupElement(inner));
    }

    // Offsets used on the data path, as constants.
    static final long SGE_ADDR = offset(SGE, "addr");
    static final long SGE_LENGTH = offset(SGE, "length");
    static final long SGE_LKEY = offset(SGE, "lkey");
    static final long SWR_WR_ID = offset(SEND_WR, "wr_id");
    static final long SWR_NEXT = offset(SEND_WR, "next");
    static final long SWR_SG_LIST = offset(SEND_WR, "sg_list");
    static final long SWR_NUM_SGE = offset(SEND_WR, "num_sge");
    static final long SWR_OPCODE = offset(SEND_WR, "opcode");
    static final long SWR_SEND_FLAGS = offset(SEND_WR, "send_flags");
    static final long SWR_REMOTE_ADDR = offset(SEND_WR, "remote_addr");
    static final long SWR_RKEY = offset(SEND_WR, "rkey");
    static final long RWR_WR_ID = offset(RECV_WR, "wr_id");
    static final long RWR_NEXT = offset(RECV_WR, "next");
    static final long RWR_SG_LIST = offset(RECV_WR, "sg_list");
    static final long RWR_NUM_SGE = offset(RECV_WR, "num_sge");
    static final long MWB_WR_ID = offset(MW_BIND, "wr_id");
    static final long MWB_SEND_FLAGS = offset(MW_BIND, "send_flags");
    static final long MWB_MR = offset(MW_BIND, "bind_info", "mr");
    static final long MWB_ADDR = offset(MW_BIND, "bind_info", "addr");
    static final long MWB_LENGTH = offset(MW_BIND, "bind_info", "length");
    static final long MWB_ACCESS = offset(MW_BIND, "bind_info", "mw_access_flags");
    static final long MW_RKEY = offset(MW, "rkey");
    static final long WC_WR_ID = offset(WC, "wr_id");
    static final long WC_STATUS = offset(WC, "status");
    static final long WC_OPCODE = offset(WC, "opcode");
    static final long WC_VENDOR_ERR = offset(WC, "vendor_err");
    static final long WC_BYTE_LEN = offset(WC, "byte_len");
    static final long WC_QP_NUM = offset(WC, "qp_num");
    static final long WC_FLAGS = offset(WC, "wc_flags");

    // Constants of verbs.h and rdma_cma.h.
    /** {@code IBV_WR_RDMA_WRITE}. */
    static final int IBV_WR_RDMA_WRITE = 0;
    /** {@code IBV_WR_SEND}. */
    static final int IBV_WR_SEND = 2;
    /** {@code IBV_WR_RDMA_READ}. */
    static final int IBV_WR_RDMA_READ = 4;
    /** {@code IBV_SEND_FENCE}. */
    static final int IBV_SEND_FENCE = 1;
    /** {@code IBV_SEND_SIGNALED}. */
    static final int IBV_SEND_SIGNALED = 1 << 1;
    /** {@code IBV_SEND_SOLICITED}. */
    static final int IBV_SEND_SOLICITED = 1 << 2;
    /** {@code IBV_SEND_INLINE}. */
    static final int IBV_SEND_INLINE = 1 << 3;
    /** {@code IBV_WC_RECV}: a receive completion has this opcode bit. */
    static final int IBV_WC_RECV = 1 << 7;
    /** {@code IBV_ACCESS_LOCAL_WRITE}. */
    static final int IBV_ACCESS_LOCAL_WRITE = 1;
    /** {@code IBV_ACCESS_REMOTE_WRITE}. */
    static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    /** {@code IBV_ACCESS_REMOTE_READ}. */
    static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    /** {@code IBV_ACCESS_MW_BIND}: memory windows may be bound into the registration. */
    static final int IBV_ACCESS_MW_BIND = 1 << 4;
    /** {@code IBV_MW_TYPE_1} ({@code enum ibv_mw_type}): bound with ibv_bind_mw, usable through any QP of its PD. */
    static final int IBV_MW_TYPE_1 = 1;
    /** {@code IBV_MW_TYPE_2}: bound with an {@code IBV_WR_BIND_MW} work request, usable only through that QP. */
    static final int IBV_MW_TYPE_2 = 2;
    /** {@code IBV_WR_LOCAL_INV} ({@code enum ibv_wr_opcode}). */
    static final int IBV_WR_LOCAL_INV = 7;
    /** {@code IBV_WR_BIND_MW}. */
    static final int IBV_WR_BIND_MW = 8;
    /** {@code IBV_WC_BIND_MW} ({@code enum ibv_wc_opcode}): the completion of a window bind. */
    static final int IBV_WC_BIND_MW = 5;
    /** {@code IBV_DEVICE_MEM_WINDOW} ({@code enum ibv_device_cap_flags}): the device has type-1 memory windows. */
    static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A}: type-2 windows bound to a QP. */
    static final int IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}: type-2 windows bound to a QP and a PD. */
    static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;
    /** {@code IBV_QPT_RC}. */
    static final int IBV_QPT_RC = 2;
    /** {@code RDMA_PS_TCP}. */
    static final int RDMA_PS_TCP = 0x0106;
    /** {@code AF_INET}. */
    static final short AF_INET = 2;
    /** {@code POLLIN}. */
    static final short POLLIN = 1;
}
