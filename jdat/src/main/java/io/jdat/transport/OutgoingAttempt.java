package io.jdat.transport;

import io.jdat.spi.Transport;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The part of an outgoing connection attempt ({@code dat_ep_connect}) that is the same for every transport:
 * the local port qualifier it connects from, and the rule that its outcome (established, rejected,
 * unreachable) is reported at most once and never after a cancel. Whoever wants to report an outcome first
 * {@link #finish() claims} it; the core's {@link #cancel} (its connect timeout, or the EP going away) wins
 * only while nothing was claimed, and then the subclass releases what the attempt holds ({@link #cancelled}).
 * An attempt that runs on its own thread ({@link #launch}) stays in its transport's
 * {@link IaTransport#attempts} until then, so that {@code dat_ia_close} cancels it.
 */
public abstract class OutgoingAttempt implements Transport.ConnectAttempt {
    private static final int PENDING = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;

    private final IaTransport<?, ?> transport;
    private final long localPortQual;
    /** PENDING until the one compare-and-set of {@link #finish} or {@link #cancel}. */
    private final AtomicInteger state = new AtomicInteger(PENDING);

    /**
     * @param transport     the transport of the IA that connects
     * @param localPortQual the local port qualifier the attempt connects from ({@code dat_ep_query}'s)
     */
    protected OutgoingAttempt(IaTransport<?, ?> transport, long localPortQual) {
        this.transport = transport;
        this.localPortQual = localPortQual;
    }

    /**
     * Joins the transport's {@link IaTransport#attempts} and runs the attempt on a virtual thread.
     *
     * @param threadName the thread's name
     * @param steps      the attempt's steps, which end in {@link #finish} (or find the attempt cancelled)
     */
    protected final void launch(String threadName, Runnable steps) {
        VirtualThreadPoller.start();
        transport.attempts.add(this);
        Thread.ofVirtual().name(threadName).start(steps);
    }

    @Override
    public final long localPortQual() {
        return localPortQual;
    }

    /** {@return true while no outcome was claimed and the attempt was not cancelled} */
    public final boolean pending() {
        return state.get() == PENDING;
    }

    /**
     * Claims the outcome; either way the attempt leaves the transport's {@link IaTransport#attempts}.
     *
     * @return true for the one caller that may report the outcome: false if cancelled or already claimed
     */
    public final boolean finish() {
        boolean first = state.compareAndSet(PENDING, DONE);
        transport.attempts.remove(this);
        return first;
    }

    /** Cancels the attempt unless its outcome was claimed; it leaves the transport's {@link IaTransport#attempts}. */
    @Override
    public final void cancel() {
        if (state.compareAndSet(PENDING, CANCELLED)) {
            transport.attempts.remove(this);
            cancelled();
        }
    }

    /** The attempt was cancelled before an outcome was claimed: release what it holds (called once). */
    protected abstract void cancelled();
}
