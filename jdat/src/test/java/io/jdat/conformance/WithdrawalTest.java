package io.jdat.conformance;

import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.sentinel;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.jdat.CompletionFlags;
import io.jdat.EpAttr;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.Rmr;
import io.jdat.RmrTriplet;
import io.jdat.conformance.Transports.IaUnderTest;
import io.jdat.testing.Pair;
import io.jdat.testing.RdmaStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;

/**
 * {@code dat_lmr_free} and an RMR unbind while a peer's RDMA Writes stream into the region, on every software
 * transport (LMF-04, RMB-06): a Write in flight may land or fail, but once the call returned no byte of any Write
 * lands in the region, whichever path the transport took (a ring record, fragments, cross-memory attach, a socket
 * read straight into the region), and the next Write breaks the connection. The target memory here is plain native
 * memory, so shm takes its ring paths (its direct store into {@code ShmMemory} has its own test,
 * {@code ShmDirectStoreTest}). Not run on verbs: there the device enforces the deregistration itself.
 */
class WithdrawalTest {
    private static final int MIB = 1 << 20;
    private static final int ROUNDS = 3;

    private static EpAttr attr() {
        return new EpAttr().maxMessageSize(4 * MIB).maxRdmaSize(4 * MIB).maxRecvDtos(16).maxRequestDtos(64)
                .maxRecvIov(4).maxRequestIov(4).maxRdmaReadIov(4).maxRdmaWriteIov(4).maxRdmaReadIn(4)
                .maxRdmaReadOut(4);
    }

    @EveryTransport
    @DisplayName("LMF-04: while 1 MiB RDMA Writes stream into an LMR, dat_lmr_free returns only when no byte"
            + " of them can land any more: the region stays as it was when the free returned, the guards around it"
            + " are untouched, the stream stops and the connection breaks")
    void lmrFree(IaUnderTest ia) throws Exception {
        assumeFalse(ia.transport().equals("verbs"), "the device enforces deregistration itself");
        for (int round = 0; round < ROUNDS; round++) {
            withdrawWhileStreaming(ia, false);
        }
    }

    @EveryTransport
    @DisplayName("RMB-06: while 1 MiB RDMA Writes stream through an RMR binding, an unbind returns only when no byte"
            + " of them can land any more: the range stays as it was, the stream stops and the connection breaks")
    void rmrUnbind(IaUnderTest ia) throws Exception {
        assumeFalse(ia.transport().equals("verbs"), "the device enforces deregistration itself");
        for (int round = 0; round < ROUNDS; round++) {
            withdrawWhileStreaming(ia, true);
        }
    }

    private static void withdrawWhileStreaming(IaUnderTest ia, boolean rmrCase) throws Exception {
        int chunk = MIB; // each Write covers the bound range: its last bytes are placed last
        try (Pair p = new Pair(ia.ia(), attr(), 256).connect(); Arena arena = Arena.ofShared()) {
            // two sources of different values, so that consecutive Writes differ
            MemorySegment src = arena.allocate(2L * chunk, 4096);
            src.asSlice(0, chunk).fill((byte) 1);
            src.asSlice(chunk, chunk).fill((byte) 2);
            MemorySegment target = arena.allocate(4L * MIB, 4096);
            sentinel(target);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(src), 2L * chunk, p.client.pz,
                    MemPriv.ALL);
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(target), 4L * MIB,
                    p.server.pz, rmrCase ? MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE : MemPriv.ALL);
            Rmr rmr = null;
            RmrTriplet remote;
            if (rmrCase) {
                rmr = Rmr.create(p.server.pz);
                int ctx = rmr.bind(s.triplet(MIB, MIB), MemPriv.REMOTE_WRITE, p.server.ep, 9, CompletionFlags.DEFAULT);
                assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, p.server.next(p.server.reqEvd).eventNumber());
                remote = new RmrTriplet(ctx, s.registeredAddress() + MIB, MIB);
            } else {
                remote = s.remoteTriplet(MIB, MIB);
            }
            RdmaStream stream = RdmaStream.writes(p.client, c, chunk, remote);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (stream.succeeded() < 10 && !stream.endedByItself() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(stream.succeeded() >= 10, "the stream runs: " + stream.succeeded() + " Writes, "
                    + stream.outcome());
            String what;
            if (rmrCase) {
                what = "rmr unbind";
                rmr.bind(new LmrTriplet(s.lmrContext(), s.registeredAddress(), 0), 0, p.server.ep, 10,
                        CompletionFlags.DEFAULT); // an unbind: applied when posted
            } else {
                what = "lmr free";
                s.free();
            }
            // at once: the range's last bytes, which a Write still being placed would write last
            byte[] tail = target.asSlice(2L * MIB - 64, 64).toArray(ValueLayout.JAVA_BYTE);
            byte[] after = target.toArray(ValueLayout.JAVA_BYTE);
            // the Writes posted before the withdrawal arrive (on tcp the target may be some MiB behind): each is
            // refused, the first one breaks the connection
            assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, p.client.next(p.client.connEvd).eventNumber());
            assertTrue(stream.awaitEnd(10_000), "the stream stopped at the " + what);
            assertTrue(stream.endedByItself(), stream.outcome());
            if (rmrCase) {
                assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, p.server.next(p.server.reqEvd).eventNumber());
            }
            Thread.sleep(20);
            assertArrayEquals(tail, target.asSlice(2L * MIB - 64, 64).toArray(ValueLayout.JAVA_BYTE),
                    "the range's last bytes changed after the " + what + " returned");
            assertArrayEquals(after, target.toArray(ValueLayout.JAVA_BYTE),
                    "bytes changed after the " + what + " returned");
            assertUntouched(target, 0, MIB, "guard before");
            assertUntouched(target, 2L * MIB, 2L * MIB, "guard after");
            if (rmr != null) {
                rmr.free();
                s.free();
            }
            c.free();
        }
    }
}
