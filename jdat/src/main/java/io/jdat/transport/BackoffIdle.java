package io.jdat.transport;

/**
 * The idle strategy of a progress thread, after Agrona's {@code BackoffIdleStrategy}: while passes find work
 * it keeps going; for {@code spinNanos} after the last work it spins ({@link Thread#onSpinWait()}), because
 * waking a blocked thread costs tens of microseconds, more than a whole exchange; then it tells the thread to
 * block (in {@code select}, {@code poll(2)} or a park: the transport's own wait). Each transport keeps its
 * constant: {@code shm} spins 20 µs, {@code tcp} not at all unless asked.
 *
 * <p>Confined to the one thread that runs the loop; allocates nothing.
 */
public final class BackoffIdle {
    private final long spinNanos;
    private long lastActive;

    /**
     * @param spinNanos how long to spin after the last work before blocking (0: block at once)
     * @param now       the time to count the first spin from ({@link System#nanoTime()}; 0 to block at once)
     */
    public BackoffIdle(long spinNanos, long now) {
        this.spinNanos = spinNanos;
        this.lastActive = now;
    }

    /**
     * After one pass: notes its work, or spins once within {@code spinNanos} of the last work.
     *
     * @param work the pass did something
     * @param now  {@link System#nanoTime()} after the pass
     * @return true when the thread should block now (then call {@link #woke})
     */
    public boolean idle(boolean work, long now) {
        if (work) {
            lastActive = now;
            return false;
        }
        if (now - lastActive < spinNanos) {
            Thread.onSpinWait();
            return false;
        }
        return true;
    }

    /** The thread is back from blocking at {@code now}: spinning starts over from here. */
    public void woke(long now) {
        lastActive = now;
    }
}
