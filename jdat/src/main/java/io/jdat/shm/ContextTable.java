package io.jdat.shm;

import io.jdat.spi.ExposedMemory;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * The target side of the {@code shm} direct store: one IA's table of the contexts a peer may store into (or load
 * from) itself, in the file {@value #FILE} of the IA's instance directory, written only by this IA and mapped
 * read-only by its peers ({@link DirectStore}). The core fills it ({@link ExposedMemory}) with every remotely
 * reachable LMR or RMR binding whose memory lies in one {@link ShmMemory}; other memory is not listed, and a
 * peer's access to it goes through the ring and the core's check as before.
 *
 * <h2>File</h2>
 * A {@value #HEADER}-byte header (magic {@code 0x4A444354} "JDCT" at 0, written last with a release store;
 * version at 4; capacity at 8), then {@value #CAPACITY} entries of {@value #ENTRY} bytes, one cache line each.
 * An entry's slot is a hash of its context, probed linearly over at most {@value #PROBES} slots.
 * <table>
 *   <caption>Entry</caption>
 *   <tr><th>Offset</th><th>Size</th><th>Field</th></tr>
 *   <tr><td>{@value #SEQ}</td><td>8</td><td>sequence: odd while the entry is being written (a seqlock)</td></tr>
 *   <tr><td>{@value #CONTEXT}</td><td>4</td><td>the context, 0 for a free slot</td></tr>
 *   <tr><td>{@value #PZ}</td><td>4</td><td>the region's Protection Zone ({@code ChannelSink.protectionZone()})</td></tr>
 *   <tr><td>{@value #PRIVILEGES}</td><td>4</td><td>{@code MemPriv} bits of the region</td></tr>
 *   <tr><td>{@value #MEMORY_ID}</td><td>8</td><td>the {@link ShmMemory} file holding the region</td></tr>
 *   <tr><td>{@value #FILE_OFFSET}</td><td>8</td><td>the offset of the region's first byte in that file</td></tr>
 *   <tr><td>{@value #ADDRESS}</td><td>8</td><td>the region's virtual address, as peers name it</td></tr>
 *   <tr><td>{@value #LENGTH}</td><td>8</td><td>the region's length</td></tr>
 * </table>
 *
 * <h2>Revocation</h2>
 * {@link #withdrawn} makes a context unusable before the core's {@code dat_lmr_free} or RMR unbind returns: it
 * invalidates the entry with a volatile store of an odd sequence, then waits, on every connection of the IA,
 * while the peer's {@link ConnectionLayout#DIRECT_USE} word names the context. A peer stores a context there
 * (volatile) before it reads the entry (volatile) and clears it (release) after its copy: in the single total
 * order of these volatile accesses, either the peer's read comes after the invalidation (it finds no entry and
 * takes the ring, where the core refuses the context), or its mark comes before this side's look at it, which
 * then waits until the copy is done. A peer that holds a context longer than {@link #DRAIN_NANOS} (stopped, or
 * hostile) has its connection broken and the wait ends: such a peer could store into this process's memory
 * anyway (docs/shm-security.md).
 */
final class ContextTable implements ExposedMemory {
    static final String FILE = "contexts";
    static final int MAGIC = 0x4A44_4354;
    static final int VERSION = 1;
    static final int HEADER = 64;
    static final int ENTRY = 64;
    static final int CAPACITY = 4096;
    static final int PROBES = 8;
    static final long FILE_LENGTH = HEADER + (long) ENTRY * CAPACITY;
    static final int SEQ = 0;
    static final int CONTEXT = 8;
    static final int PZ = 12;
    static final int PRIVILEGES = 16;
    static final int MEMORY_ID = 24;
    static final int FILE_OFFSET = 32;
    static final int ADDRESS = 40;
    static final int LENGTH = 48;
    /** How long a withdrawal waits for a peer's store before it breaks that connection. */
    static final long DRAIN_NANOS = 1_000_000_000L;
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final ShmTransport transport;
    private final Arena arena;
    private final MemorySegment table;
    /** This side's copy of each slot's (context, PZ), guarded by {@code this}. */
    private final int[] contexts = new int[CAPACITY];
    private final int[] pzs = new int[CAPACITY];
    private final long[] found = new long[1];
    private boolean closed;

    private ContextTable(ShmTransport transport, Arena arena, MemorySegment table) {
        this.transport = transport;
        this.arena = arena;
        this.table = table;
    }

    /** Creates the table file in the IA's instance directory; null if it cannot be had (no direct stores then). */
    static ContextTable create(ShmTransport transport, ShmFiles.Instance instance) {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = instance.createFile(FILE, FILE_LENGTH)) {
            MemorySegment m = ch.map(FileChannel.MapMode.READ_WRITE, 0, FILE_LENGTH, arena);
            m.set(ValueLayout.JAVA_INT, 4, VERSION);
            m.set(ValueLayout.JAVA_INT, 8, CAPACITY);
            // release: the header is complete before a peer that sees the magic reads it
            INT.setRelease(m, 0L, MAGIC);
            return new ContextTable(transport, arena, m);
        } catch (IOException | RuntimeException e) {
            arena.close();
            return null;
        }
    }

    /** The first slot of {@code context}'s probe sequence. */
    static int home(int context) {
        return (context * 0x9E37_79B1) >>> (32 - Integer.numberOfTrailingZeros(CAPACITY));
    }

    @Override
    public synchronized void exposed(int context, MemorySegment memory, long address, int privileges,
            int protectionZone) {
        if (closed || context == 0 || protectionZone == 0 || !ShmMemory.any()) {
            return;
        }
        long id = ShmMemory.find(memory.address(), memory.byteSize(), found);
        if (id < 0) {
            return; // not in shared memory: peers go through the ring
        }
        for (int k = 0; k < PROBES; k++) {
            int slot = (home(context) + k) & (CAPACITY - 1);
            if (contexts[slot] == 0) {
                contexts[slot] = context;
                pzs[slot] = protectionZone;
                MemorySegment e = entry(slot);
                long seq = e.get(ValueLayout.JAVA_LONG, SEQ);
                // volatile: the odd sequence is seen before any field changes (a reader retries or gives up)
                LONG.setVolatile(e, (long) SEQ, seq + 1);
                e.set(ValueLayout.JAVA_INT, PZ, protectionZone);
                e.set(ValueLayout.JAVA_INT, PRIVILEGES, privileges);
                e.set(ValueLayout.JAVA_LONG, MEMORY_ID, id);
                e.set(ValueLayout.JAVA_LONG, FILE_OFFSET, found[0]);
                e.set(ValueLayout.JAVA_LONG, ADDRESS, address);
                e.set(ValueLayout.JAVA_LONG, LENGTH, memory.byteSize());
                e.set(ValueLayout.JAVA_INT, CONTEXT, context);
                // release: every field is written before the even sequence that makes the entry readable
                LONG.setRelease(e, (long) SEQ, seq + 2);
                return;
            }
        }
        // the probe window is full: this region is reached through the ring
    }

    @Override
    public void withdrawn(int context, int protectionZone) {
        synchronized (this) {
            if (closed) {
                return;
            }
            int slot = -1;
            for (int k = 0; k < PROBES; k++) {
                int s = (home(context) + k) & (CAPACITY - 1);
                if (contexts[s] == context && pzs[s] == protectionZone) {
                    slot = s;
                    break;
                }
            }
            if (slot < 0) {
                return; // never listed: no peer could store through it directly
            }
            contexts[slot] = 0;
            pzs[slot] = 0;
            MemorySegment e = entry(slot);
            long seq = e.get(ValueLayout.JAVA_LONG, SEQ);
            // volatile (a full fence after it): the invalidation is ordered before the loads of the peers' marks
            // below, the other half of the Dekker pair with DirectStore's mark-then-read
            LONG.setVolatile(e, (long) SEQ, seq + 1);
            e.set(ValueLayout.JAVA_INT, CONTEXT, 0);
            LONG.setRelease(e, (long) SEQ, seq + 2);
        }
        for (ShmConnection c : transport.connections) {
            drain(c, context);
        }
    }

    /** Waits while {@code c}'s peer is storing through {@code context}; breaks the connection after the bound. */
    private static void drain(ShmConnection c, int context) {
        try {
            long deadline = 0;
            int spins = 0;
            // acquire (volatile): the peer's copy, done before its release of the mark, is in memory now
            while ((int) INT.getVolatile(c.peerBlock, (long) ConnectionLayout.DIRECT_USE) == context) {
                if (++spins < 1024) {
                    Thread.onSpinWait();
                    continue;
                }
                long now = System.nanoTime();
                if (deadline == 0) {
                    deadline = now + DRAIN_NANOS;
                } else if (now - deadline > 0) {
                    c.breakLater("the peer held context 0x" + Integer.toHexString(context)
                            + " for a direct store while it was withdrawn for " + DRAIN_NANOS / 1_000_000 + " ms");
                    return;
                }
                LockSupport.parkNanos(10_000);
            }
        } catch (IllegalStateException | InternalError e) {
            // the connection's mapping is gone (closed) or truncated: its peer sees it broken
        }
    }

    private MemorySegment entry(int slot) {
        return table.asSlice(HEADER + (long) ENTRY * slot, ENTRY);
    }

    /** Unmaps the table (the IA closes: no connection is left to drain). */
    synchronized void close() {
        if (!closed) {
            closed = true;
            arena.close();
        }
    }
}
