package io.jdat.transport;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * A transport's timer for connection-management deadlines (a request that never arrives, a peer that never
 * sends its RTR, a receiver that stays not ready): one daemon thread of the given name, idle unless a
 * deadline is pending; a cancelled deadline leaves the queue at once, so the many deadlines that are
 * cancelled when the handshake finishes in time do not pile up.
 */
public final class DaemonTimer {
    private DaemonTimer() {
    }

    /**
     * A new timer.
     *
     * @param threadName the name of its thread, e.g. {@code "jdat-tcp-timer"}
     * @return the timer; it is never shut down (its thread is a daemon)
     */
    public static ScheduledExecutorService create(String threadName) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
