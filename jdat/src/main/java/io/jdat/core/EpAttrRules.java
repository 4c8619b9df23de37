package io.jdat.core;

import static io.jdat.core.EpStateMachine.State.PASSIVE_CONNECTION_PENDING;
import static io.jdat.core.EpStateMachine.State.RESERVED;
import static io.jdat.core.EpStateMachine.State.TENTATIVE_CONNECTION_PENDING;
import static io.jdat.core.EpStateMachine.State.UNCONNECTED;

import io.jdat.Dat;
import io.jdat.DatReturnType;
import io.jdat.EpAttr;
import io.jdat.EpParam;
import io.jdat.Qos;
import io.jdat.ServiceType;

/**
 * The rules for {@code DAT_EP_ATTR} values (EPC-18/19, EPM-34) and the {@code dat_ep_modify} table of
 * API.md §7.4 (which parameter may change in which state), beside {@link CompletionRules}.
 */
final class EpAttrRules {
    private static final long NEVER_MODIFIABLE = EpParam.FIELD_IA_HANDLE | EpParam.FIELD_EP_STATE
            | EpParam.FIELD_LOCAL_IA_ADDRESS_PTR | EpParam.FIELD_LOCAL_PORT_QUAL | EpParam.FIELD_REMOTE_IA_ADDRESS_PTR
            | EpParam.FIELD_REMOTE_PORT_QUAL | EpParam.FIELD_SRQ_HANDLE;
    private static final long ONLY_UNCONNECTED = EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR
            | EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR | EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR
            | EpParam.FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR;
    /** The fields that size the EP's queues: changing one reallocates them. */
    static final long RING_FIELDS = EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS
            | EpParam.FIELD_EP_ATTR_MAX_RECV_IOV | EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV
            | EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IOV | EpParam.FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV;

    private EpAttrRules() {
    }

    /** EPM-03..08: the parameters that never change are {@code DAT_INVALID_PARAMETER} (argument 2). */
    static void checkNeverModifiable(long mask) {
        if ((mask & NEVER_MODIFIABLE) != 0) {
            throw Fail.param(2, "ia_handle, ep_state, addresses, port qualifiers and srq_handle cannot be modified"
                    + " (EPM-03..08)");
        }
    }

    /**
     * API.md §7.4: whether the fields of {@code mask} may change in state {@code s}, else
     * {@code DAT_INVALID_STATE} with the state's subtype (EPM-09, EPM-11..31).
     *
     * @param noPz the EP has no PZ (an RSP's provider EP may get its missing PZ while RESERVED or PASSIVE)
     */
    static void checkModifiable(long mask, EpStateMachine.State s, boolean noPz) {
        boolean early = s == UNCONNECTED || s == RESERVED || s == PASSIVE_CONNECTION_PENDING
                || s == TENTATIVE_CONNECTION_PENDING;
        // §7.1: an UNCONFIGURED_RESERVED / _PASSIVE EP (an RSP's provider EP, RSP-09) may get its missing PZ.
        boolean unconfiguredEarly = (s == RESERVED || s == PASSIVE_CONNECTION_PENDING) && noPz;
        if ((mask & EpParam.FIELD_PZ_HANDLE) != 0 && s != UNCONNECTED && s != TENTATIVE_CONNECTION_PENDING
                && !unconfiguredEarly) {
            throw Fail.state(EpStateMachine.subtype(s), "pz_handle is modifiable only in UNCONNECTED and TENTATIVE (EPM-09)");
        }
        if ((mask & ONLY_UNCONNECTED) != 0 && s != UNCONNECTED) {
            throw Fail.state(EpStateMachine.subtype(s), "specific attributes are modifiable only in UNCONNECTED (EPM-28..31)");
        }
        if ((mask & ~EpParam.FIELD_PZ_HANDLE) != 0 && !early) {
            throw Fail.state(EpStateMachine.subtype(s), "EP parameters are modifiable only before connecting (EPM-11..27)");
        }
    }

    /**
     * EPC-18/19, EPM-34: every attribute value, against the IA's limits.
     *
     * @param srq whether the EP takes its receives from an SRQ (its {@code max_recv_iov} is ignored: ECS-07)
     */
    static void validate(CoreIa ia, EpAttr a, int arg, boolean srq) {
        if (a.serviceType() == null) {
            throw Fail.param(arg, "no service type");
        }
        if (a.serviceType() != ServiceType.RC) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "service type " + a.serviceType());
        }
        if ((a.qos() & ~Qos.ALL) != 0) {
            throw Fail.param(arg, "undefined QoS bits");
        }
        if ((a.qos() & ~ia.limits.qosSupported()) != 0) {
            throw Fail.of(DatReturnType.MODEL_NOT_SUPPORTED, "QoS 0x" + Integer.toHexString(a.qos()) + " (EPC-19)");
        }
        if (a.maxMessageSize() < 0 || a.maxMessageSize() > ia.limits.maxMessageSize()) {
            throw Fail.param(arg, "max_message_size " + a.maxMessageSize());
        }
        if (a.maxRdmaSize() < 0 || a.maxRdmaSize() > ia.limits.maxRdmaSize()) {
            throw Fail.param(arg, "max_rdma_size " + a.maxRdmaSize());
        }
        if (!CompletionRules.validRecvAttr(a.recvCompletionFlags())) {
            throw Fail.param(arg, "recv_completion_flags 0x" + Integer.toHexString(a.recvCompletionFlags()) + " (EPM-19)");
        }
        if (!CompletionRules.validRequestAttr(a.requestCompletionFlags())) {
            throw Fail.param(arg, "request_completion_flags 0x" + Integer.toHexString(a.requestCompletionFlags())
                    + " (EPM-20)");
        }
        checkRange(a.maxRecvDtos(), CoreIa.MAX_DTO_PER_EP, "max_recv_dtos", arg);
        checkRange(a.maxRequestDtos(), CoreIa.MAX_DTO_PER_EP, "max_request_dtos", arg);
        // A message is neither split nor gathered by the core: a device's max_sge bounds a Send's and a receive's
        // segments (ia.maxMessageIov); RDMA Reads and Writes the transport may split (max_rdma_read/write_iov).
        checkRange(a.maxRecvIov(), srq ? CoreIa.MAX_IOV : ia.maxMessageIov, "max_recv_iov", arg);
        checkRange(a.maxRequestIov(), ia.maxMessageIov, "max_request_iov", arg);
        checkRange(a.maxRdmaReadIov(), CoreIa.MAX_IOV, "max_rdma_read_iov", arg);
        checkRange(a.maxRdmaWriteIov(), CoreIa.MAX_IOV, "max_rdma_write_iov", arg);
        checkRange(a.maxRdmaReadIn(), ia.limits.maxRdmaReadIn(), "max_rdma_read_in", arg);
        checkRange(a.maxRdmaReadOut(), ia.limits.maxRdmaReadOut(), "max_rdma_read_out", arg);
        if (a.srqSoftHw() < Dat.WATERMARK_INFINITE) {
            throw Fail.param(arg, "srq_soft_hw " + a.srqSoftHw());
        }
        if (!a.epTransportSpecific().isEmpty() || !a.epProviderSpecific().isEmpty()) {
            throw Fail.param(arg, "jdat defines no transport- or provider-specific EP attributes");
        }
    }

    private static void checkRange(int v, int max, String name, int arg) {
        if (v < 0 || v > max) {
            throw Fail.param(arg, name + " " + v + " outside 0.." + max);
        }
    }
}
