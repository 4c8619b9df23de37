package io.jdat.core;

import io.jdat.AsyncReason;
import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.ReservedServicePoint;
import io.jdat.RspParam;
import io.jdat.spi.IncomingRequest;
import io.jdat.spi.Transport;

/**
 * {@code DAT_RSP_HANDLE}: listens for one request for one EP (RSP-02); the arrival destroys the RSP and
 * moves the EP to PASSIVE_CONNECTION_PENDING (RSP-03).
 */
public final class CoreRsp extends CoreObject implements ReservedServicePoint, ServicePoint {
    /**
     * The event of {@link #acceptFailing}, resolved when this class loads: once the fds are exhausted no
     * class file can be opened.
     */
    private static final EventNumber ACCEPT_FAILING = EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;

    private final CoreEvd evd;
    private final CoreEp ep;
    private final long qual;
    private Transport.Listener listener;
    private boolean delivered;

    private CoreRsp(CoreIa ia, long qual, CoreEp ep, CoreEvd evd) {
        super(ia, HandleType.RSP, DatReturnSubtype.INVALID_HANDLE_RSP);
        this.qual = qual;
        this.ep = ep;
        this.evd = evd;
    }

    static CoreRsp create(CoreIa ia, long qual, Endpoint epHandle, EventDispatcher evdHandle) {
        CoreEvd evd = Core.evdArg(evdHandle, ia, DatReturnSubtype.INVALID_HANDLE_EVD_CR);
        if (evd == null || !evd.accepts(EvdFlags.CR)) {
            throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_CR, "RSP needs an EVD with DAT_EVD_CR_FLAG");
        }
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
        evd.attachOther();
        ia.addServicePoint(rsp);
        return rsp;
    }

    @Override
    public long connQual() {
        return qual;
    }

    /**
     * The listener of this RSP cannot accept (issue 14): {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} on the
     * IA's async EVD, {@code dat_handle} this RSP, reason {@code DAT_IA_OTHER_ERROR} (docs/listeners.md).
     */
    @Override
    public void acceptFailing(Throwable cause, boolean stopped) {
        if (!freed) {
            ia.asyncError(ACCEPT_FAILING, this, AsyncReason.IA_OTHER_ERROR, null);
        }
    }

    @Override
    public boolean onRequest(IncomingRequest request) {
        CoreCr cr;
        synchronized (this) {
            if (freed || delivered) {
                return false;
            }
            delivered = true;
            freed = true;
        }
        cr = new CoreCr(ia, request);
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
        if (!evd.postCr(null, ia.transport.address(), qual, cr)) {
            cr.freed = true;
            ia.unregister(cr);
            ep.requestRejected();
            return false;
        }
        return true;
    }

    @Override
    public RspParam query(long mask) {
        checkAlive();
        Fail.checkMask(mask, RspParam.FIELD_ALL, 2);
        return new RspParam(ia, qual, evd, ep);
    }

    @Override
    public void free() {
        synchronized (this) {
            checkAlive();
            freed = true;
        }
        stop();
        ep.unreserve(this);
        ia.unregister(this);
    }

    private void stop() {
        listener.close();
        ia.removeServicePoint(this);
        evd.detachOther();
    }

    @Override
    void destroy() {
        synchronized (this) {
            if (freed) {
                return;
            }
            freed = true;
        }
        stop();
        ep.unreserve(this);
    }
}
