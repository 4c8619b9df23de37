package io.jdat.spi;

/**
 * A shared receive queue kept by a device ({@code ibv_srq}) for one DAT SRQ ({@code dat_srq_create} on a
 * transport with {@link DeviceMemory}): made by {@link DeviceMemory.Domain#createSrq}. The core keeps every DAT
 * rule (posting checks, {@code max_recv_dtos}, outstanding entries, the one-shot low watermark, completion
 * reporting); the device holds the posted buffers and picks one for each incoming message on any of the queue
 * pairs created with it ({@link EndpointResources#srq()}).
 *
 * <p>Flow: the core tells the device that buffers were posted ({@link #recvPosted()}); the device takes them in
 * posting order ({@link Sink#takeForDevice()}) and posts them; when a connection's message lands in one, the
 * transport hands it back with {@link Sink#completed}, naming the connection it arrived on, and the core
 * completes it on that EP as a buffer the EP took from the SRQ.
 */
public interface DeviceSrq {
    /** Buffers were posted to the DAT SRQ ({@code dat_srq_post_recv}): take and post them. Any thread. */
    void recvPosted();

    /**
     * {@code dat_srq_resize} to {@code size} entries: the device's queue must hold at least that many.
     *
     * @param size the new {@code max_recv_dtos}
     * @throws io.jdat.DatException {@code DAT_INSUFFICIENT_RESOURCES}/{@code DAT_RESOURCE_SRQ} when the device
     *                              cannot grow its queue
     */
    void resize(int size);

    /**
     * {@code dat_srq_set_lw}: arms the device's limit so that it reports, once, when fewer than {@code lw}
     * buffers remain on it ({@link Sink#lowWatermark()}); 0 disarms.
     *
     * @param lw the low watermark
     */
    void armLowWatermark(int lw);

    /** {@code dat_srq_free}: releases the device's queue (no EP uses it any more). Idempotent. */
    void close();

    /** The core's side of a device SRQ. */
    interface Sink {
        /**
         * Takes the oldest posted buffer that is not on the device yet.
         *
         * @return the buffer, or {@code null} when none is waiting
         */
        RecvBuffer takeForDevice();

        /**
         * A message landed in {@code buffer} on the connection of {@code endpoint}: the core completes it on that
         * EP. When the EP no longer takes messages the buffer stays posted and is handed out again.
         *
         * @param buffer   a buffer from {@link #takeForDevice()}
         * @param endpoint the receiving connection's EP
         * @param length   the message length (larger than the buffer: {@code DAT_DTO_ERR_LOCAL_LENGTH})
         */
        void completed(RecvBuffer buffer, ChannelSink endpoint, long length);

        /** The device's limit was reached (one shot): the core reports DAT's low watermark event if armed. */
        void lowWatermark();
    }
}
