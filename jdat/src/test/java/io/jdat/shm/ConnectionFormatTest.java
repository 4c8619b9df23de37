package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link ConnectionLayout#format} of a new connection file (issue 18): it writes the header page and the rings'
 * header fields only. A new file reads as zeros; zeroing the data areas as well made every idle {@code shm}
 * connection 2.3 MB resident (two 1 MiB rings), 2.3 GB for 1024 connections.
 */
class ConnectionFormatTest {
    private static final int RING = 65536;
    private static final int STAGING = 8192;

    @Test
    @DisplayName("format leaves the rings' data areas and the staging areas unwritten; the rings attach")
    void formatWritesHeadersOnly() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment file = arena.allocate(ConnectionLayout.fileLength(RING, STAGING), 4096);
            long[] dataAt = {
                ConnectionLayout.ringOffset(RING, true) + RingDescriptor.HEADER_LENGTH,
                ConnectionLayout.ringOffset(RING, false) + RingDescriptor.HEADER_LENGTH,
                ConnectionLayout.stagingOffset(RING, STAGING, true),
                ConnectionLayout.stagingOffset(RING, STAGING, false),
            };
            for (long at : dataAt) {
                file.asSlice(at, STAGING).fill((byte) 0x5A); // stands for "never touched"
            }
            ConnectionLayout.format(file, RING, STAGING);
            for (long at : dataAt) {
                assertEquals(0x5A, file.get(ValueLayout.JAVA_BYTE, at), "written at " + at);
                assertEquals(0x5A, file.get(ValueLayout.JAVA_BYTE, at + STAGING - 1));
            }
            file.asSlice(dataAt[0], STAGING).fill((byte) 0); // a new file's zeros
            file.asSlice(dataAt[1], STAGING).fill((byte) 0);
            assertDoesNotThrow(() -> ShmRing.producer(file.asSlice(ConnectionLayout.ringOffset(RING, true))));
            assertDoesNotThrow(() -> ShmRing.consumer(file.asSlice(ConnectionLayout.ringOffset(RING, false)),
                    Records.MAX_TYPE));
        }
    }
}
