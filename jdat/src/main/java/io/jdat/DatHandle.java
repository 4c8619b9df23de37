package io.jdat;

/**
 * {@code DAT_HANDLE}: any DAT object. Every jdat object implements this.
 *
 * <p>Once an object is freed (or its IA closed), every method of it throws
 * {@link DatException} {@code DAT_INVALID_HANDLE}, another free (or {@code dat_ia_close}) included.
 */
public sealed interface DatHandle permits Cno, ConnectionRequest, Endpoint, EventDispatcher,
        InterfaceAdapter, Lmr, ProtectionZone, PublicServicePoint, ReservedServicePoint, Rmr, SharedReceiveQueue {
    /**
     * {@code dat_get_handle_type}.
     *
     * @return the kind of object
     * @throws DatException {@code DAT_INVALID_HANDLE} for a freed object
     */
    HandleType getHandleType();

    /**
     * {@code dat_set_consumer_context}: stores one opaque value with the object, replacing the previous one;
     * {@code null} clears it.
     *
     * @param context the consumer's value
     * @throws DatException {@code DAT_INVALID_HANDLE} for a freed object
     */
    void setConsumerContext(Object context);

    /**
     * {@code dat_get_consumer_context}.
     *
     * @return the value last stored, or {@code null}
     * @throws DatException {@code DAT_INVALID_HANDLE} for a freed object
     */
    Object getConsumerContext();
}
