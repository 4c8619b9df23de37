package io.jdat.core;

import java.lang.foreign.MemorySegment;

/**
 * One entry of a {@link MemoryTable}: a registered range (an LMR, or an RMR's current binding) with the
 * Protection Zone and privileges that govern access to it. Immutable: a re-bind creates a new region
 * under a new context, so a reader that found a region can use it without locks.
 *
 * @param context    the 32-bit context (tag &lt;&lt; 8 | key, see {@link MemoryTable})
 * @param segment    the registered memory; offset 0 is {@code address}
 * @param address    the virtual address of the first byte
 * @param length     bytes registered
 * @param pz         the Protection Zone
 * @param privileges {@link io.jdat.MemPriv} bits
 * @param lmr        the LMR that owns the memory (for an RMR binding: the LMR bound into)
 * @param local      true when this is an LMR's own entry, usable in local I/O vectors
 */
record Region(int context, MemorySegment segment, long address, long length, CorePz pz, int privileges,
        CoreLmr lmr, boolean local) {

    /**
     * The offset of {@code [va, va + len)} inside this region, or -1 when the range is not contained.
     * Overflow-safe for hostile values.
     */
    long offsetOf(long va, long len) {
        return io.jdat.spi.RemoteRegion.offsetIn(address, length, va, len);
    }
}
