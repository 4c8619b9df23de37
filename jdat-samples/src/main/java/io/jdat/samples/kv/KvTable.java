package io.jdat.samples.kv;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The key-value table's layout, shared by {@link KvServer} (which fills it) and {@link KvClient} (which
 * reads it remotely): an open-addressing hash table of {@value #SLOTS} slots of {@value #SLOT} bytes,
 * linear probing. A slot is {@code [key length (1)][value length (1)][key (30)][value (32)]}; key length 0
 * marks an empty slot, where a lookup stops.
 */
final class KvTable {
    /** Slots in the table (a power of two). */
    static final int SLOTS = 256;
    /** Bytes per slot: one RDMA Read fetches one slot. */
    static final int SLOT = 64;
    /** The longest key. */
    static final int MAX_KEY = 30;
    /** The longest value. */
    static final int MAX_VALUE = 32;

    private KvTable() {
    }

    /** The slot where the search for {@code key} starts: FNV-1a of its bytes, modulo {@value #SLOTS}. */
    static int home(byte[] key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key) {
            h = (h ^ (b & 0xFF)) * 0x100000001b3L;
        }
        return (int) (h & (SLOTS - 1));
    }

    /** Stores {@code key -> value} in the table (the server, before it publishes the table). */
    static void put(MemorySegment table, String key, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        if (k.length == 0 || k.length > MAX_KEY || v.length > MAX_VALUE) {
            throw new IllegalArgumentException("key 1.." + MAX_KEY + " bytes, value up to " + MAX_VALUE);
        }
        for (int i = 0, s = home(k); i < SLOTS; i++, s = (s + 1) & (SLOTS - 1)) {
            MemorySegment slot = table.asSlice((long) s * SLOT, SLOT);
            if (slot.get(ValueLayout.JAVA_BYTE, 0) == 0) {
                slot.set(ValueLayout.JAVA_BYTE, 0, (byte) k.length);
                slot.set(ValueLayout.JAVA_BYTE, 1, (byte) v.length);
                MemorySegment.copy(MemorySegment.ofArray(k), 0, slot, 2, k.length);
                MemorySegment.copy(MemorySegment.ofArray(v), 0, slot, 2 + MAX_KEY, v.length);
                return;
            }
        }
        throw new IllegalStateException("table full");
    }

    /** True when {@code slot} is empty (a lookup that reaches it stops: the key is not in the table). */
    static boolean empty(MemorySegment slot) {
        return slot.get(ValueLayout.JAVA_BYTE, 0) == 0;
    }

    /** True when {@code slot} holds {@code key}. */
    static boolean holds(MemorySegment slot, byte[] key) {
        int n = slot.get(ValueLayout.JAVA_BYTE, 0) & 0xFF;
        return n == key.length && slot.asSlice(2, n).mismatch(MemorySegment.ofArray(key)) == -1;
    }

    /** The value of a slot that {@link #holds} the key (lengths are bounded: the bytes came from the network). */
    static String value(MemorySegment slot) {
        int n = Math.min(slot.get(ValueLayout.JAVA_BYTE, 1) & 0xFF, MAX_VALUE);
        return new String(slot.asSlice(2 + MAX_KEY, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
