package io.jdat.spi;

/**
 * What a transport can carry; the core derives the IA and provider attributes and its checks from it.
 *
 * @param maxMessageSize     largest send message
 * @param maxRdmaSize        largest RDMA Read or Write
 * @param maxPrivateDataSize largest connection private data (at least 64)
 * @param maxRdmaReadIn      largest incoming RDMA Read depth per EP
 * @param maxRdmaReadOut     largest outgoing RDMA Read depth per EP
 * @param qosSupported       {@link io.jdat.Qos} bits the transport honours
 * @param adapterName        adapter_name reported by {@code dat_ia_query}
 * @param maxMessageIov      most I/O vector segments one Send or one receive buffer may have (a NIC's {@code max_sge}:
 *                           a message cannot be split); {@link #ANY_IOV} when the core's own limit holds
 */
public record TransportLimits(long maxMessageSize, long maxRdmaSize, int maxPrivateDataSize, int maxRdmaReadIn,
        int maxRdmaReadOut, int qosSupported, String adapterName, int maxMessageIov) {
    /** {@link #maxMessageIov} of a transport that gathers and scatters any number of segments. */
    public static final int ANY_IOV = Integer.MAX_VALUE;

    /**
     * Limits of a transport with no segment limit of its own ({@link #ANY_IOV}).
     *
     * @param maxMessageSize     largest send message
     * @param maxRdmaSize        largest RDMA Read or Write
     * @param maxPrivateDataSize largest connection private data (at least 64)
     * @param maxRdmaReadIn      largest incoming RDMA Read depth per EP
     * @param maxRdmaReadOut     largest outgoing RDMA Read depth per EP
     * @param qosSupported       {@link io.jdat.Qos} bits the transport honours
     * @param adapterName        adapter_name reported by {@code dat_ia_query}
     */
    public TransportLimits(long maxMessageSize, long maxRdmaSize, int maxPrivateDataSize, int maxRdmaReadIn,
            int maxRdmaReadOut, int qosSupported, String adapterName) {
        this(maxMessageSize, maxRdmaSize, maxPrivateDataSize, maxRdmaReadIn, maxRdmaReadOut, qosSupported, adapterName,
                ANY_IOV);
    }
}
