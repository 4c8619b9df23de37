package io.jdat;

import io.jdat.core.Core;

/**
 * A Remote Memory Region ({@code DAT_RMR_HANDLE}, a memory window): a lightweight, re-bindable grant of
 * remote access to part of an LMR. Every bind yields a new context; the previous one stops working.
 * Thread-safe.
 */
public sealed interface Rmr extends DatHandle, AutoCloseable permits io.jdat.core.CoreRmr {
    /**
     * {@code dat_rmr_create}: an unbound RMR.
     *
     * @param pz the Protection Zone
     * @return the RMR
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static Rmr create(ProtectionZone pz) {
        return Core.pz(pz).rmrCreate();
    }

    /**
     * {@code dat_rmr_query}.
     *
     * @param rmrParamMask {@code DAT_RMR_PARAM_MASK}
     * @return the parameters
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    RmrParam query(long rmrParamMask);

    /**
     * {@code dat_rmr_bind}: binds the RMR to a range of an LMR through {@code ep}'s request queue; the
     * completion is a {@code DAT_RMR_BIND_COMPLETION_EVENT} on the EP's request EVD. A zero-length
     * triplet unbinds.
     *
     * @param lmrTriplet      the range (its LMR must be in the RMR's PZ)
     * @param memPrivileges   {@link MemPriv#REMOTE_READ} and/or {@link MemPriv#REMOTE_WRITE}
     * @param ep              the EP whose request queue carries the bind (in its PZ)
     * @param userCookie      echoed in the completion
     * @param completionFlags {@link CompletionFlags#SUPPRESS}, {@code UNSIGNALLED}, {@code BARRIER_FENCE}
     * @return the new {@code rmr_context} (undefined for an unbind)
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE},
     *                      {@code DAT_INVALID_STATE}, {@code DAT_PRIVILEGES_VIOLATION},
     *                      {@code DAT_PROTECTION_VIOLATION}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    int bind(LmrTriplet lmrTriplet, int memPrivileges, Endpoint ep, long userCookie, int completionFlags);

    /**
     * {@code dat_rmr_free}: unbinds if bound, then destroys.
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
