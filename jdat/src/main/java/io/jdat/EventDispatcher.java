package io.jdat;

import io.jdat.core.Core;

/**
 * An Event Dispatcher ({@code DAT_EVD_HANDLE}): a bounded queue of {@link DatEvent}s fed by event
 * streams (DTO and RMR bind completions, connection requests and events, asynchronous errors, software
 * events).
 *
 * <p><b>Concurrency:</b> any number of threads may produce into an EVD and dequeue from it; each event is
 * delivered exactly once. A thread blocked in {@link #waitFor} owns the EVD: a concurrent wait or
 * dequeue fails with {@code DAT_INVALID_STATE} (EVW-11). Waiting spins briefly, then parks: it burns no
 * core while idle, works from virtual threads, and returns {@code DAT_ABORT} when the EVD is freed or its
 * IA closed. {@link #dequeue} never blocks and allocates nothing.
 */
public sealed interface EventDispatcher extends DatHandle, AutoCloseable permits io.jdat.core.CoreEvd, io.jdat.core.SentinelEvd {
    /** {@code DAT_EVD_ASYNC_EXISTS}: passed to {@code dat_ia_open}, an async EVD exists elsewhere. */
    EventDispatcher ASYNC_EXISTS = new io.jdat.core.SentinelEvd("DAT_EVD_ASYNC_EXISTS");

    /** {@code DAT_EVD_OUT_OF_SCOPE}: reported by {@code dat_ia_query} for an IA opened with {@link #ASYNC_EXISTS}. */
    EventDispatcher OUT_OF_SCOPE = new io.jdat.core.SentinelEvd("DAT_EVD_OUT_OF_SCOPE");

    /**
     * {@code dat_evd_create}.
     *
     * @param ia        the IA
     * @param evdMinQlen the minimum queue length (&gt; 0; the actual length is reported by {@link #query})
     * @param cno       a CNO to trigger, or {@code null}
     * @param evdFlags  the {@link EvdFlags} streams the EVD accepts
     * @return the EVD, enabled and waitable
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE},
     *                      {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static EventDispatcher create(InterfaceAdapter ia, int evdMinQlen, Cno cno, int evdFlags) {
        return Core.ia(ia).evdCreate(evdMinQlen, cno, evdFlags);
    }

    /**
     * {@code dat_evd_query}.
     *
     * @param evdParamMask {@code DAT_EVD_PARAM_MASK}
     * @return the parameters
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    EvdParam query(long evdParamMask);

    /**
     * {@code dat_evd_modify_cno}: attaches, replaces or (with {@code null}) detaches the CNO.
     *
     * @param cno the new CNO or {@code null}
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void modifyCno(Cno cno);

    /**
     * {@code dat_evd_enable}: lets notifying events trigger the CNO (no-op when enabled).
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void enable();

    /**
     * {@code dat_evd_disable}: stops CNO triggering; does not affect direct waiters.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void disable();

    /**
     * {@code dat_evd_wait}: blocks until at least {@code threshold} events are queued (and one of them
     * notifies), then dequeues the head event into {@code event}.
     *
     * @param timeout   microseconds, read as unsigned; {@link Dat#TIMEOUT_INFINITE} waits without limit;
     *                  0 only checks
     * @param threshold 1 ≤ threshold ≤ queue length
     * @param event     receives the event on success; its {@link DatEvent#nmore()} receives {@code nmore}
     *                  on success and on timeout
     * @return {@code true} on {@code DAT_SUCCESS}; {@code false} for {@code DAT_TIMEOUT_EXPIRED} (no event
     *         removed)
     * @throws DatException {@code DAT_INVALID_PARAMETER} (threshold), {@code DAT_INVALID_STATE} (another
     *                      waiter, unwaitable EVD, threshold &gt; 1 on a consumer-notification EVD),
     *                      {@code DAT_ABORT} (EVD freed or IA closed), {@code DAT_INTERRUPTED_CALL} (thread
     *                      interrupted; the interrupt status stays set), {@code DAT_INVALID_HANDLE}
     */
    boolean waitFor(int timeout, int threshold, DatEvent event);

    /**
     * {@code dat_evd_dequeue}: removes the head event without blocking.
     *
     * @param event receives the event
     * @return {@code true} on {@code DAT_SUCCESS}; {@code false} for {@code DAT_QUEUE_EMPTY}
     * @throws DatException {@code DAT_INVALID_PARAMETER} ({@code DAT_INVALID_ARG2}) when {@code event} is
     *                      {@code null}, {@code DAT_INVALID_STATE} while a waiter owns the EVD,
     *                      {@code DAT_INVALID_HANDLE}
     */
    boolean dequeue(DatEvent event);

    /**
     * {@code dat_evd_post_se}: enqueues a consumer software event.
     *
     * @param event an event whose number is {@link EventNumber#SOFTWARE_EVENT}; its pointer is copied
     * @throws DatException {@code DAT_QUEUE_FULL} (not queued), {@code DAT_INVALID_PARAMETER} (not a software
     *                      event, or the EVD lacks {@link EvdFlags#SOFTWARE}), {@code DAT_INVALID_HANDLE}
     */
    void postSe(DatEvent event);

    /**
     * {@code dat_evd_resize}: changes the queue length without losing events.
     *
     * @param evdMinQlen the new minimum length
     * @throws DatException {@code DAT_INVALID_STATE} (more events queued, or a waiter is blocked),
     *                      {@code DAT_INVALID_PARAMETER}, {@code DAT_INSUFFICIENT_RESOURCES},
     *                      {@code DAT_INVALID_HANDLE}
     */
    void resize(int evdMinQlen);

    /**
     * {@code dat_evd_set_unwaitable}: forbids {@link #waitFor}; a blocked waiter returns
     * {@code DAT_INVALID_STATE}.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void setUnwaitable();

    /**
     * {@code dat_evd_clear_unwaitable}: permits waiting again.
     *
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void clearUnwaitable();

    /**
     * {@code dat_evd_free}: destroys the EVD; queued events are lost.
     *
     * @throws DatException {@code DAT_INVALID_STATE} ({@code EVD_IN_USE}) while EPs, service points or an IA
     *                      still feed it, {@code DAT_INVALID_HANDLE}
     */
    void free();

    /** {@link #free()}, for try-with-resources. */
    @Override
    default void close() {
        free();
    }
}
