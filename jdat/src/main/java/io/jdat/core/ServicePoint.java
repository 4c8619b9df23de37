package io.jdat.core;

import io.jdat.AsyncReason;
import io.jdat.DatReturnSubtype;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.HandleType;
import io.jdat.spi.IncomingHandler;
import io.jdat.spi.Transport;

/**
 * A PSP or RSP: listens on a qualifier of its IA through a transport {@link Transport.Listener} and posts
 * {@code DAT_CONNECTION_REQUEST_EVENT}s to its CR EVD; {@code dat_cr_handoff} finds it by qualifier. The
 * common part of {@link CorePsp} and {@link CoreRsp}: the EVD, the listener and its failure report, and
 * {@code dat_psp_free} / {@code dat_rsp_free}.
 */
abstract sealed class ServicePoint extends CoreObject implements IncomingHandler permits CorePsp, CoreRsp {
    /**
     * The event of {@link #acceptFailing}, resolved when this class loads: once the fds are exhausted no
     * class file can be opened.
     */
    private static final EventNumber ACCEPT_FAILING = EventNumber.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR;

    /** The CR EVD. */
    final CoreEvd evd;
    /** Set once by the subclass's {@code create}, before the service point is published. */
    Transport.Listener listener;
    /** The qualifier it listens on; set once before the service point is published. */
    long qual;

    ServicePoint(CoreIa ia, HandleType type, DatReturnSubtype invalidSubtype, CoreEvd evd) {
        super(ia, type, invalidSubtype);
        this.evd = evd;
    }

    /**
     * The CR EVD of a new service point: it must have {@code DAT_EVD_CR_FLAG} (PSP-08), else
     * {@code DAT_INVALID_HANDLE_EVD_CR} with {@code refusal}.
     */
    static CoreEvd crEvd(CoreIa ia, EventDispatcher handle, String refusal) {
        CoreEvd evd = Core.evdArg(handle, ia, DatReturnSubtype.INVALID_HANDLE_EVD_CR);
        if (evd == null || !evd.accepts(EvdFlags.CR)) {
            throw Fail.handle(DatReturnSubtype.INVALID_HANDLE_EVD_CR, refusal);
        }
        return evd;
    }

    /** Publishes the service point: its EVD counts it as a user and the IA finds it by qualifier. */
    final void publish() {
        evd.attachOther();
        ia.addServicePoint(this);
    }

    /** {@return the qualifier it listens on} ({@code dat_psp_query}'s {@code conn_qual}) */
    public final long connQual() {
        return qual;
    }

    /**
     * The listener cannot accept (issue 14): {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} on the IA's async
     * EVD, {@code dat_handle} this service point, reason {@code DAT_IA_OTHER_ERROR} (docs/listeners.md).
     */
    @Override
    public final void acceptFailing(Throwable cause, boolean stopped) {
        if (!freed) {
            // Both subclasses are DatHandles (PublicServicePoint, ReservedServicePoint); DatHandle is sealed.
            ia.asyncError(ACCEPT_FAILING, (io.jdat.DatHandle) this, AsyncReason.IA_OTHER_ERROR, null);
        }
    }

    /**
     * Posts {@code DAT_CONNECTION_REQUEST_EVENT} for {@code cr} with {@code sp} as its service point
     * ({@code null} for an RSP, RSP-03). {@return false when the EVD cannot take it: the CR is gone then,
     * never handed to the consumer}
     */
    final boolean postRequest(CoreCr cr, io.jdat.DatHandle sp) {
        if (evd.postCr(sp, ia.transport.address(), qual, cr)) {
            return true;
        }
        cr.markFreedOnce();
        ia.unregister(cr);
        return false;
    }

    /** {@code dat_psp_free} / {@code dat_rsp_free}. */
    public final void free() {
        markFreed();
        stop();
        released();
        ia.unregister(this);
    }

    @Override
    final void destroy() {
        if (markFreedOnce()) {
            stop();
            released();
        }
    }

    /** Stops listening and leaves the IA and the EVD. */
    final void stop() {
        listener.close();
        ia.removeServicePoint(this);
        evd.detachOther();
    }

    /** What the subclass gives back when it is freed or destroyed (after {@link #stop}). */
    abstract void released();
}
