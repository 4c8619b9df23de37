package io.jdat.spi;

import java.lang.System.Logger.Level;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * How a listener's accept loop lives through failures ({@code dat_psp_create}, {@code dat_rsp_create}
 * listeners of the tcp and shm transports): a listener never stops without a trace.
 *
 * <ul>
 * <li>An accept that fails while the listener is open (EMFILE, ENFILE, ENOBUFS, ENOMEM, a connection
 * aborted in the queue...) is retried after {@value #FIRST_DELAY_MILLIS} ms, the delay doubling up to
 * {@value #MAX_DELAY_MILLIS} ms, as the servers of the field do; the connections waiting in the kernel's
 * backlog are accepted once the cause goes away. The first failure of such an episode is logged
 * ({@code WARNING}).</li>
 * <li>When accepting has failed without a break for {@value #PERSISTENT_MILLIS} ms, the failure is
 * persistent: it is logged ({@code ERROR}) and the consumer is told once per episode through
 * {@link IncomingHandler#acceptFailing} (the core posts {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} on the
 * IA's async EVD). The loop keeps retrying.</li>
 * <li>The first accept that succeeds again ends the episode ({@code INFO}).</li>
 * <li>A listener that stops while it should still listen (its socket closed under it, an unexpected error)
 * logs it ({@code ERROR}) and tells the consumer ({@link #stopped}).</li>
 * </ul>
 *
 * <p>Used by the listener's one accept thread, except {@link #close()}, which any thread may call to end a
 * back-off sleep at once.
 */
public final class AcceptBackoff {
    /** The first retry delay. */
    public static final long FIRST_DELAY_MILLIS = 10;
    /** The longest retry delay. */
    public static final long MAX_DELAY_MILLIS = 1_000;
    /** How long accepting must fail without a break before the consumer is told. */
    public static final long PERSISTENT_MILLIS = 1_000;

    private final System.Logger log;
    private final Object listener;
    private final IncomingHandler handler;
    private volatile boolean closed;
    private volatile Thread sleeper;
    private int failures;
    private long failingSince;
    private long delayMillis;
    private boolean reported;

    /**
     * A back-off for one listener.
     *
     * @param log      where to log ({@code io.jdat.tcp}, {@code io.jdat.shm})
     * @param listener names the listener in log records
     * @param handler  the service point told of persistent failures
     */
    public AcceptBackoff(System.Logger log, Object listener, IncomingHandler handler) {
        this.log = log;
        this.listener = listener;
        this.handler = handler;
    }

    /**
     * An accept failed while the listener is open: logs the first failure of an episode, tells the consumer
     * once it has lasted {@value #PERSISTENT_MILLIS} ms, then sleeps the back-off delay (cut short by
     * {@link #close()}).
     *
     * @param cause what the accept threw
     */
    public void failed(Throwable cause) {
        long now = System.nanoTime();
        if (failures++ == 0) {
            failingSince = now;
            log(Level.WARNING, () -> listener + ": accept failed (" + cause
                    + "); retrying with a back-off from " + FIRST_DELAY_MILLIS + " ms to " + MAX_DELAY_MILLIS + " ms");
        }
        if (!reported && now - failingSince >= PERSISTENT_MILLIS * 1_000_000L) {
            reported = true;
            int n = failures;
            log(Level.ERROR, () -> listener + ": accept has failed " + n + " times over "
                    + (now - failingSince) / 1_000_000 + " ms (" + cause + "); still retrying; the consumer gets"
                    + " DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR");
            tell(cause, false);
        }
        delayMillis = delayMillis == 0 ? FIRST_DELAY_MILLIS : Math.min(delayMillis * 2, MAX_DELAY_MILLIS);
        sleep(delayMillis);
    }

    /** An accept succeeded: ends a failure episode, if one was going on. */
    public void accepted() {
        if (failures == 0) {
            return;
        }
        int n = failures;
        long ms = (System.nanoTime() - failingSince) / 1_000_000;
        log(Level.INFO, () -> listener + ": accepting again after " + n + " failed accepts over " + ms + " ms");
        failures = 0;
        delayMillis = 0;
        reported = false;
    }

    /**
     * The listener stops for good although nobody closed it: logs it and tells the consumer.
     *
     * @param cause why the accept loop ends
     */
    public void stopped(Throwable cause) {
        log(Level.ERROR, () -> listener + ": stopped listening (" + cause + "); later requests are not answered;"
                + " the consumer gets DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR", cause);
        tell(cause, true);
    }

    /** The listener is closing: no more reports, and a back-off sleep ends at once. */
    public void close() {
        closed = true;
        Thread t = sleeper;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void tell(Throwable cause, boolean stopped) {
        if (closed) {
            return;
        }
        try {
            handler.acceptFailing(cause, stopped);
        } catch (RuntimeException | LinkageError e) {
            // E.g. a class the report needs cannot be loaded while the fds are exhausted: the log must do.
            log(Level.ERROR, () -> listener + ": could not report the accept failure to the consumer", e);
        }
    }

    private void log(Level level, Supplier<String> message) {
        log(level, message, null);
    }

    /**
     * Logs, and drops the record when logging itself fails: with every descriptor in use a logging backend's
     * first record can fail to load its classes or files (java.util.logging's formatter threw
     * {@code java.lang.Error}, then {@code NoClassDefFoundError}, for the time-zone rules it could not open,
     * issue 18), and that must not end the accept loop it reports on.
     */
    private void log(Level level, Supplier<String> message, Throwable thrown) {
        try {
            if (thrown == null) {
                log.log(level, message);
            } else {
                log.log(level, message, thrown);
            }
        } catch (RuntimeException | Error e) {
            // nothing to log it with; the consumer is still told (tell) and the loop goes on
        }
    }

    private void sleep(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        sleeper = Thread.currentThread();
        try {
            for (long left; !closed && (left = deadline - System.nanoTime()) > 0;) {
                LockSupport.parkNanos(this, left);
            }
        } finally {
            sleeper = null;
        }
    }
}
