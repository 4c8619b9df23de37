package io.jdat.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryTable}: contexts are unguessable (random tag and key bits, slots not handed out in order),
 * stale contexts do not validate, lookups stay O(1) (issue 14 item 4; docs/protection.md).
 */
class MemoryTableTest {
    private static Region register(MemoryTable t) {
        int index = t.reserve();
        Region r = new Region(t.nextContext(index), MemorySegment.NULL, 0, 0, null, 0, null, true);
        t.publish(index, r);
        return r;
    }

    @Test
    @DisplayName("The tag permutation is a bijection of the 24-bit space (every tag maps back to its slot)")
    void permutationIsABijection() {
        MemoryTable t = new MemoryTable(42);
        for (int i = 0; i <= MemoryTable.MAX_INDEX; i++) {
            int tag = t.permute(i);
            if (tag < 0 || tag > MemoryTable.MAX_INDEX || t.unpermute(tag) != i) {
                throw new AssertionError("slot " + i + " -> tag " + tag + " -> " + t.unpermute(tag));
            }
        }
    }

    @Test
    @DisplayName("Contexts are not handed out in order: the first 64 registrations are not N<<8|1 (nor any fixed"
            + " key), their tags spread over the 24-bit space, and two IAs' contexts differ")
    void contextsAreNotSequential() {
        MemoryTable a = new MemoryTable();
        MemoryTable b = new MemoryTable();
        List<Integer> ca = new ArrayList<>();
        Set<Integer> cb = new HashSet<>();
        Set<Integer> keys = new HashSet<>();
        int maxTag = 0;
        for (int n = 1; n <= 64; n++) {
            int c = register(a).context();
            ca.add(c);
            cb.add(register(b).context());
            assertNotEquals(n << 8 | 1, c, "registration " + n + " got the old predictable context");
            keys.add(c & 0xFF);
            maxTag = Math.max(maxTag, c >>> 8);
        }
        assertTrue(keys.size() > 16, "64 registrations used only " + keys.size() + " distinct keys: " + keys);
        assertTrue(maxTag > 1 << 20, "64 tags all below " + maxTag + ": not spread over the 24-bit space");
        long shared = ca.stream().filter(cb::contains).count();
        assertTrue(shared < 4, shared + " of 64 contexts equal in two IAs");
    }

    @Test
    @DisplayName("A freed slot is picked at random: re-registrations after freeing many do not come back in order")
    void freeSlotsAreChosenAtRandom() {
        MemoryTable t = new MemoryTable(7);
        int[] idx = new int[256];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = t.reserve();
        }
        for (int i : idx) {
            t.release(i);
        }
        int inOrder = 0;
        int prev = t.reserve();
        for (int i = 1; i < 64; i++) {
            int next = t.reserve();
            if (Math.abs(next - prev) == 1) {
                inOrder++;
            }
            prev = next;
        }
        assertTrue(inOrder < 8, inOrder + " of 63 consecutive reservations took neighbouring slots");
    }

    @Test
    @DisplayName("LMF-04 RMF-01 RMB-06: the contexts of a freed region never validate again for the next 255"
            + " registrations of its slot, nor does an RMR's previous binding after a re-bind")
    void staleContextsNeverValidate() {
        MemoryTable t = new MemoryTable(11);
        Set<Integer> seen = new HashSet<>();
        List<Integer> stale = new ArrayList<>();
        int slot = -1;
        for (int n = 0; n < 256; n++) {
            int index = t.reserve();
            if (slot >= 0) {
                assertEquals(slot, index, "the only free slot");
            }
            slot = index;
            int c = t.nextContext(index);
            assertTrue(seen.add(c), "context 0x" + Integer.toHexString(c) + " issued twice in 256 registrations");
            Region r = new Region(c, MemorySegment.NULL, 0, 0, null, 0, null, true);
            t.publish(index, r);
            assertSame(r, t.lookup(c));
            for (int old : stale) {
                assertNull(t.lookup(old), "stale context 0x" + Integer.toHexString(old) + " validates");
            }
            t.release(index);
            assertNull(t.lookup(c), "a freed region's context validates");
            stale.add(c);
        }
        // An RMR re-binds in place: each bind's context replaces the previous one.
        int index = t.reserve();
        int before = t.nextContext(index);
        t.publish(index, new Region(before, MemorySegment.NULL, 0, 0, null, 0, null, false));
        int after = t.nextContext(index);
        t.publish(index, new Region(after, MemorySegment.NULL, 0, 0, null, 0, null, false));
        assertNull(t.lookup(before));
        assertEquals(after, t.lookup(after).context());
    }

    @Test
    @DisplayName("Guessing: of every context N<<8|k for N < 4096 and every key k (1 M guesses) with 1000 regions"
            + " registered, none validates; context 0 never does")
    void guessesFindNothing() {
        MemoryTable t = new MemoryTable(2026);
        for (int i = 0; i < 1000; i++) {
            register(t);
        }
        int hits = 0;
        for (int n = 0; n < 4096; n++) {
            for (int k = 0; k < 256; k++) {
                if (t.lookup(n << 8 | k) != null) {
                    hits++;
                }
            }
        }
        assertEquals(0, hits, "guessed contexts that validate");
        assertNull(t.lookup(0));
        assertNull(t.lookup(-1));
        assertNull(t.lookup(Integer.MIN_VALUE));
    }
}
