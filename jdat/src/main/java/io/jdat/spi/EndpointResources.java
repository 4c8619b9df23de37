package io.jdat.spi;

/**
 * What a device transport needs to create an endpoint's queue pair when a connection is set up
 * ({@link Transport#connect(java.net.SocketAddress, long, byte[], int, int, ActiveHandler, EndpointResources)},
 * {@link IncomingRequest#accept(PassiveHandler, byte[], int, int, EndpointResources)}): its protection domain,
 * its queue depths and scatter/gather sizes, and the EP's receive side, so that posted receive buffers can be
 * handed to the device before the peer may send ({@link ChannelSink#takeRecvInSetup()}). Software transports
 * ignore it.
 *
 * @param domain         the EP's Protection Zone's domain ({@link DeviceMemory#openDomain()}), or {@code null}
 * @param maxRequests    {@code max_request_dtos}
 * @param maxRecvs       {@code max_recv_dtos}
 * @param maxRequestIov  {@code max_request_iov}
 * @param maxRecvIov     {@code max_recv_iov}
 * @param sink           the EP's receive side
 * @param srq            the device queue of the EP's SRQ ({@code dat_ep_create_with_srq}), or {@code null}: the
 *                       queue pair takes its receives from it
 */
public record EndpointResources(DeviceMemory.Domain domain, int maxRequests, int maxRecvs, int maxRequestIov,
        int maxRecvIov, ChannelSink sink, DeviceSrq srq) {
    /**
     * Resources of an EP without a shared receive queue.
     *
     * @param domain        the EP's Protection Zone's domain, or {@code null}
     * @param maxRequests   {@code max_request_dtos}
     * @param maxRecvs      {@code max_recv_dtos}
     * @param maxRequestIov {@code max_request_iov}
     * @param maxRecvIov    {@code max_recv_iov}
     * @param sink          the EP's receive side
     */
    public EndpointResources(DeviceMemory.Domain domain, int maxRequests, int maxRecvs, int maxRequestIov,
            int maxRecvIov, ChannelSink sink) {
        this(domain, maxRequests, maxRecvs, maxRequestIov, maxRecvIov, sink, null);
    }
}
