package io.jdat.core;

import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatReturnSubtype;
import io.jdat.Endpoint;
import io.jdat.HandleType;
import io.jdat.spi.IncomingRequest;

/**
 * {@code DAT_CR_HANDLE}: a pending request. Exactly one of accept, reject or handoff consumes it
 * (CRA-08, CRJ-02, CRH-01); an abrupt IA close refuses it.
 */
public final class CoreCr extends CoreObject implements ConnectionRequest {
    final IncomingRequest request;
    /** The EP the request carries (RSP or provider-created), or {@code null} (consumer PSP). */
    CoreEp carriedEp;

    CoreCr(CoreIa ia, IncomingRequest request) {
        super(ia, HandleType.CR, DatReturnSubtype.INVALID_HANDLE_CR);
        this.request = request;
    }

    @Override
    public CrParam query(long mask) {
        checkAliveAndMask(mask, CrParam.FIELD_ALL);
        IncomingRequest.Fields f = request.fields();
        return new CrParam(f.remoteAddress(), f.remotePortQual(), f.privateData().clone(), carriedEp);
    }

    @Override
    public void accept(Endpoint ep, int privateDataSize, byte[] privateData) {
        checkAlive();
        CoreEp target;
        if (carriedEp != null) {
            if (ep != null && ep != carriedEp) {
                throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EP, "the request already carries an EP (CRA-02)");
            }
            target = carriedEp;
        } else {
            if (ep == null) {
                throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EP, "no EP to accept with (CRA-02)");
            }
            target = Core.epArg(ep, ia);
        }
        byte[] pd = target.privateData(privateDataSize, privateData, 3);
        synchronized (this) {
            checkAlive();
            target.accept(this, pd);
            markFreed();
        }
        ia.unregister(this);
    }

    @Override
    public void reject() {
        synchronized (this) { // against a racing accept, which holds the monitor while the EP accepts
            markFreed();
        }
        request.reject();
        if (carriedEp != null) {
            carriedEp.requestRejected();
        }
        ia.unregister(this);
    }

    @Override
    public void handoff(long qual) {
        checkAlive();
        ServicePoint sp = ia.servicePoint(qual);
        if (sp == null) {
            throw Fail.param(2, "no service point of this IA listens on " + qual + " (CRH-01)");
        }
        synchronized (this) {
            markFreed();
        }
        ia.unregister(this);
        if (carriedEp != null) {
            carriedEp.requestRejected();
        }
        if (!sp.onRequest(request)) {
            request.refuse();
        }
    }

    @Override
    void destroy() {
        synchronized (this) {
            if (!markFreedOnce()) {
                return;
            }
        }
        request.refuse();
    }
}
