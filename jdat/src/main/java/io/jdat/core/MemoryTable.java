package io.jdat.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * An IA's table of memory contexts: LMR contexts (usable locally and, with a remote privilege, as the
 * LMR's {@code rmr_context}) and RMR bindings. A context is {@code index << 8 | key}, like an iWARP STag:
 * the key part changes on every re-registration and re-bind, so a stale or guessed context finds nothing.
 *
 * <p>Lookups are lock-free (acquire reads of an immutable {@link Region}); changes take the table lock
 * and publish with release writes.
 */
final class MemoryTable {
    /** Contexts have 24 index bits; index 0 is never used, so context 0 is always invalid. */
    static final int MAX_INDEX = (1 << 24) - 1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Region[].class);

    private final Object lock = new Object();
    private volatile Region[] slots = new Region[64];
    private byte[] keys = new byte[64];
    private boolean[] reserved = new boolean[64];
    private int[] freeList = new int[16];
    private int freeCount;
    private int nextIndex = 1;
    private int live;

    /**
     * Reserves an index (for an LMR or an RMR).
     *
     * @return the index, or -1 when the table is full
     */
    int reserve() {
        synchronized (lock) {
            int idx;
            if (freeCount > 0) {
                idx = freeList[--freeCount];
            } else {
                if (nextIndex > MAX_INDEX) {
                    return -1;
                }
                idx = nextIndex++;
                if (idx >= slots.length) {
                    int n = Math.min(slots.length * 2, MAX_INDEX + 1);
                    keys = Arrays.copyOf(keys, n);
                    reserved = Arrays.copyOf(reserved, n);
                    slots = Arrays.copyOf(slots, n);
                }
            }
            reserved[idx] = true;
            live++;
            return idx;
        }
    }

    /** The next context for {@code index}: a fresh key, so earlier contexts of the index stop matching. */
    int nextContext(int index) {
        synchronized (lock) {
            int key = (keys[index] + 1) & 0xFF;
            keys[index] = (byte) key;
            return index << 8 | key;
        }
    }

    /** Publishes {@code region} at its context's index (replacing any earlier binding), or clears it. */
    void publish(int index, Region region) {
        synchronized (lock) {
            SLOT.setRelease(slots, index, region);
        }
    }

    /** Clears and frees an index. */
    void release(int index) {
        synchronized (lock) {
            if (!reserved[index]) {
                return;
            }
            SLOT.setRelease(slots, index, (Region) null);
            keys[index] = (byte) (keys[index] + 1);
            reserved[index] = false;
            live--;
            if (freeCount == freeList.length) {
                freeList = Arrays.copyOf(freeList, freeList.length * 2);
            }
            freeList[freeCount++] = index;
        }
    }

    /**
     * The region a context names, or {@code null} for a stale, foreign or never-issued context.
     * Lock-free; hostile values are safe.
     */
    Region lookup(int context) {
        int index = context >>> 8;
        Region[] s = slots;
        if (index <= 0 || index >= s.length) {
            return null;
        }
        Region r = (Region) SLOT.getAcquire(s, index);
        return r != null && r.context() == context ? r : null;
    }

    /** Number of reserved indexes. */
    int size() {
        synchronized (lock) {
            return live;
        }
    }
}
