package io.jdat;

import io.jdat.core.Core;

/**
 * A Public Service Point ({@code DAT_PSP_HANDLE}): a persistent listener on a connection qualifier.
 * Every request becomes a {@link ConnectionRequest} and a {@code DAT_CONNECTION_REQUEST_EVENT} on its
 * EVD, whose queue length is the backlog. Thread-safe.
 */
public sealed interface PublicServicePoint extends DatHandle, AutoCloseable permits io.jdat.core.CorePsp {
    /**
     * {@code dat_psp_create}: listens once this returns.
     *
     * @param ia       the IA
     * @param connQual the connection qualifier
     * @param evd      an EVD created with {@link EvdFlags#CR}
     * @param pspFlags {@link PspFlags}
     * @return the PSP
     * @throws DatException {@code DAT_CONN_QUAL_IN_USE}, {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER},
     *                      {@code DAT_MODEL_NOT_SUPPORTED}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static PublicServicePoint create(InterfaceAdapter ia, long connQual, EventDispatcher evd, int pspFlags) {
        return Core.ia(ia).pspCreate(connQual, false, evd, pspFlags);
    }

    /**
     * {@code dat_psp_create_any}: as {@link #create} on a free qualifier the provider picks; the OUT
     * {@code conn_qual} is {@link #connQual()}.
     *
     * @param ia       the IA
     * @param evd      an EVD created with {@link EvdFlags#CR}
     * @param pspFlags {@link PspFlags}
     * @return the PSP
     * @throws DatException {@code DAT_CONN_QUAL_UNAVAILABLE}, and as {@link #create}
     */
    static PublicServicePoint createAny(InterfaceAdapter ia, EventDispatcher evd, int pspFlags) {
        return Core.ia(ia).pspCreate(0, true, evd, pspFlags);
    }

    /** {@return the connection qualifier it listens on (the OUT value of {@code dat_psp_create_any})} */
    long connQual();

    /**
     * {@code dat_psp_query}.
     *
     * @param pspParamMask {@code DAT_PSP_PARAM_MASK}
     * @return the parameters
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    PspParam query(long pspParamMask);

    /**
     * {@code dat_psp_free}: stops listening; requests already delivered are unaffected.
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
