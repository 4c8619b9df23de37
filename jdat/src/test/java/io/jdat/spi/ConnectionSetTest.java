package io.jdat.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ConnectionSetTest {
    @Test
    void snapshotsAreCopiesInInsertionOrder() {
        ConnectionSet<String> set = new ConnectionSet<>(new String[0]);
        String a = new String("a");
        String b = new String("b");
        String c = new String("c");
        set.add(a);
        set.add(b);
        String[] before = set.snapshot();
        set.add(c);
        assertArrayEquals(new String[] {"a", "b"}, before, "a snapshot does not change");
        assertTrue(set.remove(b));
        assertFalse(set.remove(new String("a")), "identity, not equality");
        assertArrayEquals(new String[] {"a", "c"}, set.snapshot());
        assertNotSame(before, set.snapshot());
        assertTrue(set.remove(a));
        assertTrue(set.remove(c));
        assertArrayEquals(new String[0], set.snapshot());
    }
}
