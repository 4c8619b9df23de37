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
 */
public record TransportLimits(long maxMessageSize, long maxRdmaSize, int maxPrivateDataSize, int maxRdmaReadIn,
        int maxRdmaReadOut, int qosSupported, String adapterName) {
}
