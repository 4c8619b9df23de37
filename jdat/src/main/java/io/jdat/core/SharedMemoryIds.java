package io.jdat.core;

import io.jdat.DatReturnSubtype;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The shared-memory identifiers ({@code DAT_LMR_COOKIE}, 40 bytes compared in full, LMR-04) of an IA:
 * every {@code DAT_MEM_TYPE_SHARED_VIRTUAL} registration with the same cookie must name the same memory,
 * else {@code DAT_INVALID_STATE} (LMR-09: the region is not really shared).
 */
final class SharedMemoryIds {
    private record Entry(long address, long size, int[] users) {
    }

    private final Map<ByteBuffer, Entry> ids = new HashMap<>();

    synchronized void claim(byte[] cookie, MemorySegment memory) {
        if (!CoreLmr.validCookie(cookie)) {
            throw Fail.param(3, "shared memory id must be 40 bytes");
        }
        ByteBuffer key = ByteBuffer.wrap(cookie.clone());
        Entry e = ids.get(key);
        if (e == null) {
            ids.put(key, new Entry(memory.address(), memory.byteSize(), new int[] {1}));
            return;
        }
        if (e.address() != memory.address() || e.size() != memory.byteSize()) {
            throw Fail.state(DatReturnSubtype.NO_SUBTYPE, "shared memory id names other memory");
        }
        e.users()[0]++;
    }

    synchronized void release(byte[] cookie) {
        ByteBuffer key = ByteBuffer.wrap(cookie);
        Entry e = ids.get(key);
        if (e != null && --e.users()[0] == 0) {
            ids.remove(key);
        }
    }
}
