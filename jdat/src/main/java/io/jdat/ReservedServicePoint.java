package io.jdat;

import io.jdat.core.Core;

/**
 * A Reserved Service Point ({@code DAT_RSP_HANDLE}): a one-shot listener bound to one Endpoint, which
 * it moves to {@link EpState#RESERVED}. It delivers at most one request and then destroys itself.
 * Thread-safe.
 */
public sealed interface ReservedServicePoint extends DatHandle, AutoCloseable permits io.jdat.core.CoreRsp {
    /**
     * {@code dat_rsp_create}.
     *
     * @param ia       the IA
     * @param connQual the connection qualifier
     * @param ep       an UNCONNECTED EP of this IA, or {@code null} for an EP the provider creates (RSP-09;
     *                 {@link #query} names it, and {@link Endpoint#modify} supplies its PZ and EVDs)
     * @param evd      an EVD created with {@link EvdFlags#CR}
     * @return the RSP
     * @throws DatException {@code DAT_INVALID_STATE} (EP not UNCONNECTED), {@code DAT_CONN_QUAL_IN_USE},
     *                      {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static ReservedServicePoint create(InterfaceAdapter ia, long connQual, Endpoint ep, EventDispatcher evd) {
        return Core.ia(ia).rspCreate(connQual, ep, evd);
    }

    /**
     * {@code dat_rsp_query}.
     *
     * @param rspParamMask {@code DAT_RSP_PARAM_MASK}
     * @return the parameters
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    RspParam query(long rspParamMask);

    /**
     * {@code dat_rsp_free}: stops listening and returns the EP to {@link EpState#UNCONNECTED}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void free();

    /** {@link #free()}, for try-with-resources. */
    @Override
    default void close() {
        free();
    }
}
