package io.jdat.verbs;

import static io.jdat.verbs.VerbsLayouts.offset;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The struct layouts against the facts of rdma-core's headers on LP64 (sizes and offsets as
 * {@code offsetof}/{@code sizeof} give them for verbs.h and rdma_cma.h, worked out from the declarations and
 * the System V x86-64 ABI's alignment rules). A wrong layout would make the device read garbage work requests.
 */
class VerbsLayoutsTest {
    @Test
    @DisplayName("the data-path downcalls: the function pointer as a segment, then the C arguments as raw addresses")
    void dataPathHandleTypes() {
        // The call sites use invokeExact with exactly these types: a mismatch is a WrongMethodTypeException on the
        // device only (the guest), after the connection's CQ is created.
        MethodType post = MethodType.methodType(int.class, MemorySegment.class, long.class, long.class, long.class);
        assertEquals(post, Verbs.POST_SEND.type(), "post_send(qp, wr, bad_wr)");
        assertEquals(post, Verbs.POST_RECV.type(), "post_recv(qp, wr, bad_wr)");
        assertEquals(post, Verbs.POST_SRQ_RECV.type(), "post_srq_recv(srq, wr, bad_wr)");
        assertEquals(MethodType.methodType(int.class, MemorySegment.class, long.class, int.class, long.class),
                Verbs.POLL_CQ.type(), "poll_cq(cq, n, wc)");
        assertEquals(MethodType.methodType(int.class, MemorySegment.class, long.class, int.class),
                Verbs.REQ_NOTIFY_CQ.type(), "req_notify_cq(cq, solicited_only)");
    }

    @Test
    @DisplayName("struct ibv_sge, ibv_recv_wr, ibv_wc: sizes 16, 32, 48 and their offsets")
    void smallStructs() {
        assertEquals(16, VerbsLayouts.SGE.byteSize());
        assertEquals(0, VerbsLayouts.SGE_ADDR);
        assertEquals(8, VerbsLayouts.SGE_LENGTH);
        assertEquals(12, VerbsLayouts.SGE_LKEY);
        assertEquals(32, VerbsLayouts.RECV_WR.byteSize());
        assertEquals(0, VerbsLayouts.RWR_WR_ID);
        assertEquals(8, VerbsLayouts.RWR_NEXT);
        assertEquals(16, VerbsLayouts.RWR_SG_LIST);
        assertEquals(24, VerbsLayouts.RWR_NUM_SGE);
        assertEquals(48, VerbsLayouts.WC.byteSize());
        assertEquals(0, VerbsLayouts.WC_WR_ID);
        assertEquals(8, VerbsLayouts.WC_STATUS);
        assertEquals(12, VerbsLayouts.WC_OPCODE);
        assertEquals(16, VerbsLayouts.WC_VENDOR_ERR);
        assertEquals(20, VerbsLayouts.WC_BYTE_LEN);
        assertEquals(28, VerbsLayouts.WC_QP_NUM);
        assertEquals(36, VerbsLayouts.WC_FLAGS);
        assertEquals(40, offset(VerbsLayouts.WC, "pkey_index"));
        assertEquals(44, offset(VerbsLayouts.WC, "sl"));
    }

    @Test
    @DisplayName("struct ibv_send_wr: 128 bytes; wr.rdma at 40/48; the qp_type union at 72")
    void sendWr() {
        assertEquals(128, VerbsLayouts.SEND_WR.byteSize());
        assertEquals(0, VerbsLayouts.SWR_WR_ID);
        assertEquals(8, VerbsLayouts.SWR_NEXT);
        assertEquals(16, VerbsLayouts.SWR_SG_LIST);
        assertEquals(24, VerbsLayouts.SWR_NUM_SGE);
        assertEquals(28, VerbsLayouts.SWR_OPCODE);
        assertEquals(32, VerbsLayouts.SWR_SEND_FLAGS);
        assertEquals(36, offset(VerbsLayouts.SEND_WR, "imm_data"));
        assertEquals(40, VerbsLayouts.SWR_REMOTE_ADDR);
        assertEquals(48, VerbsLayouts.SWR_RKEY);
        assertEquals(72, offset(VerbsLayouts.SEND_WR, "remote_srqn"));
    }

    @Test
    @DisplayName("struct ibv_context: ops at 8 (32 pointers); poll_cq 11, req_notify_cq 12, post_send 25, post_recv 26;"
            + " cmd_fd 264, async_fd 268")
    void contextOps() {
        assertEquals(8, offset(VerbsLayouts.CONTEXT_HEAD, "ops"));
        assertEquals(264, offset(VerbsLayouts.CONTEXT_HEAD, "cmd_fd"));
        assertEquals(268, offset(VerbsLayouts.CONTEXT_HEAD, "async_fd"));
        assertEquals(272, offset(VerbsLayouts.CONTEXT_HEAD, "num_comp_vectors"));
        // The entries' positions in struct ibv_context_ops (verbs.h): _compat_query_device, _compat_query_port,
        // five _compat PD/MR entries, alloc_mw, bind_mw, dealloc_mw, _compat_create_cq, poll_cq, req_notify_cq,
        // ... post_srq_recv (20), four _compat QP entries, post_send, post_recv, five _compat entries.
        assertEquals(11, VerbsLayouts.OP_POLL_CQ);
        assertEquals(12, VerbsLayouts.OP_REQ_NOTIFY_CQ);
        assertEquals(25, VerbsLayouts.OP_POST_SEND);
        assertEquals(26, VerbsLayouts.OP_POST_RECV);
        assertEquals(20, VerbsLayouts.OP_POST_SRQ_RECV);
    }

    @Test
    @DisplayName("struct ibv_qp_init_attr 64, ibv_qp_cap 20 at 32; ibv_mr 48 with lkey 36, rkey 40; ibv_device_attr 232")
    void setupStructs() {
        assertEquals(64, VerbsLayouts.QP_INIT_ATTR.byteSize());
        assertEquals(8, offset(VerbsLayouts.QP_INIT_ATTR, "send_cq"));
        assertEquals(16, offset(VerbsLayouts.QP_INIT_ATTR, "recv_cq"));
        assertEquals(32, offset(VerbsLayouts.QP_INIT_ATTR, "cap"));
        assertEquals(20, VerbsLayouts.QP_CAP.byteSize());
        assertEquals(52, offset(VerbsLayouts.QP_INIT_ATTR, "qp_type"));
        assertEquals(56, offset(VerbsLayouts.QP_INIT_ATTR, "sq_sig_all"));
        assertEquals(48, VerbsLayouts.MR.byteSize());
        assertEquals(36, offset(VerbsLayouts.MR, "lkey"));
        assertEquals(40, offset(VerbsLayouts.MR, "rkey"));
        assertEquals(52, offset(VerbsLayouts.QP_HEAD, "qp_num"));
        assertEquals(8, offset(VerbsLayouts.COMP_CHANNEL, "fd"));
        assertEquals(232, VerbsLayouts.DEVICE_ATTR.byteSize());
        assertEquals(64, offset(VerbsLayouts.DEVICE_ATTR, "node_guid"));
        assertEquals(80, offset(VerbsLayouts.DEVICE_ATTR, "max_mr_size"));
        assertEquals(112, offset(VerbsLayouts.DEVICE_ATTR, "max_qp_wr"));
        assertEquals(120, offset(VerbsLayouts.DEVICE_ATTR, "max_sge"));
        assertEquals(144, offset(VerbsLayouts.DEVICE_ATTR, "max_qp_rd_atom"));
        assertEquals(156, offset(VerbsLayouts.DEVICE_ATTR, "max_qp_init_rd_atom"));
        assertEquals(224, offset(VerbsLayouts.DEVICE_ATTR, "max_pkeys"));
        assertEquals(16, VerbsLayouts.ASYNC_EVENT.byteSize());
    }

    @Test
    @DisplayName("SRQ: struct ibv_srq_attr 12, ibv_srq_init_attr 24 (attr at 8); max_srq/_wr/_sge at 212/216/220 of"
            + " ibv_device_attr; IBV_EVENT_SRQ_LIMIT_REACHED 15")
    void srqStructs() {
        assertEquals(12, VerbsLayouts.SRQ_ATTR.byteSize());
        assertEquals(8, offset(VerbsLayouts.SRQ_ATTR, "srq_limit"));
        assertEquals(24, VerbsLayouts.SRQ_INIT_ATTR.byteSize());
        assertEquals(8, offset(VerbsLayouts.SRQ_INIT_ATTR, "attr"));
        assertEquals(212, offset(VerbsLayouts.DEVICE_ATTR, "max_srq"));
        assertEquals(216, offset(VerbsLayouts.DEVICE_ATTR, "max_srq_wr"));
        assertEquals(220, offset(VerbsLayouts.DEVICE_ATTR, "max_srq_sge"));
        assertEquals(15, VerbsLayouts.IBV_EVENT_SRQ_LIMIT_REACHED);
        assertEquals(24, offset(VerbsLayouts.QP_INIT_ATTR, "srq"));
    }

    @Test
    @DisplayName("rdma_cm: struct rdma_conn_param 24 (qp_num at 16); rdma_cm_event's param.conn at 24; rdma_cm_id's"
            + " qp at 24 and route.addr.dst_addr at 160")
    void rdmaCm() {
        assertEquals(24, VerbsLayouts.CONN_PARAM.byteSize());
        assertEquals(8, offset(VerbsLayouts.CONN_PARAM, "private_data_len"));
        assertEquals(9, offset(VerbsLayouts.CONN_PARAM, "responder_resources"));
        assertEquals(10, offset(VerbsLayouts.CONN_PARAM, "initiator_depth"));
        assertEquals(13, offset(VerbsLayouts.CONN_PARAM, "rnr_retry_count"));
        assertEquals(16, offset(VerbsLayouts.CONN_PARAM, "qp_num"));
        assertEquals(16, offset(VerbsLayouts.CM_EVENT_HEAD, "event"));
        assertEquals(20, offset(VerbsLayouts.CM_EVENT_HEAD, "status"));
        assertEquals(24, offset(VerbsLayouts.CM_EVENT_HEAD, "conn"));
        assertEquals(0, offset(VerbsLayouts.CM_ID_HEAD, "verbs"));
        assertEquals(24, offset(VerbsLayouts.CM_ID_HEAD, "qp"));
        assertEquals(32, offset(VerbsLayouts.CM_ID_HEAD, "src_addr"));
        assertEquals(160, offset(VerbsLayouts.CM_ID_HEAD, "dst_addr"));
        assertEquals(16, VerbsLayouts.SOCKADDR_IN.byteSize());
        assertEquals(8, VerbsLayouts.POLLFD.byteSize());
    }

    @Test
    @DisplayName("memory windows: struct ibv_mw 32 (rkey 16, type 24), ibv_mw_bind_info 32, ibv_mw_bind 48 (bind_info at"
            + " 16), ibv_send_wr's bind_mw at 80 (rkey 88, bind_info 96)")
    void memoryWindowStructs() {
        assertEquals(32, VerbsLayouts.MW.byteSize());
        assertEquals(8, offset(VerbsLayouts.MW, "pd"));
        assertEquals(16, VerbsLayouts.MW_RKEY);
        assertEquals(20, offset(VerbsLayouts.MW, "handle"));
        assertEquals(24, offset(VerbsLayouts.MW, "type"));
        assertEquals(32, VerbsLayouts.MW_BIND_INFO.byteSize());
        assertEquals(0, offset(VerbsLayouts.MW_BIND_INFO, "mr"));
        assertEquals(8, offset(VerbsLayouts.MW_BIND_INFO, "addr"));
        assertEquals(16, offset(VerbsLayouts.MW_BIND_INFO, "length"));
        assertEquals(24, offset(VerbsLayouts.MW_BIND_INFO, "mw_access_flags"));
        assertEquals(48, VerbsLayouts.MW_BIND.byteSize());
        assertEquals(0, VerbsLayouts.MWB_WR_ID);
        assertEquals(8, VerbsLayouts.MWB_SEND_FLAGS);
        assertEquals(16, VerbsLayouts.MWB_MR);
        assertEquals(24, VerbsLayouts.MWB_ADDR);
        assertEquals(32, VerbsLayouts.MWB_LENGTH);
        assertEquals(40, VerbsLayouts.MWB_ACCESS);
        assertEquals(48, VerbsLayouts.SEND_WR_BIND_MW.byteSize());
        assertEquals(80, offset(VerbsLayouts.SEND_WR, "bind_mw"));
        assertEquals(88, VerbsLayouts.SEND_WR.byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement(
                "bind_mw"), java.lang.foreign.MemoryLayout.PathElement.groupElement("rkey")));
        assertEquals(96, offset(VerbsLayouts.SEND_WR, "bind_mw", "bind_info"));
        assertEquals(128, VerbsLayouts.SEND_WR.byteSize());
        // struct ibv_context_ops: alloc_mw, bind_mw, dealloc_mw follow the seven _compat_ entries.
        assertEquals(7, VerbsLayouts.OP_ALLOC_MW);
        assertEquals(8, VerbsLayouts.OP_BIND_MW);
        assertEquals(9, VerbsLayouts.OP_DEALLOC_MW);
        // struct ibv_device_attr: device_cap_flags at 116, max_mw at 176.
        assertEquals(116, offset(VerbsLayouts.DEVICE_ATTR, "device_cap_flags"));
        assertEquals(176, offset(VerbsLayouts.DEVICE_ATTR, "max_mw"));
        // verbs.h enums.
        assertEquals(1 << 17, VerbsLayouts.IBV_DEVICE_MEM_WINDOW);
        assertEquals(1 << 23, VerbsLayouts.IBV_DEVICE_MEM_WINDOW_TYPE_2A);
        assertEquals(1 << 24, VerbsLayouts.IBV_DEVICE_MEM_WINDOW_TYPE_2B);
        assertEquals(16, VerbsLayouts.IBV_ACCESS_MW_BIND);
        assertEquals(1, VerbsLayouts.IBV_MW_TYPE_1);
        assertEquals(2, VerbsLayouts.IBV_MW_TYPE_2);
        assertEquals(7, VerbsLayouts.IBV_WR_LOCAL_INV);
        assertEquals(8, VerbsLayouts.IBV_WR_BIND_MW);
        assertEquals(5, VerbsLayouts.IBV_WC_BIND_MW);
    }

    @Test
    @DisplayName("the window downcalls: bind_mw as post_send (pointer, then raw qp, mw, bind); alloc_mw, dealloc_mw")
    void windowHandleTypes() {
        assertEquals(MethodType.methodType(int.class, MemorySegment.class, long.class, long.class, long.class),
                Verbs.BIND_MW.type(), "bind_mw(qp, mw, mw_bind)");
        assertEquals(MethodType.methodType(MemorySegment.class, MemorySegment.class, MemorySegment.class, int.class),
                Verbs.ALLOC_MW.type(), "alloc_mw(pd, type)");
        assertEquals(MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class),
                Verbs.DEALLOC_MW.type(), "dealloc_mw(mw)");
    }

    @Test
    @DisplayName("memory windows or the fallback: chosen by IBV_DEVICE_MEM_WINDOW, max_mw and the operations table"
            + " (rxe: windows; siw: the fallback), and -Djdat.verbs.memoryWindows=false")
    void windowsOrFallback() {
        int rxeFlags = VerbsLayouts.IBV_DEVICE_MEM_WINDOW | VerbsLayouts.IBV_DEVICE_MEM_WINDOW_TYPE_2A
                | VerbsLayouts.IBV_DEVICE_MEM_WINDOW_TYPE_2B | 1 << 21;
        org.junit.jupiter.api.Assertions.assertTrue(VerbsWindow.usable(rxeFlags, 4096, true, "true"), "rxe");
        org.junit.jupiter.api.Assertions.assertFalse(VerbsWindow.usable(1 << 21, 0, true, "true"),
                "siw: no window flag, max_mw 0");
        org.junit.jupiter.api.Assertions.assertFalse(VerbsWindow.usable(VerbsLayouts.IBV_DEVICE_MEM_WINDOW, 0, true,
                "true"), "max_mw 0");
        org.junit.jupiter.api.Assertions.assertFalse(VerbsWindow.usable(VerbsLayouts.IBV_DEVICE_MEM_WINDOW_TYPE_2B,
                4096, true, "true"), "type 2 only: DAT needs a PZ-wide context (type 1)");
        org.junit.jupiter.api.Assertions.assertFalse(VerbsWindow.usable(rxeFlags, 4096, false, "true"),
                "no alloc_mw/bind_mw/dealloc_mw in the operations table");
        org.junit.jupiter.api.Assertions.assertFalse(VerbsWindow.usable(rxeFlags, 4096, true, "false"),
                "the property asks for the fallback");
    }
}
