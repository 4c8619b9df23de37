package io.jdat.verbs;

import static io.jdat.verbs.VerbsLayouts.SGE;
import static io.jdat.verbs.VerbsLayouts.SGE_ADDR;
import static io.jdat.verbs.VerbsLayouts.SGE_LENGTH;
import static io.jdat.verbs.VerbsLayouts.SGE_LKEY;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link VerbsSges#splitShortPageCrossings}: the SGE lists siw gets for short payloads across a page (docs/verbs.md,
 * "siw: short payloads across a page"); checked in the guest on the device by VerbsVmCheck's
 * short-reads-across-a-page-of-the-source.
 */
class VerbsSgesTest {
    private static final long AT = 2 * SGE.byteSize(); // the list starts inside the array, as a slot's does

    private static MemorySegment list(Arena arena, long[]... sges) {
        MemorySegment m = arena.allocate(SGE, 16);
        m.fill((byte) 0x5A);
        for (int i = 0; i < sges.length; i++) {
            long o = AT + i * SGE.byteSize();
            m.set(JAVA_LONG, o + SGE_ADDR, sges[i][0]);
            m.set(JAVA_INT, o + SGE_LENGTH, (int) sges[i][1]);
            m.set(JAVA_INT, o + SGE_LKEY, (int) sges[i][2]);
        }
        return m;
    }

    private static long[][] read(MemorySegment m, int count) {
        long[][] r = new long[count][];
        for (int i = 0; i < count; i++) {
            long o = AT + i * SGE.byteSize();
            r[i] = new long[] {m.get(JAVA_LONG, o + SGE_ADDR), m.get(JAVA_INT, o + SGE_LENGTH), m.get(JAVA_INT, o + SGE_LKEY)};
        }
        return r;
    }

    @Test
    @DisplayName("a Read's short SGE whose remote span crosses a 4 KiB page becomes two, split at the remote page;"
            + " the SGEs before and after it move, keeping their order, addresses and keys")
    void readSplitAtTheRemotePage() {
        try (Arena arena = Arena.ofConfined()) {
            // from 4000: [4000, 4028), [4028, 4035), [4035, 4086) all stay in page 0
            MemorySegment m = list(arena, new long[] {0x10000, 28, 1}, new long[] {0x20000, 7, 2},
                    new long[] {0x30000, 51, 3});
            assertEquals(3, VerbsSges.splitShortPageCrossings(m, AT, 3, 4000), "nothing crosses");
            // from 4070: [4070, 4098) crosses after 26 bytes; [4098, 4105) and [4105, 4156) do not
            assertEquals(4, VerbsSges.splitShortPageCrossings(m, AT, 3, 4070));
            assertArrayEquals(new long[][] {{0x10000, 26, 1}, {0x10000 + 26, 2, 1}, {0x20000, 7, 2}, {0x30000, 51, 3}},
                    read(m, 4));
        }
    }

    @Test
    @DisplayName("every short crossing SGE is split (the list has room for twice its entries), a long one is not")
    void everyShortCrossingSplitLongKept() {
        try (Arena arena = Arena.ofConfined()) {
            // remote 4093: [4093, 4100) crosses after 3; [4100, 8190) 4090 bytes (long); [8190, 8200) crosses after 2
            MemorySegment m = list(arena, new long[] {0x1000, 7, 9}, new long[] {0x5000, 4090, 8},
                    new long[] {0x9000, 10, 7});
            assertEquals(5, VerbsSges.splitShortPageCrossings(m, AT, 3, 4093));
            assertArrayEquals(new long[][] {{0x1000, 3, 9}, {0x1003, 4, 9}, {0x5000, 4090, 8}, {0x9000, 2, 7},
                {0x9002, 8, 7}}, read(m, 5));
            // 64 bytes is short, 65 is not
            MemorySegment n = list(arena, new long[] {0x1000, 64, 1});
            assertEquals(2, VerbsSges.splitShortPageCrossings(n, AT, 1, 4095));
            MemorySegment o = list(arena, new long[] {0x1000, 65, 1});
            assertEquals(1, VerbsSges.splitShortPageCrossings(o, AT, 1, 4095));
        }
    }

    @Test
    @DisplayName("a Send's or Write's SGE (start -1) is split at its own local page, and one ending on a page end is"
            + " not split")
    void localSplit() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = list(arena, new long[] {0x7fff_0000_0ffdL, 7, 4});
            assertEquals(2, VerbsSges.splitShortPageCrossings(m, AT, 1, -1));
            assertArrayEquals(new long[][] {{0x7fff_0000_0ffdL, 3, 4}, {0x7fff_0000_1000L, 4, 4}}, read(m, 2));
            MemorySegment e = list(arena, new long[] {0x0ff9, 7, 4});
            assertEquals(1, VerbsSges.splitShortPageCrossings(e, AT, 1, -1), "[0xff9, 0x1000) ends on the page end");
        }
    }
}
