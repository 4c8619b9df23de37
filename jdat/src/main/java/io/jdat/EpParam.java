package io.jdat;

import java.net.SocketAddress;

/**
 * {@code DAT_EP_PARAM}: what {@code dat_ep_query} reports and {@code dat_ep_modify} changes (API.md
 * §4.3), with the uDAPL 1.2 mask bits ({@code DAT_EP_PARAM_MASK}, 64-bit).
 *
 * <p>Mutable and consumer-owned, like the C struct. For {@link Endpoint#modify} only the fields
 * selected by the mask are read. Not thread-safe.
 */
public final class EpParam {
    /** {@code DAT_EP_FIELD_IA_HANDLE}. */
    public static final long FIELD_IA_HANDLE = 0x001L;
    /** {@code DAT_EP_FIELD_EP_STATE}. */
    public static final long FIELD_EP_STATE = 0x002L;
    /** {@code DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR}. */
    public static final long FIELD_LOCAL_IA_ADDRESS_PTR = 0x004L;
    /** {@code DAT_EP_FIELD_LOCAL_PORT_QUAL}. */
    public static final long FIELD_LOCAL_PORT_QUAL = 0x008L;
    /** {@code DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR}. */
    public static final long FIELD_REMOTE_IA_ADDRESS_PTR = 0x010L;
    /** {@code DAT_EP_FIELD_REMOTE_PORT_QUAL}. */
    public static final long FIELD_REMOTE_PORT_QUAL = 0x020L;
    /** {@code DAT_EP_FIELD_PZ_HANDLE}. */
    public static final long FIELD_PZ_HANDLE = 0x040L;
    /** {@code DAT_EP_FIELD_RECV_EVD_HANDLE}. */
    public static final long FIELD_RECV_EVD_HANDLE = 0x080L;
    /** {@code DAT_EP_FIELD_REQUEST_EVD_HANDLE}. */
    public static final long FIELD_REQUEST_EVD_HANDLE = 0x100L;
    /** {@code DAT_EP_FIELD_CONNECT_EVD_HANDLE}. */
    public static final long FIELD_CONNECT_EVD_HANDLE = 0x200L;
    /** {@code DAT_EP_FIELD_SRQ_HANDLE} (1.2). */
    public static final long FIELD_SRQ_HANDLE = 0x400L;
    /** {@code DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE}. */
    public static final long FIELD_EP_ATTR_SERVICE_TYPE = 0x00001000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE}. */
    public static final long FIELD_EP_ATTR_MAX_MESSAGE_SIZE = 0x00002000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE}. */
    public static final long FIELD_EP_ATTR_MAX_RDMA_SIZE = 0x00004000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_QOS}. */
    public static final long FIELD_EP_ATTR_QOS = 0x00008000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS}. */
    public static final long FIELD_EP_ATTR_RECV_COMPLETION_FLAGS = 0x00010000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS}. */
    public static final long FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS = 0x00020000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS}. */
    public static final long FIELD_EP_ATTR_MAX_RECV_DTOS = 0x00040000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS}. */
    public static final long FIELD_EP_ATTR_MAX_REQUEST_DTOS = 0x00080000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV}. */
    public static final long FIELD_EP_ATTR_MAX_RECV_IOV = 0x00100000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV}. */
    public static final long FIELD_EP_ATTR_MAX_REQUEST_IOV = 0x00200000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN}. */
    public static final long FIELD_EP_ATTR_MAX_RDMA_READ_IN = 0x00400000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT}. */
    public static final long FIELD_EP_ATTR_MAX_RDMA_READ_OUT = 0x00800000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW} (1.2). */
    public static final long FIELD_EP_ATTR_SRQ_SOFT_HW = 0x01000000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV} (1.2). */
    public static final long FIELD_EP_ATTR_MAX_RDMA_READ_IOV = 0x02000000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV} (1.2). */
    public static final long FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV = 0x04000000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR}. */
    public static final long FIELD_EP_ATTR_NUM_TRANSPORT_ATTR = 0x08000000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR}. */
    public static final long FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR = 0x10000000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR}. */
    public static final long FIELD_EP_ATTR_NUM_PROVIDER_ATTR = 0x20000000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR}. */
    public static final long FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR = 0x40000000L;
    /** {@code DAT_EP_FIELD_EP_ATTR_ALL}. */
    public static final long FIELD_EP_ATTR_ALL = 0x7FFFF000L;
    /** {@code DAT_EP_FIELD_ALL} (1.2). */
    public static final long FIELD_ALL = 0x7FFFF7FFL;

    private InterfaceAdapter iaHandle;
    private EpState epState;
    private SocketAddress localIaAddress;
    private long localPortQual;
    private SocketAddress remoteIaAddress;
    private long remotePortQual;
    private ProtectionZone pzHandle;
    private EventDispatcher recvEvdHandle;
    private EventDispatcher requestEvdHandle;
    private EventDispatcher connectEvdHandle;
    private SharedReceiveQueue srqHandle;
    private EpAttr epAttr = new EpAttr();

    /** An empty parameter block. */
    public EpParam() {
    }

    /** {@return {@code ia_handle}} */
    public InterfaceAdapter iaHandle() {
        return iaHandle;
    }

    /**
     * Sets {@code ia_handle} (never modifiable).
     *
     * @param v the new value
     * @return this
     */
    public EpParam iaHandle(InterfaceAdapter v) {
        iaHandle = v;
        return this;
    }

    /** {@return {@code ep_state}} */
    public EpState epState() {
        return epState;
    }

    /**
     * Sets {@code ep_state} (never modifiable).
     *
     * @param v the new value
     * @return this
     */
    public EpParam epState(EpState v) {
        epState = v;
        return this;
    }

    /** {@return {@code local_ia_address_ptr}} */
    public SocketAddress localIaAddress() {
        return localIaAddress;
    }

    /**
     * Sets {@code local_ia_address_ptr} (never modifiable).
     *
     * @param v the new value
     * @return this
     */
    public EpParam localIaAddress(SocketAddress v) {
        localIaAddress = v;
        return this;
    }

    /** {@return {@code local_port_qual}} */
    public long localPortQual() {
        return localPortQual;
    }

    /**
     * Sets {@code local_port_qual} (never modifiable).
     *
     * @param v the new value
     * @return this
     */
    public EpParam localPortQual(long v) {
        localPortQual = v;
        return this;
    }

    /** {@return {@code remote_ia_address_ptr}: meaningful in PCP, ACP, TCP, CP, C, DP (EPQ-02)} */
    public SocketAddress remoteIaAddress() {
        return remoteIaAddress;
    }

    /**
     * Sets {@code remote_ia_address_ptr} (never modifiable).
     *
     * @param v the new value
     * @return this
     */
    public EpParam remoteIaAddress(SocketAddress v) {
        remoteIaAddress = v;
        return this;
    }

    /** {@return {@code remote_port_qual}} */
    public long remotePortQual() {
        return remotePortQual;
    }

    /**
     * Sets {@code remote_port_qual} (never modifiable).
     *
     * @param v the new value
     * @return this
     */
    public EpParam remotePortQual(long v) {
        remotePortQual = v;
        return this;
    }

    /** {@return {@code pz_handle}} */
    public ProtectionZone pzHandle() {
        return pzHandle;
    }

    /**
     * Sets {@code pz_handle}.
     *
     * @param v the new value
     * @return this
     */
    public EpParam pzHandle(ProtectionZone v) {
        pzHandle = v;
        return this;
    }

    /** {@return {@code recv_evd_handle}} */
    public EventDispatcher recvEvdHandle() {
        return recvEvdHandle;
    }

    /**
     * Sets {@code recv_evd_handle}.
     *
     * @param v the new value
     * @return this
     */
    public EpParam recvEvdHandle(EventDispatcher v) {
        recvEvdHandle = v;
        return this;
    }

    /** {@return {@code request_evd_handle}} */
    public EventDispatcher requestEvdHandle() {
        return requestEvdHandle;
    }

    /**
     * Sets {@code request_evd_handle}.
     *
     * @param v the new value
     * @return this
     */
    public EpParam requestEvdHandle(EventDispatcher v) {
        requestEvdHandle = v;
        return this;
    }

    /** {@return {@code connect_evd_handle}} */
    public EventDispatcher connectEvdHandle() {
        return connectEvdHandle;
    }

    /**
     * Sets {@code connect_evd_handle}.
     *
     * @param v the new value
     * @return this
     */
    public EpParam connectEvdHandle(EventDispatcher v) {
        connectEvdHandle = v;
        return this;
    }

    /** {@return {@code srq_handle} (1.2): the EP's Shared Receive Queue, or {@code null}} */
    public SharedReceiveQueue srqHandle() {
        return srqHandle;
    }

    /**
     * Sets {@code srq_handle} (never modifiable).
     *
     * @param v the new value
     * @return this
     */
    public EpParam srqHandle(SharedReceiveQueue v) {
        srqHandle = v;
        return this;
    }

    /** {@return {@code ep_attr}: the live attribute block of this parameter set} */
    public EpAttr epAttr() {
        return epAttr;
    }

    /**
     * Sets {@code ep_attr}.
     *
     * @param v the new value
     * @return this
     */
    public EpParam epAttr(EpAttr v) {
        epAttr = v;
        return this;
    }
}
