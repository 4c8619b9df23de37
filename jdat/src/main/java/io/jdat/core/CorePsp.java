package io.jdat.core;

import io.jdat.DatReturnSubtype;
import io.jdat.EventDispatcher;
import io.jdat.HandleType;
import io.jdat.PspFlags;
import io.jdat.PspParam;
import io.jdat.PublicServicePoint;
import io.jdat.spi.IncomingRequest;

/**
 * {@code DAT_PSP_HANDLE}: turns every request on its qualifier into a CR and a
 * {@code DAT_CONNECTION_REQUEST_EVENT}; with {@link PspFlags#PROVIDER} it also creates the EP (PSP-04).
 */
public final class CorePsp extends ServicePoint implements PublicServicePoint {
    private final int flags;

    private CorePsp(CoreIa ia, CoreEvd evd, int flags) {
        super(ia, HandleType.PSP, DatReturnSubtype.INVALID_HANDLE_PSP, evd);
        this.flags = flags;
    }

    static CorePsp create(CoreIa ia, long qual, boolean any, EventDispatcher evdHandle, int flags) {
        CoreEvd evd = crEvd(ia, evdHandle, "PSP needs an EVD with DAT_EVD_CR_FLAG (PSP-08)");
        if (flags != PspFlags.CONSUMER && flags != PspFlags.PROVIDER) {
            throw Fail.param(4, "undefined PSP flags " + flags + " (PSP-06)");
        }
        CorePsp psp = new CorePsp(ia, evd, flags);
        psp.listener = ia.transport.listen(qual, any, psp);
        psp.qual = psp.listener.connQual();
        psp.publish();
        return psp;
    }

    @Override
    public boolean onRequest(IncomingRequest request) {
        if (freed) {
            return false;
        }
        CoreCr cr = new CoreCr(ia, request);
        CoreEp ep = null;
        try {
            if (flags == PspFlags.PROVIDER) {
                ep = CoreEp.createForPsp(ia, cr);
                ia.register(ep);
                cr.carriedEp = ep;
            }
            ia.register(cr);
        } catch (RuntimeException e) {
            return false;
        }
        if (!postRequest(cr, this)) {
            if (ep != null) {
                ep.destroy();
                ia.unregister(ep);
            }
            return false;
        }
        return true;
    }

    @Override
    public PspParam query(long mask) {
        checkAliveAndMask(mask, PspParam.FIELD_ALL);
        return new PspParam(ia, qual, evd, flags);
    }

    @Override
    void released() {
        // a PSP holds nothing beyond its listener
    }
}
