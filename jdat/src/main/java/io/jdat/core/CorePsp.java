package io.jdat.core;

import io.jdat.AsyncReason;
import io.jdat.DatReturnSubtype;
import io.jdat.EventDispatcher;
import io.jdat.EvdFlags;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.PspFlags;
import io.jdat.PspParam;
import io.jdat.PublicServicePoint;
import io.jdat.spi.IncomingRequest;
import io.jdat.spi.Transport;

/**
 * {@code DAT_PSP_HANDLE}: turns every request on its qualifier into a CR and a
 * {@code DAT_CONNECTION_REQUEST_EVENT}; with {@link PspFlags#PROVIDER} it also creates the EP (PSP-04).
 */
public final class CorePsp extends CoreObject implements PublicServicePoint, ServicePoint {
    /**
     * The event of {@link #acceptFailing}, resolved when this class loads: once the fds are exhausted no
     * class file can be opened.
     */
    private static final EventNumber ACCEPT_FAILING = EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;

    private final CoreEvd evd;
    private final int flags;
    private Transport.Listener listener;
    private long qual;

    private CorePsp(CoreIa ia, CoreEvd evd, int flags) {
        super(ia, HandleType.PSP, DatReturnSubtype.INVALID_HANDLE_PSP);
        this.evd = evd;
        this.flags = flags;
    }

    static CorePsp create(CoreIa ia, long qual, boolean any, EventDispatcher evdHandle, int flags) {
        CoreEvd evd = Core.evdArg(evdHandle, ia, DatReturnSubtype.INVALID_HANDLE_EVD_CR);
        if (evd == null || !evd.accepts(EvdFlags.CR)) {
            throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_CR, "PSP needs an EVD with DAT_EVD_CR_FLAG (PSP-08)");
        }
        if (flags != PspFlags.CONSUMER && flags != PspFlags.PROVIDER) {
            throw Fail.param(any ? 4 : 4, "undefined PSP flags " + flags + " (PSP-06)");
        }
        CorePsp psp = new CorePsp(ia, evd, flags);
        psp.listener = ia.transport.listen(qual, any, psp);
        psp.qual = psp.listener.connQual();
        evd.attachOther();
        ia.addServicePoint(psp);
        return psp;
    }

    @Override
    public long connQual() {
        return qual;
    }

    /**
     * The listener of this PSP cannot accept (issue 14): {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} on the
     * IA's async EVD, {@code dat_handle} this PSP, reason {@code DAT_IA_OTHER_ERROR} (docs/listeners.md).
     */
    @Override
    public void acceptFailing(Throwable cause, boolean stopped) {
        if (!freed) {
            ia.asyncError(ACCEPT_FAILING, this, AsyncReason.IA_OTHER_ERROR, null);
        }
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
        if (!evd.postCr(this, ia.transport.address(), qual, cr)) {
            cr.freed = true;
            ia.unregister(cr);
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
        checkAlive();
        Fail.checkMask(mask, PspParam.FIELD_ALL, 2);
        return new PspParam(ia, qual, evd, flags);
    }

    @Override
    public void free() {
        synchronized (this) {
            checkAlive();
            freed = true;
        }
        stop();
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
    }
}
