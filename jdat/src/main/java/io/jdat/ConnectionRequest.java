package io.jdat;

/**
 * A pending Connection Request ({@code DAT_CR_HANDLE}), delivered by a
 * {@code DAT_CONNECTION_REQUEST_EVENT}. Accept, reject and handoff destroy it; afterwards every call
 * fails with {@code DAT_INVALID_HANDLE}. Thread-safe; exactly one of those calls succeeds.
 */
public sealed interface ConnectionRequest extends DatHandle permits io.jdat.core.CoreCr {
    /**
     * {@code dat_cr_query}.
     *
     * @param crParamMask {@code DAT_CR_PARAM_MASK}
     * @return the request's parameters, including a copy of the requester's private data
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    CrParam query(long crParamMask);

    /**
     * {@code dat_cr_accept}: accepts asynchronously; {@code DAT_CONNECTION_EVENT_ESTABLISHED} or
     * {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR} follows on the EP's connect EVD.
     *
     * @param ep              the accepting EP, or {@code null} when the request carries one (RSP,
     *                        provider-created EP)
     * @param privateDataSize bytes of {@code privateData} to return to the requester
     * @param privateData     the private data ({@code null} allowed when the size is 0)
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_STATE}
     *                      (EP in the wrong state; the request is kept, CRA-05)
     */
    void accept(Endpoint ep, int privateDataSize, byte[] privateData);

    /**
     * {@code dat_cr_reject}: the requester gets {@code DAT_CONNECTION_EVENT_PEER_REJECTED}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void reject();

    /**
     * {@code dat_cr_handoff}: passes the request to the service point listening on {@code handoff} of
     * the same IA, which delivers it as a new request.
     *
     * @param handoff the connection qualifier
     * @throws DatException {@code DAT_INVALID_PARAMETER} (nobody listens there), {@code DAT_INVALID_HANDLE}
     */
    void handoff(long handoff);
}
