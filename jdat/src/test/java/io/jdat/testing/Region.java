package io.jdat.testing;

import io.jdat.InterfaceAdapter;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A registered region of any size for data-path tests: native memory from an arena, filled with
 * {@link Images#SENTINEL}, and its LMR; local and remote triplets by offset, and whole-region image checks.
 */
public class Region {
    /** The memory (256-byte aligned). */
    public final MemorySegment seg;
    /** Its registration. */
    public final Lmr lmr;

    /** Allocates {@code size} bytes from {@code arena} and registers them in {@code pz} with {@code priv}. */
    public Region(InterfaceAdapter ia, ProtectionZone pz, Arena arena, long size, int priv) {
        seg = arena.allocate(size, 256);
        seg.fill(Images.SENTINEL);
        lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(seg), size, pz, priv);
    }

    /** A region with every privilege on {@code side} of a pair, allocated from the side's arena. */
    public static Region on(Pair.Side side, long size) {
        return new Region(side.ia, side.pz, side.arena, size, MemPriv.ALL);
    }

    /** A region with every privilege on {@code node}, allocated from the node's arena. */
    public static Region on(ConnFixture.Node node, long size) {
        return new Region(node.ia, node.pz, node.arena, size, MemPriv.ALL);
    }

    /** Local triplets for (offset, length) pairs. */
    public LmrTriplet[] iov(long... offLen) {
        LmrTriplet[] v = new LmrTriplet[offLen.length / 2];
        for (int i = 0; i < v.length; i++) {
            v[i] = lmr.triplet(offLen[2 * i], offLen[2 * i + 1]);
        }
        return v;
    }

    /** The remote triplet of {@code [off, off + len)}. */
    public RmrTriplet remote(long off, long len) {
        return lmr.remoteTriplet(off, len);
    }

    /** Writes {@code b[from, from+len)} at {@code off}. */
    public void put(long off, byte[] b, int from, int len) {
        MemorySegment.copy(b, from, seg, ValueLayout.JAVA_BYTE, off, len);
    }

    /** A copy of the whole region. */
    public byte[] snapshot() {
        return seg.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Checks the whole region against {@code expected}, naming the first differing byte. */
    public void assertImage(byte[] expected, String what) {
        Images.assertImageEquals(seg, expected, what);
    }
}
