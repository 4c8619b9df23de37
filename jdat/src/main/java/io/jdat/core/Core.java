package io.jdat.core;

import io.jdat.Cno;
import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.ProtectionZone;
import io.jdat.Registry;
import io.jdat.SharedReceiveQueue;

/**
 * The entry points the public API's static factories call, and the handle checks that turn a public
 * handle into its core object ({@code DAT_INVALID_HANDLE} for {@code null}, foreign, freed, or
 * another IA's objects).
 */
public final class Core {
    private Core() {
    }

    /**
     * {@code dat_ia_openv}: resolves the name in the {@link Registry} and opens the IA.
     *
     * @param iaName          the IA name
     * @param asyncEvdMinQlen minimum async EVD length
     * @param asyncEvd        a consumer async EVD, {@code null}, or {@link EventDispatcher#ASYNC_EXISTS}
     * @param major           requested major version
     * @param minor           requested minor version
     * @param threadSafe      thread safety requested
     * @param openIas         the registry's count of open IAs, told of this open and of the IA's close
     * @return the open IA
     */
    public static InterfaceAdapter iaOpen(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, int major,
            int minor, boolean threadSafe, OpenIaCount openIas) {
        return CoreIa.open(iaName, asyncEvdMinQlen, asyncEvd, major, minor, threadSafe, openIas);
    }

    /**
     * The core IA behind a handle.
     *
     * @param ia a public handle
     * @return the live core IA
     */
    public static CoreIa ia(InterfaceAdapter ia) {
        if (ia instanceof CoreIa c) {
            c.checkAlive();
            return c;
        }
        throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_IA, "not an open IA: " + ia);
    }

    /**
     * The core PZ behind a handle.
     *
     * @param pz a public handle
     * @return the live core PZ
     */
    public static CorePz pz(ProtectionZone pz) {
        if (pz instanceof CorePz c) {
            c.checkAlive();
            return c;
        }
        throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_PZ, "not a PZ: " + pz);
    }

    /** A PZ argument of {@code ia}; {@code null} passes only when {@code nullable}. */
    static CorePz pzArg(ProtectionZone pz, CoreIa ia, boolean nullable) {
        if (pz == null && nullable) {
            return null;
        }
        CorePz c = pz(pz);
        if (c.ia != ia) {
            throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_PZ, "PZ of another IA");
        }
        return c;
    }

    /** An EVD argument of {@code ia}; {@code null} passes. */
    static CoreEvd evdArg(EventDispatcher evd, CoreIa ia, DatReturnSubtype subtype) {
        if (evd == null) {
            return null;
        }
        if (evd instanceof CoreEvd c && !c.freed && c.ia == ia) {
            return c;
        }
        throw Fail.handle(subtype, "not a live EVD of this IA: " + evd);
    }

    /** A CNO argument of {@code ia}; {@code null} passes. */
    static CoreCno cnoArg(Cno cno, CoreIa ia) {
        if (cno == null) {
            return null;
        }
        if (cno instanceof CoreCno c && !c.freed && c.ia == ia) {
            return c;
        }
        throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_CNO, "not a live CNO of this IA: " + cno);
    }

    /** An EP argument of {@code ia} ({@code ia == null}: any IA); {@code null} fails. */
    static CoreEp epArg(Endpoint ep, CoreIa ia) {
        if (ep instanceof CoreEp c && !c.freed && (ia == null || c.ia == ia)) {
            return c;
        }
        throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EP, "not a live EP" + (ia == null ? "" : " of this IA")
                + ": " + ep);
    }

    /** An SRQ argument of {@code ia}; {@code null} fails. */
    static CoreSrq srqArg(SharedReceiveQueue srq, CoreIa ia) {
        if (srq instanceof CoreSrq c && !c.freed && c.ia == ia) {
            return c;
        }
        throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_SRQ, "not a live SRQ of this IA: " + srq);
    }

    /** An LMR argument of {@code ia}; {@code null} fails. */
    static CoreLmr lmrArg(Lmr lmr, CoreIa ia) {
        if (lmr instanceof CoreLmr c && !c.freed && c.ia == ia) {
            return c;
        }
        throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_LMR, "not a live LMR of this IA: " + lmr);
    }
}
