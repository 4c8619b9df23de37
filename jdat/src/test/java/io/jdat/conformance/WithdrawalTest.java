package io.jdat.conformance;

import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.sentinel;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.jdat.CompletionFlags;
import io.jdat.DtoCompletionStatus;
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
 * {@code ShmDirectStoreTest}). The same for a peer's RDMA Reads of the region: once the call returned no byte of it
 * is read for them (the consumer may reuse the memory at once, and a Read must not carry the new data), whichever
 * path the transport took (a copy on the requester's thread, a cross-memory write, staged chunks, Read Response
 * FPDUs copied or sent from the region). Not run on verbs: there the device enforces the deregistration itself.
 */
class WithdrawalTest {
    private static final int MIB = 1 << 20;
    private static final int ROUNDS = 3;
    /** The Reads outstanding at once, each into its own MiB of the sink (the EPs' RDMA Read depth). */
    private static final int READ_SLOTS = 4;

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
        rounds(ia, () -> withdrawWhileStreaming(ia, false));
    }

    @EveryTransport
    @DisplayName("RMB-06: while 1 MiB RDMA Writes stream through an RMR binding, an unbind returns only when no byte"
            + " of them can land any more: the range stays as it was, the stream stops and the connection breaks")
    void rmrUnbind(IaUnderTest ia) throws Exception {
        rounds(ia, () -> withdrawWhileStreaming(ia, true));
    }

    @EveryTransport
    @DisplayName("LMF-04: while 1 MiB RDMA Reads stream from an LMR, dat_lmr_free returns only when no byte of the"
            + " region is read for them any more: the region is overwritten at once, no Read brings a byte of the new"
            + " data, the stream stops and the connection breaks")
    void lmrFreeUnderReads(IaUnderTest ia) throws Exception {
        rounds(ia, () -> withdrawWhileReading(ia, false));
    }

    @EveryTransport
    @DisplayName("RMB-06: while 1 MiB RDMA Reads stream through an RMR binding, an unbind returns only when no byte"
            + " of the range is read for them any more: the region is overwritten at once, no Read brings a byte of"
            + " the new data, the stream stops and the connection breaks")
    void rmrUnbindUnderReads(IaUnderTest ia) throws Exception {
        rounds(ia, () -> withdrawWhileReading(ia, true));
    }

    /** One round of a test. */
    private interface Round {
        void run() throws Exception;
    }

    /** {@link #ROUNDS} rounds on {@code ia}; not on verbs, where the device enforces deregistration itself. */
    private static void rounds(IaUnderTest ia, Round round) throws Exception {
        assumeFalse(ia.transport().equals("verbs"), "the device enforces deregistration itself");
        for (int i = 0; i < ROUNDS; i++) {
            round.run();
        }
    }

    /**
     * The server's region: an LMR over 4 MiB of {@code memory} and the remote range, its second MiB: the LMR's own
     * (remote privileges all) or, in the RMR case, that of an RMR bound to it with {@code rmrPrivilege} (the LMR
     * then has local privileges only).
     */
    private record Exposed(Lmr lmr, Rmr rmr, RmrTriplet remote) {
        static Exposed create(Pair p, MemorySegment memory, boolean rmrCase, int rmrPrivilege) {
            Lmr s = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(memory), 4L * MIB, p.server.pz,
                    rmrCase ? MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE : MemPriv.ALL);
            if (!rmrCase) {
                return new Exposed(s, null, s.remoteTriplet(MIB, MIB));
            }
            Rmr rmr = Rmr.create(p.server.pz);
            int ctx = rmr.bind(s.triplet(MIB, MIB), rmrPrivilege, p.server.ep, 9, CompletionFlags.DEFAULT);
            assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, p.server.next(p.server.reqEvd).eventNumber());
            return new Exposed(s, rmr, new RmrTriplet(ctx, s.registeredAddress() + MIB, MIB));
        }

        /** Frees the LMR, or unbinds the RMR. @return what it did, for messages */
        String withdraw(Pair p) {
            if (rmr == null) {
                lmr.free();
                return "lmr free";
            }
            rmr.bind(new LmrTriplet(lmr.lmrContext(), lmr.registeredAddress(), 0), 0, p.server.ep, 10,
                    CompletionFlags.DEFAULT); // an unbind: applied when posted
            return "rmr unbind";
        }

        /** After the withdrawal and the broken connection: the unbind's completion, then frees what is left. */
        void free(Pair p) {
            if (rmr != null) {
                assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, p.server.next(p.server.reqEvd).eventNumber());
                rmr.free();
                lmr.free();
            }
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
            Exposed s = Exposed.create(p, target, rmrCase, MemPriv.REMOTE_WRITE);
            RdmaStream stream = RdmaStream.writes(p.client, c, chunk, s.remote());
            awaitRunning(stream);
            String what = s.withdraw(p);
            // at once: the range's last bytes, which a Write still being placed would write last
            byte[] tail = target.asSlice(2L * MIB - 64, 64).toArray(ValueLayout.JAVA_BYTE);
            byte[] after = target.toArray(ValueLayout.JAVA_BYTE);
            // the Writes posted before the withdrawal arrive (on tcp the target may be some MiB behind): each is
            // refused, the first one breaks the connection
            awaitBroken(p, stream, what);
            // the first Write refused at the target fails with a protection error; where a Write completes once
            // sent (tcp: RDMAP has no acknowledgement) it has completed, and the requests after it are flushed
            assertFirstFailure(stream, ia.requestCompletesWhenSent() ? DtoCompletionStatus.ERR_FLUSHED
                    : DtoCompletionStatus.ERR_REMOTE_ACCESS, what);
            Thread.sleep(20);
            assertArrayEquals(tail, target.asSlice(2L * MIB - 64, 64).toArray(ValueLayout.JAVA_BYTE),
                    "the range's last bytes changed after the " + what + " returned");
            assertArrayEquals(after, target.toArray(ValueLayout.JAVA_BYTE),
                    "bytes changed after the " + what + " returned");
            assertUntouched(target, 0, MIB, "guard before");
            assertUntouched(target, 2L * MIB, 2L * MIB, "guard after");
            s.free(p);
            c.free();
        }
    }

    private static void withdrawWhileReading(IaUnderTest ia, boolean rmrCase) throws Exception {
        byte before = 0x11;
        byte overwritten = 0x77;
        try (Pair p = new Pair(ia.ia(), attr(), 256).connect(); Arena arena = Arena.ofShared()) {
            MemorySegment source = arena.allocate(4L * MIB, 4096);
            source.fill(before);
            MemorySegment sink = arena.allocate((long) READ_SLOTS * MIB, 4096);
            MemorySegment expected = arena.allocate(MIB).fill(before);
            Lmr c = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(sink), (long) READ_SLOTS * MIB,
                    p.client.pz, MemPriv.ALL);
            Exposed s = Exposed.create(p, source, rmrCase, MemPriv.REMOTE_READ);
            // every Read that completes successfully brought the bytes from before the withdrawal, and only them
            RdmaStream stream = RdmaStream.reads(p.client, c, MIB, READ_SLOTS, s.remote(), slot -> {
                long at = sink.asSlice(slot * MIB, MIB).mismatch(expected);
                return at < 0 ? null
                        : "byte " + at + " of a Read is " + sink.get(ValueLayout.JAVA_BYTE, slot * MIB + at);
            });
            awaitRunning(stream);
            String what = s.withdraw(p);
            source.fill(overwritten); // at once: the consumer reuses the memory for other data
            awaitBroken(p, stream, what);
            if (!ia.requestCompletesWhenSent()) {
                // the Read refused fails with a protection error (on tcp it does when the responder can still send
                // a Terminate, see TcpReadSourceWithdrawnTest; a withdrawal within a sent FPDU resets the stream)
                assertFirstFailure(stream, DtoCompletionStatus.ERR_REMOTE_ACCESS, what);
            }
            // nor did any byte of the new data reach the requester in a Read that failed
            for (long i = 0; i < sink.byteSize(); i++) {
                if (sink.get(ValueLayout.JAVA_BYTE, i) == overwritten) {
                    throw new AssertionError("byte " + i % MIB + " of the Read into slot " + i / MIB
                            + " was read after the " + what + " returned");
                }
            }
            s.free(p);
            c.free();
        }
    }

    /** A DTO of the stream failed first with {@code expected}, unless the stream ended at a refused post. */
    private static void assertFirstFailure(RdmaStream stream, DtoCompletionStatus expected, String what) {
        if (stream.failure() != null) {
            assertEquals(expected, stream.failure(), "the first DTO to fail after the " + what);
        }
    }

    private static void awaitRunning(RdmaStream stream) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (stream.succeeded() < 10 && !stream.endedByItself() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(stream.succeeded() >= 10, "the stream runs: " + stream.succeeded() + " DTOs, " + stream.outcome());
    }

    /**
     * The stream stops by itself, no completed DTO was wrong (a Read that brought bytes written after the withdrawal
     * returned), and the connection broke (at the first DTO refused).
     */
    private static void awaitBroken(Pair p, RdmaStream stream, String what) throws InterruptedException {
        assertTrue(stream.awaitEnd(10_000), "the stream stopped at the " + what);
        assertEquals(null, stream.wrong(), "a Read completed successfully with bytes written after the " + what
                + " returned");
        assertTrue(stream.endedByItself(), stream.outcome());
        assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, p.client.next(p.client.connEvd).eventNumber());
    }
}
