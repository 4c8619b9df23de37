package io.jdat;

import java.net.SocketAddress;

/**
 * {@code DAT_EVENT}: one event, with the {@code DAT_EVENT_DATA} union flattened into fields.
 *
 * <p>A consumer allocates one {@code DatEvent} and passes it to {@link EventDispatcher#dequeue} or
 * {@link EventDispatcher#waitFor} again and again: every call overwrites all fields, so polling
 * allocates nothing. Which fields are meaningful depends on {@link #eventNumber()}:
 * <table>
 * <caption>fields per event kind</caption>
 * <tr><th>event</th><th>fields (C member)</th></tr>
 * <tr><td>{@code DAT_DTO_COMPLETION_EVENT}</td><td>{@link #ep()}, {@link #userCookie()}, {@link #status()},
 * {@link #transferredLength()} ({@code dto_completion_event_data})</td></tr>
 * <tr><td>{@code DAT_RMR_BIND_COMPLETION_EVENT}</td><td>{@link #rmr()}, {@link #userCookie()},
 * {@link #status()} ({@code rmr_completion_event_data})</td></tr>
 * <tr><td>{@code DAT_CONNECTION_REQUEST_EVENT}</td><td>{@link #spHandle()} ({@code null} for an RSP),
 * {@link #localIaAddress()}, {@link #connQual()}, {@link #cr()} ({@code cr_arrival_event_data})</td></tr>
 * <tr><td>connection events</td><td>{@link #ep()}, {@link #privateData()} ({@code connect_event_data};
 * the active side's ESTABLISHED carries the acceptor's data, every other event an empty array)</td></tr>
 * <tr><td>asynchronous errors</td><td>{@link #asyncHandle()}, {@link #reason()}
 * ({@code asynch_error_event_data})</td></tr>
 * <tr><td>{@code DAT_SOFTWARE_EVENT}</td><td>{@link #softwarePointer()}
 * ({@code software_event_data})</td></tr>
 * </table>
 * Not thread-safe: one instance per polling thread.
 */
public final class DatEvent {
    private static final byte[] NO_DATA = new byte[0];

    private EventNumber eventNumber;
    private EventDispatcher evd;
    private Endpoint ep;
    private long userCookie;
    private DtoCompletionStatus status;
    private long transferredLength;
    private Rmr rmr;
    private DatHandle spHandle;
    private SocketAddress localIaAddress;
    private long connQual;
    private ConnectionRequest cr;
    private byte[] privateData = NO_DATA;
    private DatHandle asyncHandle;
    private int reason;
    private Object softwarePointer;
    private int nmore;

    /** An empty event, ready to be filled by a dequeue. */
    public DatEvent() {
    }

    /**
     * A {@code DAT_SOFTWARE_EVENT} carrying {@code pointer}, for {@link EventDispatcher#postSe}.
     *
     * @param pointer the opaque consumer value ({@code software_event_data.pointer})
     * @return a new event
     */
    public static DatEvent software(Object pointer) {
        return new DatEvent().eventNumber(EventNumber.SOFTWARE_EVENT).softwarePointer(pointer);
    }

    /**
     * Clears every field.
     *
     * @return this
     */
    public DatEvent clear() {
        eventNumber = null;
        evd = null;
        ep = null;
        userCookie = 0;
        status = null;
        transferredLength = 0;
        rmr = null;
        spHandle = null;
        localIaAddress = null;
        connQual = 0;
        cr = null;
        privateData = NO_DATA;
        asyncHandle = null;
        reason = 0;
        softwarePointer = null;
        return this;
    }

    /** {@return {@code event_number}} */
    public EventNumber eventNumber() {
        return eventNumber;
    }

    /**
     * Sets {@code event_number}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent eventNumber(EventNumber v) {
        eventNumber = v;
        return this;
    }

    /** {@return {@code evd_handle}: the EVD the event was dequeued from} */
    public EventDispatcher evd() {
        return evd;
    }

    /**
     * Sets {@code evd_handle}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent evd(EventDispatcher v) {
        evd = v;
        return this;
    }

    /** {@return {@code ep_handle} of a DTO completion or a connection event} */
    public Endpoint ep() {
        return ep;
    }

    /**
     * Sets {@code ep_handle}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent ep(Endpoint v) {
        ep = v;
        return this;
    }

    /** {@return {@code user_cookie} of a DTO or RMR bind completion: the value given to the post, unchanged} */
    public long userCookie() {
        return userCookie;
    }

    /**
     * Sets {@code user_cookie}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent userCookie(long v) {
        userCookie = v;
        return this;
    }

    /** {@return {@code status} of a DTO or RMR bind completion} */
    public DtoCompletionStatus status() {
        return status;
    }

    /**
     * Sets {@code status}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent status(DtoCompletionStatus v) {
        status = v;
        return this;
    }

    /** {@return {@code transfered_length}: bytes transferred; undefined unless {@link #status()} is SUCCESS} */
    public long transferredLength() {
        return transferredLength;
    }

    /**
     * Sets {@code transfered_length}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent transferredLength(long v) {
        transferredLength = v;
        return this;
    }

    /** {@return {@code rmr_handle} of an RMR bind completion} */
    public Rmr rmr() {
        return rmr;
    }

    /**
     * Sets {@code rmr_handle}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent rmr(Rmr v) {
        rmr = v;
        return this;
    }

    /** {@return {@code sp_handle} of a connection request: the PSP, or {@code null} for an RSP (RSP-03)} */
    public DatHandle spHandle() {
        return spHandle;
    }

    /**
     * Sets {@code sp_handle}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent spHandle(DatHandle v) {
        spHandle = v;
        return this;
    }

    /** {@return {@code local_ia_address_ptr} of a connection request} */
    public SocketAddress localIaAddress() {
        return localIaAddress;
    }

    /**
     * Sets {@code local_ia_address_ptr}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent localIaAddress(SocketAddress v) {
        localIaAddress = v;
        return this;
    }

    /** {@return {@code conn_qual} of a connection request} */
    public long connQual() {
        return connQual;
    }

    /**
     * Sets {@code conn_qual}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent connQual(long v) {
        connQual = v;
        return this;
    }

    /** {@return {@code cr_handle} of a connection request} */
    public ConnectionRequest cr() {
        return cr;
    }

    /**
     * Sets {@code cr_handle}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent cr(ConnectionRequest v) {
        cr = v;
        return this;
    }

    /**
     * {@code private_data} of a connection event; its length is {@code private_data_size}. The array is
     * owned by the provider and valid until the EP is freed or reset (EVW-21); do not modify it.
     *
     * @return the private data bytes (empty when there were none)
     */
    public byte[] privateData() {
        return privateData;
    }

    /** {@return {@code private_data_size} of a connection event} */
    public int privateDataSize() {
        return privateData.length;
    }

    /**
     * Sets {@code private_data}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent privateData(byte[] v) {
        privateData = v == null ? NO_DATA : v;
        return this;
    }

    /** {@return {@code dat_handle} of an asynchronous error: the IA for unaffiliated errors, else the object} */
    public DatHandle asyncHandle() {
        return asyncHandle;
    }

    /**
     * Sets {@code dat_handle} of an asynchronous error.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent asyncHandle(DatHandle v) {
        asyncHandle = v;
        return this;
    }

    /** {@return {@code reason} of an asynchronous error (API.md §3.6, e.g. {@link AsyncReason#EVD_OVERFLOW_ERROR})} */
    public int reason() {
        return reason;
    }

    /**
     * Sets {@code reason}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent reason(int v) {
        reason = v;
        return this;
    }

    /** {@return {@code software_event_data.pointer}: opaque to the provider} */
    public Object softwarePointer() {
        return softwarePointer;
    }

    /**
     * Sets {@code software_event_data.pointer}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent softwarePointer(Object v) {
        softwarePointer = v;
        return this;
    }

    /**
     * {@code nmore} of the last {@link EventDispatcher#waitFor}: events still queued after it returned
     * (valid after success and after a timeout).
     *
     * @return the number of events still queued
     */
    public int nmore() {
        return nmore;
    }

    /**
     * Sets {@code nmore}.
     *
     * @param v the new value
     * @return this
     */
    public DatEvent nmore(int v) {
        nmore = v;
        return this;
    }

    @Override
    public String toString() {
        return "DatEvent{" + eventNumber + (status != null ? ", status=" + status + ", len=" + transferredLength
                + ", cookie=" + userCookie : "") + (privateData.length > 0 ? ", pd=" + privateData.length + "B" : "")
                + (asyncHandle != null ? ", handle=" + asyncHandle + ", reason=" + reason : "") + "}";
    }
}
