package io.jdat.core;

import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.HandleType;
import io.jdat.ReservedServicePoint;
import io.jdat.RspParam;
import io.jdat.spi.IncomingRequest;

/**
 * {@code DAT_RSP_HANDLE}: listens for one request for one EP (RSP-02); the arrival destroys the RSP and
 * moves the EP to PASSIVE_CONNECTION_PENDING (RSP-03).
 */
public final class CoreRsp extends ServicePoint implements ReservedServicePoint {
    private final CoreEp ep;

    private CoreRsp(CoreIa ia, long qual, CoreEp ep, CoreEvd evd) {
        super(ia, HandleType.RSP, DatReturnSubtype.INVALID_HANDLE_RSP, evd);
        this.qual = qual;
        this.ep = ep;
    }

    static CoreRsp create(CoreIa ia, long qual, Endpoint epHandle, EventDispatcher evdHandle) {
        CoreEvd evd = crEvd(ia, evdHandle, "RSP needs an EVD with DAT_EVD_CR_FLAG");
        CoreEp ep;
        if (epHandle == null) {
            ep = CoreEp.createProviderEp(ia); // RSP-09
            ia.register(ep);
        } else {
            ep = Core.epArg(epHandle, ia);
        }
        CoreRsp rsp = new CoreRsp(ia, qual, ep, evd);
        ep.reserve(rsp);
        try {
            rsp.listener = ia.transport.listen(qual, false, rsp);
        } catch (RuntimeException e) {
            ep.unreserve(rsp);
            if (epHandle == null) {
                ep.destroy(); // the provider EP made for this RSP goes with it
                ia.unregister(ep);
            }
            throw e;
        }
        rsp.publish();
        return rsp;
    }

    @Override
    public boolean onRequest(IncomingRequest request) {
        if (!markFreedOnce()) {
            return false; // freed, or its one request was delivered
        }
        CoreCr cr = new CoreCr(ia, request);
        cr.carriedEp = ep;
        ep.reservedRequestArrived(cr);
        stop();
        ia.unregister(this);
        try {
            ia.register(cr);
        } catch (RuntimeException e) {
            ep.requestRejected();
            return false;
        }
        if (!postRequest(cr, null)) {
            ep.requestRejected();
            return false;
        }
        return true;
    }

    @Override
    public RspParam query(long mask) {
        checkAliveAndMask(mask, RspParam.FIELD_ALL);
        return new RspParam(ia, qual, evd, ep);
    }

    @Override
    void released() {
        ep.unreserve(this); // the EP is the consumer's again
    }
}
