package io.jdat.tools.perf;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The progress line of {@code jdat perf} on a terminal: once the run has taken {@code delay}, a line on
 * standard error, rewritten in place every {@code period}, names the running measurement (row k of n) and
 * the time the run has taken; it is erased before a table row is printed and when the run ends. Fed
 * between measurements only: the measurements do nothing for it. One thread ticks; it ends with
 * {@link #close()}.
 */
final class Progress implements AutoCloseable {
    /** No progress line (standard error is not a terminal). */
    static final Progress NONE = new Progress(null, 0, 0);

    private final PrintWriter err;
    private final long delayNanos;
    private final long periodMillis;
    private final long start = System.nanoTime();
    private volatile String current = "";
    private Thread ticker;
    /** Characters of the line on screen (0: none); guarded by {@code this}. */
    private int shown;
    private boolean closed;

    /**
     * Creates a progress line.
     *
     * @param err          where to draw it, or {@code null} for none
     * @param delayNanos   how long the run goes before the line appears
     * @param periodMillis how often it is redrawn
     */
    Progress(PrintWriter err, long delayNanos, long periodMillis) {
        this.err = err;
        this.delayNanos = delayNanos;
        this.periodMillis = Math.max(1, periodMillis);
    }

    /**
     * The progress line for a run: drawn on {@code err} after a second, every 250 ms, when this JVM talks to
     * a terminal ({@link java.io.Console#isTerminal()}); else {@link #NONE}.
     *
     * @param err standard error
     * @return the progress line
     */
    static Progress forTerminal(PrintWriter err) {
        java.io.Console c = System.console();
        return c != null && c.isTerminal() ? new Progress(err, 1_000_000_000L, 250) : NONE;
    }

    /**
     * Says which measurement starts (the first call starts the ticking thread).
     *
     * @param index the row, from 0
     * @param total the rows of the run
     * @param what  the row's operation and size
     */
    synchronized void measuring(int index, int total, String what) {
        if (err == null || closed) {
            return;
        }
        current = String.format(Locale.ROOT, "jdat perf: %d/%d %s", index + 1, total, what);
        if (ticker == null) {
            ticker = new Thread(this::tick, "jdat-perf-progress");
            ticker.setDaemon(true);
            ticker.start();
        }
    }

    private void tick() {
        try {
            while (true) {
                Thread.sleep(periodMillis);
                long elapsed = System.nanoTime() - start;
                if (elapsed >= delayNanos) {
                    draw(String.format(Locale.ROOT, "%s, %.1f s", current, elapsed / 1e9));
                }
            }
        } catch (InterruptedException e) {
            // closed
        }
    }

    private synchronized void draw(String line) {
        if (closed) {
            return;
        }
        StringBuilder b = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < shown; i++) {
            b.append(' ');
        }
        err.print(b);
        err.flush();
        shown = line.length();
    }

    /** Erases the line (before other output); the next tick draws it again. */
    synchronized void erase() {
        if (shown > 0) {
            err.print("\r" + " ".repeat(shown) + "\r");
            err.flush();
            shown = 0;
        }
    }

    /** Stops the ticking thread and erases the line. Idempotent. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = ticker;
        }
        if (t != null) {
            t.interrupt();
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        erase();
    }
}
