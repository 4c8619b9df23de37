package io.jdat.shm;

import io.jdat.MemPriv;
import io.jdat.spi.RemoteRegion;
import io.jdat.spi.WorkRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The requester side of the {@code shm} direct store: an RDMA Write copied by the posting thread straight into
 * its mapping of the target's {@link ShmMemory}, as UCX's {@code ucp_put} over {@code posix} does, after the
 * checks the target's core would make, against the target's {@link ContextTable} (mapped read-only) and the
 * target EP's Protection Zone (its status block's {@link ConnectionLayout#DIRECT_PZ}), with the core's own rule
 * ({@link RemoteRegion#accessOffset}). Anything it cannot check (no entry, a bad entry, another PZ, no privilege,
 * out of bounds, a file it cannot map) returns false before a byte moves: the Write then goes through the ring
 * and the target's core decides, with the same status, events and break as before.
 *
 * <p>One per connection, used under the connection's {@code txLock}. The target's table and files are hostile
 * input: every entry is read under its seqlock and checked against the file's mapping before the copy; the files
 * mapped are only {@code m-<id>} regular files (no symbolic link) in the target's validated {@link ShmMemory}
 * directory, owner-only. At most {@value #MAPPINGS} files stay mapped, each in an arena of its own: the oldest is
 * unmapped when another is needed, all when the connection ends. Allocation-free once the files are mapped.
 */
final class DirectStore {
    /** Whether the direct store is used (system property {@code jdat.shm.directStore}, default true). */
    static final boolean ENABLED = !"false".equals(System.getProperty("jdat.shm.directStore"));
    static final int MAPPINGS = 16;
    private static final VarHandle INT = ConnectionLayout.INT;
    private static final VarHandle LONG = ConnectionLayout.LONG;

    private final MemorySegment table;
    private final Arena tableArena;
    private final Path memoryDir;
    private final MemorySegment myBlock;
    private final MemorySegment peerBlock;
    private final long[] ids = new long[MAPPINGS];
    private final MemorySegment[] maps = new MemorySegment[MAPPINGS];
    private final MappedFile[] files = new MappedFile[MAPPINGS];
    private final ChannelArena[] arenas = new ChannelArena[MAPPINGS];
    private int next;
    private boolean closed;

    private DirectStore(MemorySegment table, Arena tableArena, Path memoryDir, MemorySegment myBlock,
            MemorySegment peerBlock) {
        this.table = table;
        this.tableArena = tableArena;
        this.memoryDir = memoryDir;
        this.myBlock = myBlock;
        this.peerBlock = peerBlock;
    }

    /**
     * Maps the peer IA's context table read-only, or returns null (no direct store on this connection): disabled,
     * no validated directories, no table (an older peer), or a table that fails its header check.
     *
     * @param peerInstance the peer IA's instance directory, validated ({@link ShmTransport#peerMemoryDir})
     * @param memoryDir    the peer's {@link ShmMemory} directory, validated the same way
     */
    static DirectStore open(Path peerInstance, Path memoryDir, MemorySegment myBlock, MemorySegment peerBlock) {
        if (!ENABLED || peerInstance == null || memoryDir == null) {
            return null;
        }
        Arena arena = Arena.ofShared();
        try {
            Path p = peerInstance.resolve(ContextTable.FILE);
            if (!ownerOnlyRegularFile(p)) {
                arena.close();
                return null;
            }
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                if (ch.size() != ContextTable.FILE_LENGTH) {
                    arena.close();
                    return null;
                }
                MemorySegment t = ch.map(FileChannel.MapMode.READ_ONLY, 0, ContextTable.FILE_LENGTH, arena);
                if ((int) INT.getAcquire(t, 0L) != ContextTable.MAGIC
                        || t.get(ValueLayout.JAVA_INT, 4) != ContextTable.VERSION
                        || t.get(ValueLayout.JAVA_INT, 8) != ContextTable.CAPACITY) {
                    arena.close();
                    return null;
                }
                return new DirectStore(t, arena, memoryDir, myBlock, peerBlock);
            }
        } catch (IOException | RuntimeException e) {
            arena.close();
            return null;
        }
    }

    private static boolean ownerOnlyRegularFile(Path p) throws IOException {
        return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                && RingFile.OWNER_ONLY.containsAll(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * Stores {@code wr}'s bytes (an RDMA Write of at least one byte) into the target's memory if every check
     * passes ({@code txLock} held). False, with nothing stored, when any check fails or cannot be made.
     */
    boolean write(WorkRequest wr) {
        long len = wr.totalLength();
        if (closed || len <= 0) {
            return false;
        }
        // acquire: written once by the target when its EP took the connection (0 until then: the ring)
        int pz = (int) INT.getAcquire(peerBlock, (long) ConnectionLayout.DIRECT_PZ);
        if (pz == 0 || (int) INT.getAcquire(peerBlock, (long) ConnectionLayout.CLOSE_STATE) != ConnectionLayout.OPEN) {
            return false; // an ending target decides in its core (flush or break), as before
        }
        int ctx = wr.remoteContext();
        if (ctx == 0) {
            return false;
        }
        // volatile (a full fence after it): the mark is ordered before the entry's read below; the target's
        // withdrawal stores its invalidation and then reads this mark (ContextTable: one of the two sees the other)
        INT.setVolatile(myBlock, (long) ConnectionLayout.DIRECT_USE, ctx);
        try {
            return store(wr, ctx, pz, wr.remoteAddress(), len);
        } finally {
            // release: the copy is in memory before the target, reading 0 here, lets its withdrawal return
            INT.setRelease(myBlock, (long) ConnectionLayout.DIRECT_USE, 0);
        }
    }

    private boolean store(WorkRequest wr, int ctx, int pz, long address, long len) {
        int first = ContextTable.home(ctx);
        for (int k = 0; k < ContextTable.PROBES; k++) {
            long e = ContextTable.HEADER + (long) ContextTable.ENTRY * ((first + k) & (ContextTable.CAPACITY - 1));
            // volatile: the other half of the Dekker pair (after our mark), and the seqlock's first read
            long seq = (long) LONG.getVolatile(table, e + ContextTable.SEQ);
            if ((seq & 1) != 0) {
                return false; // being written: the ring decides
            }
            if (table.get(ValueLayout.JAVA_INT, e + ContextTable.CONTEXT) != ctx) {
                continue;
            }
            int entryPz = table.get(ValueLayout.JAVA_INT, e + ContextTable.PZ);
            int priv = table.get(ValueLayout.JAVA_INT, e + ContextTable.PRIVILEGES);
            long id = table.get(ValueLayout.JAVA_LONG, e + ContextTable.MEMORY_ID);
            long fileOffset = table.get(ValueLayout.JAVA_LONG, e + ContextTable.FILE_OFFSET);
            long regionAddress = table.get(ValueLayout.JAVA_LONG, e + ContextTable.ADDRESS);
            long regionLength = table.get(ValueLayout.JAVA_LONG, e + ContextTable.LENGTH);
            // the fields are read before the sequence is read again: unchanged means they are one entry's
            VarHandle.loadLoadFence();
            if ((long) LONG.getVolatile(table, e + ContextTable.SEQ) != seq) {
                return false;
            }
            // the core's rule, in the one place it lives: privilege, PZ, bounds
            long off = RemoteRegion.accessOffset(regionAddress, regionLength, priv, entryPz == pz,
                    MemPriv.REMOTE_WRITE, address, len);
            if (off < 0) {
                return false;
            }
            MemorySegment m = mapping(id);
            // the entry is hostile: the bytes must lie inside the file this side mapped
            if (m == null || fileOffset < 0 || fileOffset > m.byteSize() || off > m.byteSize() - fileOffset
                    || len > m.byteSize() - fileOffset - off) {
                return false;
            }
            wr.gather(0, m, fileOffset + off, len);
            return true;
        }
        return false;
    }

    /** The mapping of the target's memory file {@code id}, mapped on first use; null if it cannot be. */
    private MemorySegment mapping(long id) {
        for (int i = 0; i < MAPPINGS; i++) {
            if (ids[i] == id && maps[i] != null) {
                return maps[i];
            }
        }
        if (id < 1) {
            return null;
        }
        Path p = memoryDir.resolve(ShmMemory.fileName(id));
        ChannelArena arena = ChannelArena.ofShared();
        MappedFile f;
        try {
            f = RingFile.openWatched(p, arena); // an owner-only regular file, no link, as the receiver maps them
        } catch (IOException | RuntimeException e) {
            arena.close();
            return null;
        }
        int slot = next;
        next = (slot + 1) % MAPPINGS;
        if (arenas[slot] != null) {
            arenas[slot].close(); // only this connection's txLock holder touches these mappings
        }
        ids[slot] = id;
        maps[slot] = f.segment();
        files[slot] = f;
        arenas[slot] = arena;
        return f.segment();
    }

    /** True if a file of the target that this side mapped is now shorter than its mapping (a SIGBUS's cause). */
    boolean truncated() {
        for (int i = 0; i < MAPPINGS; i++) {
            MappedFile f = files[i];
            if (f != null && f.truncated()) {
                return true;
            }
        }
        return false;
    }

    /** Unmaps everything ({@code txLock} held, the connection ending). */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < MAPPINGS; i++) {
            if (arenas[i] != null) {
                arenas[i].close();
                arenas[i] = null;
                maps[i] = null;
                files[i] = null;
            }
        }
        tableArena.close();
    }
}
