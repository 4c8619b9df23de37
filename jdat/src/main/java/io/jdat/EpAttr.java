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

    /** {@return {@code service_type}} */
    public ServiceType serviceType() {
        return serviceType;
    }

    /**
     * Sets {@code service_type}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr serviceType(ServiceType value) {
        this.serviceType = value;
        return this;
    }

    /** {@return {@code max_message_size}} */
    public long maxMessageSize() {
        return maxMessageSize;
    }

    /**
     * Sets {@code max_message_size}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxMessageSize(long value) {
        this.maxMessageSize = value;
        return this;
    }

    /** {@return {@code max_rdma_size}} */
    public long maxRdmaSize() {
        return maxRdmaSize;
    }

    /**
     * Sets {@code max_rdma_size}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRdmaSize(long value) {
        this.maxRdmaSize = value;
        return this;
    }

    /** {@return {@code qos ({@link Qos} bits)}} */
    public int qos() {
        return qos;
    }

    /**
     * Sets {@code qos}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr qos(int value) {
        this.qos = value;
        return this;
    }

    /** {@return {@code recv_completion_flags ({@link CompletionFlags})}} */
    public int recvCompletionFlags() {
        return recvCompletionFlags;
    }

    /**
     * Sets {@code recv_completion_flags}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr recvCompletionFlags(int value) {
        this.recvCompletionFlags = value;
        return this;
    }

    /** {@return {@code request_completion_flags ({@link CompletionFlags})}} */
    public int requestCompletionFlags() {
        return requestCompletionFlags;
    }

    /**
     * Sets {@code request_completion_flags}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr requestCompletionFlags(int value) {
        this.requestCompletionFlags = value;
        return this;
    }

    /** {@return {@code max_recv_dtos}} */
    public int maxRecvDtos() {
        return maxRecvDtos;
    }

    /**
     * Sets {@code max_recv_dtos}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRecvDtos(int value) {
        this.maxRecvDtos = value;
        return this;
    }

    /** {@return {@code max_request_dtos}} */
    public int maxRequestDtos() {
        return maxRequestDtos;
    }

    /**
     * Sets {@code max_request_dtos}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRequestDtos(int value) {
        this.maxRequestDtos = value;
        return this;
    }

    /** {@return {@code max_recv_iov}} */
    public int maxRecvIov() {
        return maxRecvIov;
    }

    /**
     * Sets {@code max_recv_iov}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRecvIov(int value) {
        this.maxRecvIov = value;
        return this;
    }

    /** {@return {@code max_request_iov}} */
    public int maxRequestIov() {
        return maxRequestIov;
    }

    /**
     * Sets {@code max_request_iov}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRequestIov(int value) {
        this.maxRequestIov = value;
        return this;
    }

    /** {@return {@code max_rdma_read_in: outstanding RDMA Reads with this EP as target}} */
    public int maxRdmaReadIn() {
        return maxRdmaReadIn;
    }

    /**
     * Sets {@code max_rdma_read_in:}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRdmaReadIn(int value) {
        this.maxRdmaReadIn = value;
        return this;
    }

    /** {@return {@code max_rdma_read_out: outstanding RDMA Reads with this EP as originator}} */
    public int maxRdmaReadOut() {
        return maxRdmaReadOut;
    }

    /**
     * Sets {@code max_rdma_read_out:}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRdmaReadOut(int value) {
        this.maxRdmaReadOut = value;
        return this;
    }

    /** {@return {@code srq_soft_hw}} */
    public int srqSoftHw() {
        return srqSoftHw;
    }

    /**
     * Sets {@code srq_soft_hw}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr srqSoftHw(int value) {
        this.srqSoftHw = value;
        return this;
    }

    /** {@return {@code max_rdma_read_iov}} */
    public int maxRdmaReadIov() {
        return maxRdmaReadIov;
    }

    /**
     * Sets {@code max_rdma_read_iov}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRdmaReadIov(int value) {
        this.maxRdmaReadIov = value;
        return this;
    }

    /** {@return {@code max_rdma_write_iov}} */
    public int maxRdmaWriteIov() {
        return maxRdmaWriteIov;
    }

    /**
     * Sets {@code max_rdma_write_iov}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr maxRdmaWriteIov(int value) {
        this.maxRdmaWriteIov = value;
        return this;
    }

    /** {@return {@code ep_transport_specific (its count is the list size)}} */
    public java.util.List<NamedAttr> epTransportSpecific() {
        return epTransportSpecific;
    }

    /**
     * Sets {@code ep_transport_specific}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr epTransportSpecific(java.util.List<NamedAttr> value) {
        this.epTransportSpecific = java.util.List.copyOf(value);
        return this;
    }

    /** {@return {@code ep_provider_specific (its count is the list size)}} */
    public java.util.List<NamedAttr> epProviderSpecific() {
        return epProviderSpecific;
    }

    /**
     * Sets {@code ep_provider_specific}.
     *
     * @param value the new value
     * @return this
     */
    public EpAttr epProviderSpecific(java.util.List<NamedAttr> value) {
        this.epProviderSpecific = java.util.List.copyOf(value);
        return this;
    }

    /** {@return a copy of this attribute set} */
    public EpAttr copy() {
        return new EpAttr().copyFields(this, EpParam.FIELD_EP_ATTR_ALL);
    }

    /**
     * The masked copy of {@code dat_ep_modify} (EPM-11..31): sets every field of this attribute set that
     * {@code mask} selects ({@code EpParam.FIELD_EP_ATTR_*} bits; other bits are ignored) to its value in
     * {@code from}. The transport-specific list goes with either of {@code FIELD_EP_ATTR_NUM_TRANSPORT_ATTR}
     * and {@code FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR}, the provider-specific list likewise. Validates nothing.
     *
     * @param from the attribute set to copy from
     * @param mask the {@code DAT_EP_PARAM_MASK} of the fields to copy
     * @return this attribute set
     */
    public EpAttr copyFields(EpAttr from, long mask) {
        if ((mask & EpParam.FIELD_EP_ATTR_SERVICE_TYPE) != 0) {
            serviceType = from.serviceType;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE) != 0) {
            maxMessageSize = from.maxMessageSize;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_SIZE) != 0) {
            maxRdmaSize = from.maxRdmaSize;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_QOS) != 0) {
            qos = from.qos;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS) != 0) {
            recvCompletionFlags = from.recvCompletionFlags;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS) != 0) {
            requestCompletionFlags = from.requestCompletionFlags;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS) != 0) {
            maxRecvDtos = from.maxRecvDtos;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS) != 0) {
            maxRequestDtos = from.maxRequestDtos;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RECV_IOV) != 0) {
            maxRecvIov = from.maxRecvIov;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV) != 0) {
            maxRequestIov = from.maxRequestIov;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN) != 0) {
            maxRdmaReadIn = from.maxRdmaReadIn;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_OUT) != 0) {
            maxRdmaReadOut = from.maxRdmaReadOut;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_SRQ_SOFT_HW) != 0) {
            srqSoftHw = from.srqSoftHw;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IOV) != 0) {
            maxRdmaReadIov = from.maxRdmaReadIov;
        }
        if ((mask & EpParam.FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV) != 0) {
            maxRdmaWriteIov = from.maxRdmaWriteIov;
        }
        if ((mask & (EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR | EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR)) != 0) {
            epTransportSpecific = from.epTransportSpecific; // immutable (List.copyOf in the setter)
        }
        if ((mask & (EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR | EpParam.FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR)) != 0) {
            epProviderSpecific = from.epProviderSpecific;
        }
        return this;
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
