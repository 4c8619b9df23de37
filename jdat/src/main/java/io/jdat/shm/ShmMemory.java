package io.jdat.shm;

import io.jdat.DatException;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory for the {@code shm} provider that a peer process can map: native memory backed by an owner-only file
 * of this process, the {@code shm} counterpart of DAT's shared memory ({@code DAT_MEM_TYPE_SHARED_VIRTUAL}).
 *
 * <p>Register {@link #segment()} like any native memory ({@code RegionDescription.forVa}, or
 * {@code forSharedMemory} with {@link #sharedMemoryId()}). When every segment of a transfer lies in such
 * memory, the side that moves the bytes (the owner of the target memory, after its core's checks) maps the
 * requester's file once per connection and copies with {@code MemorySegment.copy}: one copy, no system call,
 * at memory bandwidth. Other native memory is reached with cross-memory attach, or through the ring.
 *
 * <h2>Ownership and lifetime</h2>
 * The instance owns the mapping and the file; {@link #close()} unmaps the segment (any access afterwards
 * throws {@link IllegalStateException}, as for a closed {@link Arena}) and removes the file name. Close it
 * only after the LMRs on it are freed and no transfer names it. A peer that mapped it keeps its mapping (and
 * the pages) until its connection ends, but no new peer can map it. The segment is shared: any thread may
 * access it. The files live in the directory of the first {@code shm} IA opened by the process (in the base
 * directory of its {@code dir=} parameter, if given), or in the default base directory if memory is allocated
 * before any IA opens. They are removed when the JVM exits, SIGINT and SIGTERM included; files of a process
 * that dies without running its shutdown hooks (SIGKILL) are removed by the next {@code shm} IA opened on the
 * host.
 */
public final class ShmMemory implements AutoCloseable {
    private static final AtomicLong IDS = new AtomicLong(1);
    private static volatile ShmFiles.Instance home;
    /** Live regions, sorted by address, copy-on-write under the class lock. */
    private static volatile ShmMemory[] live = new ShmMemory[0];

    private final long id;
    private final Path file;
    private final Arena arena;
    private final MemorySegment segment;
    private final long base;
    private final long end;

    private ShmMemory(long id, Path file, Arena arena, MemorySegment segment) {
        this.id = id;
        this.file = file;
        this.arena = arena;
        this.segment = segment;
        this.base = segment.address();
        this.end = base + segment.byteSize();
    }

    /**
     * Allocates {@code size} bytes (rounded up to pages, zero-filled) of memory a peer can map.
     *
     * @param size bytes, at least 1
     * @return the memory; the caller owns it and closes it
     * @throws IllegalArgumentException if {@code size < 1}
     * @throws DatException {@link DatReturnType#INSUFFICIENT_RESOURCES} if the file cannot be created or mapped
     */
    public static ShmMemory allocate(long size) {
        if (size < 1) {
            throw new IllegalArgumentException("size < 1: " + size);
        }
        long bytes = (size + 4095) & -4096L;
        ShmFiles.Instance h = home();
        long id = IDS.getAndIncrement();
        String name = fileName(id);
        Arena arena = Arena.ofShared();
        try (FileChannel ch = h.createFile(name, bytes)) {
            MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            ShmMemory m = new ShmMemory(id, h.path(name), arena, seg);
            add(m);
            return m;
        } catch (IOException | RuntimeException e) {
            arena.close();
            if (e instanceof DatException d) {
                throw d;
            }
            throw new DatException(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY,
                    "cannot map " + bytes + " bytes of shm memory: " + e);
        }
    }

    /** The memory. */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * A 40-byte shared memory id ({@code DAT_LMR_COOKIE}) naming this memory on the host, for
     * {@code RegionDescription.forSharedMemory}.
     */
    public byte[] sharedMemoryId() {
        byte[] b = new byte[40];
        ByteBuffer.wrap(b).putLong(ProcessHandle.current().pid()).putLong(id)
                .put(Arrays.copyOf("jdat-shm".getBytes(StandardCharsets.US_ASCII), 24));
        return b;
    }

    /** Unmaps the memory and removes its file name. Idempotent. */
    @Override
    public void close() {
        synchronized (ShmMemory.class) {
            if (!arena.scope().isAlive()) {
                return;
            }
            remove(this);
            arena.close();
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // removed with the directory at exit, or by the next open after a crash
        }
    }

    @Override
    public String toString() {
        return "ShmMemory[" + file + ", " + segment.byteSize() + " bytes]";
    }

    // ------------------------------------------------------------------ for the transport

    /**
     * The directory of this process's shared memory files: created with the first IA or allocation, in the
     * default base directory ({@link ShmFiles#open()}). Removed when the JVM exits (or by the next IA opened on
     * the host after a crash).
     */
    static ShmFiles.Instance home() {
        return home(null);
    }

    /**
     * Like {@link #home()}, but a directory created now goes into {@code base} (the base of the IA being opened,
     * which may be the one of its {@code dir=} parameter) instead of the default base: an IA given its own
     * directory never touches the default one, which another user may have squatted.
     *
     * @param base where to create the directory if there is none yet; null for the default base
     */
    static synchronized ShmFiles.Instance home(ShmFiles base) {
        ShmFiles.Instance h = home;
        if (h == null || h.isClosed()) {
            h = (base != null ? base : ShmFiles.open()).createInstance();
            home = h;
        }
        return h;
    }

    static String fileName(long id) {
        return "m-" + id;
    }

    /**
     * Where {@code [address, address + length)} lies in live shared memory: the memory's id, with the offset in
     * {@code out[0]}; or -1 if it is not wholly inside one. Allocation-free.
     */
    static long find(long address, long length, long[] out) {
        ShmMemory[] a = live;
        int lo = 0;
        int hi = a.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            ShmMemory m = a[mid];
            if (address < m.base) {
                hi = mid - 1;
            } else if (address >= m.end) {
                lo = mid + 1;
            } else {
                if (length > m.end - address) {
                    return -1;
                }
                out[0] = address - m.base;
                return m.id;
            }
        }
        return -1;
    }

    /** Whether any shared memory is live (a cheap test before {@link #find}). */
    static boolean any() {
        return live.length != 0;
    }

    private static synchronized void add(ShmMemory m) {
        ShmMemory[] a = Arrays.copyOf(live, live.length + 1);
        int i = a.length - 1;
        while (i > 0 && a[i - 1].base > m.base) {
            a[i] = a[i - 1];
            i--;
        }
        a[i] = m;
        live = a;
    }

    private static void remove(ShmMemory m) {
        ShmMemory[] a = live;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == m) {
                ShmMemory[] n = new ShmMemory[a.length - 1];
                System.arraycopy(a, 0, n, 0, i);
                System.arraycopy(a, i + 1, n, i, a.length - i - 1);
                live = n;
                return;
            }
        }
    }
}
