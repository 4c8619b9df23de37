package io.jdat.core;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The core's one background thread: connection timeouts and state transitions that must not run on a
 * transport's thread (for example the end of a graceful disconnect). Daemon; idle unless a timeout is
 * pending.
 */
final class Timers {
    private static final ScheduledThreadPoolExecutor EXECUTOR;

    static {
        EXECUTOR = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "jdat-core-timer");
            t.setDaemon(true);
            return t;
        });
        EXECUTOR.setRemoveOnCancelPolicy(true);
    }

    private Timers() {
    }

    static ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        return EXECUTOR.schedule(guard(task), delay, unit);
    }

    static void execute(Runnable task) {
        EXECUTOR.execute(guard(task));
    }

    private static Runnable guard(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // A transition that lost a race with a free or close has nothing left to do.
            }
        };
    }
}
