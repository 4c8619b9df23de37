package io.jdat.shm;

import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.EpAttr;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link ShmMemory}: memory the peer maps, and the data path that copies through those mappings. */
class ShmMemoryTest {
    private static final int MIB = 1 << 20;

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    @Test
    @DisplayName("allocate: page-rounded, zeroed, an owner-only file found by address; close unmaps it and"
            + " removes the file")
    void lifecycle() throws Exception {
        ShmMemory m = ShmMemory.allocate(5000);
        long[] off = new long[1];
        try {
            assertEquals(8192, m.segment().byteSize());
            assertEquals(0, m.segment().get(ValueLayout.JAVA_LONG, 4096));
            long id = ShmMemory.find(m.segment().address() + 100, 200, off);
            assertTrue(id > 0);
            assertEquals(100, off[0]);
            assertEquals(-1, ShmMemory.find(m.segment().address() + 8000, 500, off), "crosses the end");
            Path file = ShmMemory.home().path(ShmMemory.fileName(id));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals(40, m.sharedMemoryId().length);
            m.close();
            assertFalse(Files.exists(file));
            assertEquals(-1, ShmMemory.find(m.segment().address() + 100, 200, off));
            assertThrows(IllegalStateException.class, () -> m.segment().get(ValueLayout.JAVA_BYTE, 0));
        } finally {
            m.close();
        }
    }

    static Stream<String> ias() {
        return Stream.of(ShmTesting.SHM, ShmTesting.SHM_BOUNCE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ias")
    @DisplayName("SND-01 RWR-01 RDR-02: sends, RDMA Writes and RDMA Reads between ShmMemory on both sides (2-segment"
            + " lists) are served by mapping the requester's memory: every byte arrives, the rest is untouched")
    void transfersThroughMappings(String ia) {
        EpAttr attr = new EpAttr().maxMessageSize(4 * MIB).maxRdmaSize(4 * MIB).maxRecvDtos(8).maxRequestDtos(8)
                .maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4).maxRdmaReadIn(4)
                .maxRdmaReadOut(4);
        try (Pair p = new Pair(ia, attr, 16).connect(); ShmMemory cm = ShmMemory.allocate(4 * MIB);
                ShmMemory sm = ShmMemory.allocate(4 * MIB)) {
            Lmr c = Lmr.create(p.client.ia, MemType.SHARED_VIRTUAL,
                    RegionDescription.forSharedMemory(cm.segment(), cm.sharedMemoryId()), 4 * MIB, p.client.pz, MemPriv.ALL);
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(sm.segment()), 4 * MIB,
                    p.server.pz, MemPriv.ALL);
            long before = ShmReceiver.SHARED_RECORDS.get();
            int n = MIB + 13;
            fill(cm.segment(), 0, n, 1);
            // send: two gather pieces into one receive
            p.server.ep.postRecv(1, new LmrTriplet[] {s.triplet(0, 2 * MIB)}, 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(2, new LmrTriplet[] {c.triplet(0, 1000), c.triplet(1000, n - 1000)}, 2,
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 2, n);
            dtoOk(p.server.recvEvd, 1, n);
            assertPattern(sm.segment(), 0, n, 1, 0, "sent");
            // RDMA Write into the server at 2 MiB
            p.client.ep.postRdmaWrite(2, new LmrTriplet[] {c.triplet(0, 7), c.triplet(7, n - 7)}, 3,
                    s.remoteTriplet(2 * MIB, n), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 3, n);
            assertPattern(sm.segment(), 2 * MIB, n, 1, 0, "written");
            // RDMA Read back into the client at 2 MiB, scattered in two
            p.client.ep.postRdmaRead(2, new LmrTriplet[] {c.triplet(2 * MIB, 4096), c.triplet(2 * MIB + 4096, n)}, 4,
                    s.remoteTriplet(2 * MIB, n), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 4, n);
            assertPattern(cm.segment(), 2 * MIB, n, 1, 0, "read");
            assertEquals(0, cm.segment().get(ValueLayout.JAVA_BYTE, 2 * MIB + n), "past the read");
            long served = ShmReceiver.SHARED_RECORDS.get() - before;
            // the send and the read name client memory the server maps; the write into the server's ShmMemory is
            // stored by the client through its mapping (DirectStore), or, with the direct store off, a record too
            assertEquals(DirectStore.ENABLED ? 2 : 3, served, "records served through mappings");
            c.free();
            s.free();
        }
    }
}
