package io.jdat.transport;

import io.jdat.spi.IncomingRequest;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The part of a connection request on the passive side that is the same for every transport: its
 * {@link Fields}, known once the request has been read, and the rule that exactly one answer (accept, reject
 * or refuse) takes effect: a transport's answer first {@link #claimAnswer() claims} the request.
 */
public abstract class ReceivedRequest implements IncomingRequest {
    /** Flipped once by the answer that takes effect (or by an abort that answers nothing). */
    private final AtomicBoolean answered = new AtomicBoolean();
    /**
     * Set once by {@link #arrived}, before the listener's handler sees the request; the core takes the
     * request on from there (its CR's publication through the EVD orders the write before any read).
     */
    private Fields fields;

    /** A request whose fields are known once it has been read ({@link #arrived}). */
    protected ReceivedRequest() {
    }

    /**
     * A request whose fields are known now.
     *
     * @param fields what it carries
     */
    protected ReceivedRequest(Fields fields) {
        this.fields = fields;
    }

    /**
     * The request has been read and checked: its fields, before the listener's handler is called.
     *
     * @param f what it carries
     */
    protected final void arrived(Fields f) {
        fields = f;
    }

    @Override
    public final Fields fields() {
        return fields;
    }

    /** {@return true for the one answer that takes effect}: false once the request was answered or dropped */
    protected final boolean claimAnswer() {
        return answered.compareAndSet(false, true);
    }

    /**
     * The IA closes ({@link IaTransport#close}), or the request cannot be served: drops it and releases what
     * it holds (its stream, its mapping); a requester still waiting hears no answer but a refusal.
     */
    protected abstract void abort();

    /** The request is dropped without an answer being claimed: no later answer takes effect. */
    protected final void markAnswered() {
        answered.set(true);
    }
}
