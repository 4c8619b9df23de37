package io.jdat.testing.net;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fault settings and counters of one {@link FaultProxy}, shared by all of its connections' pumps.
 *
 * <p>All state is guarded by one lock; {@link #signalAll()} (called on every change) wakes pumps waiting out
 * a stall and callers of the {@code await} methods.
 */
final class Faults {
    /** How a pump hands the bytes it has read to the destination socket. */
    enum Delivery {
        /** Whatever one read returned, in one write. */
        PASS_THROUGH,
        /** One byte per write. */
        BYTE_BY_BYTE,
        /** Up to {@link Plan#coalesceLimit()} bytes, gathered until the source pauses, in one write. */
        COALESCE
    }

    /**
     * A pump's delivery plan, read again before every read and every write.
     *
     * @param delivery the delivery mode
     * @param coalesceLimit for {@link Delivery#COALESCE}, the most bytes gathered into one write
     * @param pauseMillis for {@link Delivery#COALESCE}, the source silence (ms) that ends a gathering
     */
    record Plan(Delivery delivery, int coalesceLimit, int pauseMillis) {
        static final Plan PASS = new Plan(Delivery.PASS_THROUGH, 0, 0);
    }

    /**
     * What a pump may do with a chunk it holds.
     *
     * @param bytes how many bytes of the chunk to write (the rest are dropped)
     * @param reset whether to reset the connection once they are written
     */
    record Grant(int bytes, boolean reset) {}

    private record Corruption(long offset, byte mask) {}

    /** The settings and counters of one direction. */
    private static final class Lane {
        Plan plan = Plan.PASS;
        boolean stalled;
        long resetBudget = -1; // -1: no reset armed
        final List<Corruption> corruptions = new ArrayList<>();
        long forwarded;
        long writes;

        void clear() {
            plan = Plan.PASS;
            stalled = false;
            resetBudget = -1;
            corruptions.clear();
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final EnumMap<Direction, Lane> lanes = new EnumMap<>(Direction.class);
    private int accepted;
    private boolean refusing;
    private boolean closed;

    Faults() {
        for (Direction d : Direction.values()) {
            lanes.put(d, new Lane());
        }
    }

    // ------------------------------------------------------------------ settings

    void setPlan(Direction d, Plan plan) {
        update(() -> lanes.get(d).plan = plan);
    }

    void setStalled(Direction d, boolean stalled) {
        update(() -> lanes.get(d).stalled = stalled);
    }

    void armReset(Direction d, long bytes) {
        update(() -> lanes.get(d).resetBudget = bytes);
    }

    void armCorruption(Direction d, long offset, byte mask) {
        update(() -> lanes.get(d).corruptions.add(new Corruption(offset, mask)));
    }

    void setRefusing(boolean refusing) {
        update(() -> this.refusing = refusing);
    }

    void clear() {
        update(() -> {
            lanes.values().forEach(Lane::clear);
            refusing = false;
        });
    }

    /** Marks the proxy closed; returns false if it already was. */
    boolean markClosed() {
        lock.lock();
        try {
            boolean first = !closed;
            closed = true;
            changed.signalAll();
            return first;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiter so it re-checks its condition (e.g. after a connection closed). */
    void signalAll() {
        update(() -> { });
    }

    private void update(Runnable change) {
        lock.lock();
        try {
            change.run();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ used by the acceptor and the pumps

    /** Counts one accepted client connection and returns whether it must be refused. */
    boolean acceptOne() {
        lock.lock();
        try {
            accepted++;
            changed.signalAll();
            return refusing;
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits while direction {@code d} is stalled. Returns true when the pump may go on, false when the proxy or
     * {@code connection} has closed (or the pump was interrupted) meanwhile.
     */
    boolean awaitFlowing(Direction d, ProxiedConnection connection) {
        lock.lock();
        try {
            while (lanes.get(d).stalled && !closed && !connection.isClosed()) {
                changed.await();
            }
            return !closed && !connection.isClosed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    Plan plan(Direction d) {
        lock.lock();
        try {
            return lanes.get(d).plan;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Decides how much of {@code buf[off, off+len)}, which sits at {@code streamOffset} of its connection's
     * stream in direction {@code d}, may be written, applying (and disarming) any corruption armed for an
     * offset inside the granted bytes and consuming the reset budget.
     */
    Grant claim(Direction d, long streamOffset, byte[] buf, int off, int len) {
        lock.lock();
        try {
            Lane lane = lanes.get(d);
            int bytes = len;
            boolean reset = false;
            if (lane.resetBudget >= 0) {
                bytes = (int) Math.min(len, lane.resetBudget);
                lane.resetBudget -= bytes;
                if (lane.resetBudget == 0) {
                    reset = true;
                    lane.resetBudget = -1;
                }
            }
            for (Iterator<Corruption> it = lane.corruptions.iterator(); it.hasNext(); ) {
                Corruption c = it.next();
                if (c.offset() >= streamOffset && c.offset() < streamOffset + bytes) {
                    buf[off + (int) (c.offset() - streamOffset)] ^= c.mask();
                    it.remove();
                }
            }
            return new Grant(bytes, reset);
        } finally {
            lock.unlock();
        }
    }

    /** Counts one completed write of {@code bytes} bytes in direction {@code d}. */
    void recordWrite(Direction d, int bytes) {
        update(() -> {
            Lane lane = lanes.get(d);
            lane.forwarded += bytes;
            lane.writes++;
        });
    }

    // ------------------------------------------------------------------ counters

    long forwarded(Direction d) {
        lock.lock();
        try {
            return lanes.get(d).forwarded;
        } finally {
            lock.unlock();
        }
    }

    long writes(Direction d) {
        lock.lock();
        try {
            return lanes.get(d).writes;
        } finally {
            lock.unlock();
        }
    }

    int accepted() {
        lock.lock();
        try {
            return accepted;
        } finally {
            lock.unlock();
        }
    }

    boolean awaitAccepted(int n, Duration timeout) throws InterruptedException {
        return awaitUntil(() -> accepted >= n, timeout);
    }

    boolean awaitForwarded(Direction d, long bytes, Duration timeout) throws InterruptedException {
        return awaitUntil(() -> lanes.get(d).forwarded >= bytes, timeout);
    }

    private boolean awaitUntil(BooleanSupplier reached, Duration timeout)
            throws InterruptedException {
        long left = timeout.toNanos();
        lock.lock();
        try {
            while (!reached.getAsBoolean()) {
                if (left <= 0) {
                    return false;
                }
                left = changed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

}
