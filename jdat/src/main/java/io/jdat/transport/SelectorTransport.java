package io.jdat.transport;

import io.jdat.spi.TransportLimits;
import java.net.SocketAddress;

/**
 * An {@link IaTransport} whose IA makes progress on a {@link ProgressThread} ({@code shm}, {@code tcp}): the
 * consumer's side of the hand-over with that thread, the same for every such transport. A consumer that polls
 * or spin-waits on an event dispatcher of the IA makes progress itself ({@link #progress}), and tells the thread
 * when it dequeues ({@link #eventDequeued}) and when it stops to park in a wait ({@link #pollerIdle}).
 *
 * @param <A> the kind of address the transport's IAs have
 * @param <C> the transport's connection type
 * @param <P> the transport's progress thread
 */
public abstract class SelectorTransport<A extends SocketAddress, C, P extends ProgressThread<?>>
        extends IaTransport<A, C> {
    /** The IA's progress thread (its connections, tasks and idle strategy). */
    public final P progress;

    /**
     * @param name     the transport's library name ({@code "shm"}, {@code "tcp"}): its log's name
     * @param address  the IA address ({@code dat_ia_query}'s {@code ia_address_ptr})
     * @param limits   what the transport can carry
     * @param progress the IA's progress thread; the transport stops it in {@link #releaseResources}
     */
    protected SelectorTransport(String name, A address, TransportLimits limits, P progress) {
        super(name, address, limits);
        this.progress = progress;
    }

    /** {@inheritDoc} On the calling thread: {@link ProgressThread#poll}. */
    @Override
    public final boolean progress() {
        return progress.poll();
    }

    /** {@inheritDoc} The progress thread takes over now ({@link ProgressThread#pollerIdle}). */
    @Override
    public final void pollerIdle() {
        progress.pollerIdle();
    }

    /** {@inheritDoc} Counted as the consumer's presence ({@link ProgressThread#eventDequeued}). */
    @Override
    public final void eventDequeued() {
        progress.eventDequeued();
    }
}
