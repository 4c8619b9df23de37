package io.jdat.spi;

/**
 * A posted receive buffer as the core hands it to a transport ({@link ChannelSink#takeRecv}): a validated
 * scatter list. Pre-allocated per queue slot; the core extends it with its own bookkeeping.
 */
public class RecvBuffer extends IoVector {
    /**
     * A buffer with room for {@code capacity} segments.
     *
     * @param capacity the EP's maximum receive iov
     */
    public RecvBuffer(int capacity) {
        super(capacity);
    }
}
