package io.jdat;

/**
 * {@code DAT_EP_ATTR}: the attributes of an Endpoint (API.md §4.2).
 *
 * <p>A mutable, consumer-owned value like the C struct: set the fields you need with the fluent setters and
 * pass it to {@link Endpoint#create}; providers copy it and never keep a reference. A new instance holds
 * zeroes and {@link CompletionFlags#EVD_THRESHOLD} completion flags; {@link InterfaceAdapter#defaultEpAttr()}
 * gives the provider defaults. Not thread-safe.
 */
public final class EpAttr {
    private ServiceType serviceType = ServiceType.RC;
    private long maxMessageSize = 0;
    private long maxRdmaSize = 0;
    private int qos = Qos.BEST_EFFORT;
    private int recvCompletionFlags = CompletionFlags.EVD_THRESHOLD;
    private int requestCompletionFlags = CompletionFlags.EVD_THRESHOLD;
    private int maxRecvDtos = 0;
    private int maxRequestDtos = 0;
    private int maxRecvIov = 0;
    private int maxRequestIov = 0;
    private int maxRdmaReadIn = 0;
    private int maxRdmaReadOut = 0;
    private int srqSoftHw = Dat.HW_DEFAULT;
    private int maxRdmaReadIov = 0;
    private int maxRdmaWriteIov = 0;
    private java.util.List<NamedAttr> epTransportSpecific = java.util.List.of();
    private java.util.List<NamedAttr> epProviderSpecific = java.util.List.of();

    /** An attribute set with zero limits; see {@link InterfaceAdapter#defaultEpAttr()} for usable defaults. */
    public EpAttr() {
    }

    /** {@code service_type}. */
    public ServiceType serviceType() {
        return serviceType;
    }

    /** Sets {@code service_type}; returns this. */
    public EpAttr serviceType(ServiceType value) {
        this.serviceType = value;
        return this;
    }

    /** {@code max_message_size}. */
    public long maxMessageSize() {
        return maxMessageSize;
    }

    /** Sets {@code max_message_size}; returns this. */
    public EpAttr maxMessageSize(long value) {
        this.maxMessageSize = value;
        return this;
    }

    /** {@code max_rdma_size}. */
    public long maxRdmaSize() {
        return maxRdmaSize;
    }

    /** Sets {@code max_rdma_size}; returns this. */
    public EpAttr maxRdmaSize(long value) {
        this.maxRdmaSize = value;
        return this;
    }

    /** {@code qos ({@link Qos} bits)}. */
    public int qos() {
        return qos;
    }

    /** Sets {@code qos}; returns this. */
    public EpAttr qos(int value) {
        this.qos = value;
        return this;
    }

    /** {@code recv_completion_flags ({@link CompletionFlags})}. */
    public int recvCompletionFlags() {
        return recvCompletionFlags;
    }

    /** Sets {@code recv_completion_flags}; returns this. */
    public EpAttr recvCompletionFlags(int value) {
        this.recvCompletionFlags = value;
        return this;
    }

    /** {@code request_completion_flags ({@link CompletionFlags})}. */
    public int requestCompletionFlags() {
        return requestCompletionFlags;
    }

    /** Sets {@code request_completion_flags}; returns this. */
    public EpAttr requestCompletionFlags(int value) {
        this.requestCompletionFlags = value;
        return this;
    }

    /** {@code max_recv_dtos}. */
    public int maxRecvDtos() {
        return maxRecvDtos;
    }

    /** Sets {@code max_recv_dtos}; returns this. */
    public EpAttr maxRecvDtos(int value) {
        this.maxRecvDtos = value;
        return this;
    }

    /** {@code max_request_dtos}. */
    public int maxRequestDtos() {
        return maxRequestDtos;
    }

    /** Sets {@code max_request_dtos}; returns this. */
    public EpAttr maxRequestDtos(int value) {
        this.maxRequestDtos = value;
        return this;
    }

    /** {@code max_recv_iov}. */
    public int maxRecvIov() {
        return maxRecvIov;
    }

    /** Sets {@code max_recv_iov}; returns this. */
    public EpAttr maxRecvIov(int value) {
        this.maxRecvIov = value;
        return this;
    }

    /** {@code max_request_iov}. */
    public int maxRequestIov() {
        return maxRequestIov;
    }

    /** Sets {@code max_request_iov}; returns this. */
    public EpAttr maxRequestIov(int value) {
        this.maxRequestIov = value;
        return this;
    }

    /** {@code max_rdma_read_in: outstanding RDMA Reads with this EP as target}. */
    public int maxRdmaReadIn() {
        return maxRdmaReadIn;
    }

    /** Sets {@code max_rdma_read_in:}; returns this. */
    public EpAttr maxRdmaReadIn(int value) {
        this.maxRdmaReadIn = value;
        return this;
    }

    /** {@code max_rdma_read_out: outstanding RDMA Reads with this EP as originator}. */
    public int maxRdmaReadOut() {
        return maxRdmaReadOut;
    }

    /** Sets {@code max_rdma_read_out:}; returns this. */
    public EpAttr maxRdmaReadOut(int value) {
        this.maxRdmaReadOut = value;
        return this;
    }

    /** {@code srq_soft_hw}. */
    public int srqSoftHw() {
        return srqSoftHw;
    }

    /** Sets {@code srq_soft_hw}; returns this. */
    public EpAttr srqSoftHw(int value) {
        this.srqSoftHw = value;
        return this;
    }

    /** {@code max_rdma_read_iov}. */
    public int maxRdmaReadIov() {
        return maxRdmaReadIov;
    }

    /** Sets {@code max_rdma_read_iov}; returns this. */
    public EpAttr maxRdmaReadIov(int value) {
        this.maxRdmaReadIov = value;
        return this;
    }

    /** {@code max_rdma_write_iov}. */
    public int maxRdmaWriteIov() {
        return maxRdmaWriteIov;
    }

    /** Sets {@code max_rdma_write_iov}; returns this. */
    public EpAttr maxRdmaWriteIov(int value) {
        this.maxRdmaWriteIov = value;
        return this;
    }

    /** {@code ep_transport_specific (its count is the list size)}. */
    public java.util.List<NamedAttr> epTransportSpecific() {
        return epTransportSpecific;
    }

    /** Sets {@code ep_transport_specific}; returns this. */
    public EpAttr epTransportSpecific(java.util.List<NamedAttr> value) {
        this.epTransportSpecific = java.util.List.copyOf(value);
        return this;
    }

    /** {@code ep_provider_specific (its count is the list size)}. */
    public java.util.List<NamedAttr> epProviderSpecific() {
        return epProviderSpecific;
    }

    /** Sets {@code ep_provider_specific}; returns this. */
    public EpAttr epProviderSpecific(java.util.List<NamedAttr> value) {
        this.epProviderSpecific = java.util.List.copyOf(value);
        return this;
    }

    /** A copy of this attribute set. */
    public EpAttr copy() {
        EpAttr c = new EpAttr();
        c.serviceType = serviceType;
        c.maxMessageSize = maxMessageSize;
        c.maxRdmaSize = maxRdmaSize;
        c.qos = qos;
        c.recvCompletionFlags = recvCompletionFlags;
        c.requestCompletionFlags = requestCompletionFlags;
        c.maxRecvDtos = maxRecvDtos;
        c.maxRequestDtos = maxRequestDtos;
        c.maxRecvIov = maxRecvIov;
        c.maxRequestIov = maxRequestIov;
        c.maxRdmaReadIn = maxRdmaReadIn;
        c.maxRdmaReadOut = maxRdmaReadOut;
        c.srqSoftHw = srqSoftHw;
        c.maxRdmaReadIov = maxRdmaReadIov;
        c.maxRdmaWriteIov = maxRdmaWriteIov;
        c.epTransportSpecific = epTransportSpecific;
        c.epProviderSpecific = epProviderSpecific;
        return c;
    }

    @Override
    public String toString() {
        return "EpAttr{"
                + "serviceType=" + serviceType
                + ", maxMessageSize=" + maxMessageSize
                + ", maxRdmaSize=" + maxRdmaSize
                + ", qos=" + qos
                + ", recvCompletionFlags=" + recvCompletionFlags
                + ", requestCompletionFlags=" + requestCompletionFlags
                + ", maxRecvDtos=" + maxRecvDtos
                + ", maxRequestDtos=" + maxRequestDtos
                + ", maxRecvIov=" + maxRecvIov
                + ", maxRequestIov=" + maxRequestIov
                + ", maxRdmaReadIn=" + maxRdmaReadIn
                + ", maxRdmaReadOut=" + maxRdmaReadOut
                + ", srqSoftHw=" + srqSoftHw
                + ", maxRdmaReadIov=" + maxRdmaReadIov
                + ", maxRdmaWriteIov=" + maxRdmaWriteIov
                + ", epTransportSpecific=" + epTransportSpecific
                + ", epProviderSpecific=" + epProviderSpecific
                + "}";
    }
}
