package io.jdat;

import io.jdat.core.Core;

/**
 * A Consumer Notification Object ({@code DAT_CNO_HANDLE}): one place to wait for several EVDs. An
 * enabled EVD without a direct waiter triggers its CNO when a notifying event arrives. Thread-safe; at
 * most one thread waits at a time.
 */
public sealed interface Cno extends DatHandle, AutoCloseable permits io.jdat.core.CoreCno {
    /**
     * {@code dat_cno_create}.
     *
     * @param ia    the IA
     * @param agent a proxy agent called on every trigger, or {@code null}
     * @return the CNO, with no EVDs attached
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static Cno create(InterfaceAdapter ia, ProxyAgent agent) {
        return Core.ia(ia).cnoCreate(agent);
    }

    /**
     * {@code dat_cno_modify_agent}: replaces the proxy agent; {@code null} removes it.
     *
     * @param agent the new agent
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    void modifyAgent(ProxyAgent agent);

    /**
     * {@code dat_cno_query}.
     *
     * @param cnoParamMask {@code DAT_CNO_PARAM_MASK}
     * @return the parameters
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    CnoParam query(long cnoParamMask);

    /**
     * {@code dat_cno_wait}: blocks until an attached EVD triggers the CNO.
     *
     * @param timeout microseconds (unsigned), or {@link Dat#TIMEOUT_INFINITE}
     * @return the triggering EVD (a hint: poll every attached EVD), or {@code null} for
     *         {@code DAT_QUEUE_EMPTY} (timed out) and for a waiter released because the IA closed or every
     *         attached EVD was freed (CNO-04)
     * @throws DatException {@code DAT_INVALID_STATE} (another thread waits), {@code DAT_INTERRUPTED_CALL},
     *                      {@code DAT_INVALID_HANDLE}
     */
    EventDispatcher waitFor(int timeout);

    /**
     * {@code dat_cno_free}.
     *
     * @throws DatException {@code DAT_INVALID_STATE} while an EVD references it or a thread waits,
     *                      {@code DAT_INVALID_HANDLE}
     */
    void free();

    /** {@link #free()}, for try-with-resources. */
    @Override
    default void close() {
        free();
    }
}
