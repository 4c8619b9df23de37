package io.jdat;

/**
 * {@code DAT_OS_WAIT_PROXY_AGENT}: called, in addition to waking waiters, each time an EVD
 * triggers a CNO. It runs on the thread that generated the event and must not block.
 * {@code DAT_OS_WAIT_PROXY_AGENT_NULL} is Java {@code null}.
 */
@FunctionalInterface
public interface ProxyAgent {
    /**
     * The {@code proxy_agent_func}.
     *
     * @param evd the EVD that triggered the CNO (a hint: poll every EVD attached to the CNO)
     */
    void trigger(EventDispatcher evd);
}
