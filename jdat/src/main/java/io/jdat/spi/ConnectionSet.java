package io.jdat.spi;

import java.util.Arrays;

/**
 * The connections a transport's progress engine polls (or the EPs the core wakes when a shared receive queue
 * gets a buffer): an array snapshot that pollers iterate without a lock and without allocating (an iterator
 * would allocate on every poll), replaced by a copy on each {@link #add}/{@link #remove}, which are rare.
 *
 * @param <C> the connection type
 */
public final class ConnectionSet<C> {
    /** Copy-on-write under {@code this}; the volatile read publishes a fully built array. */
    private volatile C[] snapshot;

    /**
     * An empty set.
     *
     * @param empty an empty array of the element type (the type of every later snapshot)
     */
    public ConnectionSet(C[] empty) {
        if (empty.length != 0) {
            throw new IllegalArgumentException("not empty");
        }
        snapshot = empty;
    }

    /** {@return the connections now: an array the caller must not modify; a later add or remove makes a new one} */
    public C[] snapshot() {
        return snapshot;
    }

    /**
     * Adds {@code c} (no check for duplicates).
     *
     * @param c the connection
     */
    public synchronized void add(C c) {
        C[] cs = Arrays.copyOf(snapshot, snapshot.length + 1);
        cs[cs.length - 1] = c;
        snapshot = cs;
    }

    /**
     * Removes {@code c} (compared by identity).
     *
     * @param c the connection
     * @return whether it was there
     */
    public synchronized boolean remove(C c) {
        C[] cs = snapshot;
        for (int i = 0; i < cs.length; i++) {
            if (cs[i] == c) {
                C[] n = Arrays.copyOf(cs, cs.length - 1);
                System.arraycopy(cs, i + 1, n, i, cs.length - i - 1);
                snapshot = n;
                return true;
            }
        }
        return false;
    }
}
