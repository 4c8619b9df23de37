package io.jdat.conformance;

import static io.jdat.testing.DataPath.assertBytes;
import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUnchanged;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.assertUntouchedExcept;
import static io.jdat.testing.DataPath.attr;
import static io.jdat.testing.DataPath.bytes;
import static io.jdat.testing.DataPath.checkDto;
import static io.jdat.testing.DataPath.concat;
import static io.jdat.testing.DataPath.disconnect;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectBroken;
import static io.jdat.testing.DataPath.expectDat;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.sentinel;
import static io.jdat.testing.DataPath.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.Dat;
import io.jdat.DatEvent;
import io.jdat.DatReturnSubtype;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpAttr;
import io.jdat.EpState;
import io.jdat.EventNumber;
import io.jdat.InterfaceAdapter;
import io.jdat.IovOwnership;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.ProtectionZone;
import io.jdat.ProviderAttr;
import io.jdat.Qos;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.conformance.Transports.IaUnderTest;
import io.jdat.testing.Pair;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code dat_ep_post_rdma_read} and {@code dat_ep_post_rdma_write} on every transport ({@link EveryTransport};
 * CONFORMANCE.md §1.4, §2.3 RDR, §2.4 RWR): scatter and gather, zero length, length errors, local and remote
 * protection errors, flags, EP states, iov ownership, read depth, alignment and concurrent posts.
 */
class RdmaTest {
    private static final DatReturnType PARAM = DatReturnType.INVALID_PARAMETER;

    /**
     * {@link io.jdat.testing.DataPath#attr()} with messages of at most 6 segments: a device bounds a Send's and a
     * receive's segments by its {@code max_sge} (siw: 6), and refuses an EP that asks for more.
     */
    private static EpAttr messageAttr() {
        return attr().maxRecvIov(6).maxRequestIov(6);
    }

    @EveryTransport
    @DisplayName("RDR-01 RDR-02 RDR-03 RDR-04 RDR-06 RDR-19 EPC-07: a 300-byte read into a 4-segment iov fills"
            + " leading segments, one partially, leaves the rest untouched; duplicate cookies come back; no event at"
            + " the target")
    void readScatter(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            fill(p.server.buf, 1000, 300, 30);
            byte[] target = snapshot(p.server.buf);
            p.client.ep.postRdmaRead(4, iov(p.client.lmr, 0, 128, 2048, 64, 4096, 300, 8192, 50), 0xC0FFEEL,
                    p.server.lmr.remoteTriplet(1000, 300), CompletionFlags.DEFAULT);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 12000, 10), 0xC0FFEEL, p.server.lmr.remoteTriplet(1290, 10),
                    CompletionFlags.DEFAULT);
            assertEquals(p.client.ep, dtoOk(p.client.reqEvd, 0xC0FFEEL, 300).ep());
            dtoOk(p.client.reqEvd, 0xC0FFEEL, 10);
            assertPattern(p.client.buf, 0, 128, 30, 0, "segment 0 (full)");
            assertPattern(p.client.buf, 2048, 64, 30, 128, "segment 1 (full)");
            assertPattern(p.client.buf, 4096, 108, 30, 192, "segment 2 (partial)");
            assertPattern(p.client.buf, 12000, 10, 30, 290, "second read");
            assertUntouchedExcept(p.client.buf, 0, 128, 2048, 64, 4096, 108, 12000, 10);
            assertUnchanged(p.server.buf, target, "read source");
            assertEmpty(p.server.recvEvd, "target recv EVD");
            assertEmpty(p.server.reqEvd, "target request EVD");
            assertEmpty(p.client.recvEvd, "initiator recv EVD");
        }
    }

    @EveryTransport
    @DisplayName("RWR-01 RWR-02 RWR-04 RWR-08 EPC-07: a 3-segment write lands gathered in order in the remote"
            + " range; a remote range longer than the data is written only as far as the data; no receive is"
            + " consumed and no event appears at the target")
    void writeGather(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 100, 31);
            fill(p.client.buf, 1000, 37, 32);
            fill(p.client.buf, 5000, 200, 33);
            byte[] msg = concat(bytes(p.client.buf, 0, 100), bytes(p.client.buf, 1000, 37),
                    bytes(p.client.buf, 5000, 200));
            p.server.ep.postRecv(1, iov(p.server.lmr, 20000, 64), 1, CompletionFlags.DEFAULT);
            p.client.ep.postRdmaWrite(3, iov(p.client.lmr, 0, 100, 1000, 37, 5000, 200), 5,
                    p.server.lmr.remoteTriplet(1000, 337), CompletionFlags.DEFAULT);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 5000, 20), 6, p.server.lmr.remoteTriplet(3000, 500),
                    CompletionFlags.DEFAULT);
            assertEquals(p.client.ep, dtoOk(p.client.reqEvd, 5, 337).ep());
            dtoOk(p.client.reqEvd, 6, 20);
            awaitPlaced(ia, p);
            assertBytes(p.server.buf, 1000, msg, 0, 337, "written range");
            assertPattern(p.server.buf, 3000, 20, 33, 0, "short write into a long range");
            assertUntouchedExcept(p.server.buf, 1000, 337, 3000, 20);
            assertEmpty(p.server.recvEvd, "an RDMA Write completes no receive");
            assertEmpty(p.server.reqEvd, "target request EVD");
            assertEmpty(p.client.recvEvd, "initiator recv EVD");
            // the receive is still there: the next message lands in it
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 7, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 7, 8);
            dtoOk(p.server.recvEvd, 1, 8);
            assertPattern(p.server.buf, 20000, 8, 31, 0, "message after the writes");
        }
    }

    @EveryTransport
    @DisplayName("RDR-02 RDR-19 RWR-02 RWR-04: zero-length read and write succeed with transfered_length 0 and"
            + " write nothing, even when the zero-length remote triplet carries a garbage context and address")
    void zeroLength(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            RmrTriplet garbage = new RmrTriplet(0x0BAD_0BAD, 0x1234, 0);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 0, 64), 1, garbage, CompletionFlags.DEFAULT);
            p.client.ep.postRdmaWrite(0, null, 2, garbage, CompletionFlags.DEFAULT);
            p.client.ep.postRdmaWrite(0, null, 3, p.server.lmr.remoteTriplet(0, 64), CompletionFlags.DEFAULT);
            p.client.ep.postRdmaRead(0, null, 4, p.server.lmr.remoteTriplet(0, 0), CompletionFlags.DEFAULT);
            for (long c = 1; c <= 4; c++) {
                dtoOk(p.client.reqEvd, c, 0);
            }
            assertUntouched(p.client.buf, 0, p.client.buf.byteSize(), "initiator memory");
            assertUntouched(p.server.buf, 0, p.server.buf.byteSize(), "target memory");
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
            assertEquals(EpState.CONNECTED, p.server.ep.getStatus().epState());
        }
    }

    @EveryTransport
    @DisplayName("RDR-12 RWR-06 AMB-14: a read whose remote range exceeds the local iov and a write whose data"
            + " exceeds the remote range fail synchronously with DAT_LENGTH_ERROR; nothing moves, the connection"
            + " stays up")
    void lengthErrors(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 301, 34);
            fill(p.server.buf, 0, 301, 35);
            byte[] c0 = snapshot(p.client.buf);
            byte[] s0 = snapshot(p.server.buf);
            expectDat(DatReturnType.LENGTH_ERROR, DatReturnSubtype.NO_SUBTYPE,
                    () -> p.client.ep.postRdmaRead(2, iov(p.client.lmr, 1024, 150, 2048, 150), 1,
                            p.server.lmr.remoteTriplet(0, 301), CompletionFlags.DEFAULT));
            expectDat(DatReturnType.LENGTH_ERROR, DatReturnSubtype.NO_SUBTYPE,
                    () -> p.client.ep.postRdmaRead(0, null, 2, p.server.lmr.remoteTriplet(0, 1),
                            CompletionFlags.DEFAULT));
            expectDat(DatReturnType.LENGTH_ERROR, DatReturnSubtype.NO_SUBTYPE,
                    () -> p.client.ep.postRdmaWrite(2, iov(p.client.lmr, 0, 300, 300, 1), 3,
                            p.server.lmr.remoteTriplet(4096, 300), CompletionFlags.DEFAULT));
            assertTrue(p.client.ep.getStatus().requestIdle(), "nothing was queued");
            assertEmpty(p.client.reqEvd, "no completion for a refused post");
            assertUnchanged(p.client.buf, c0, "initiator memory");
            assertUnchanged(p.server.buf, s0, "target memory");
            // exact fits are fine, and the connection is intact
            p.client.ep.postRdmaRead(2, iov(p.client.lmr, 1024, 150, 2048, 151), 4, p.server.lmr.remoteTriplet(0, 301),
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 4, 301);
            assertPattern(p.client.buf, 1024, 150, 35, 0, "read segment 0");
            assertPattern(p.client.buf, 2048, 151, 35, 150, "read segment 1");
        }
    }

    @EveryTransport
    @DisplayName("RDR-11 RDR-13 RDR-14 RWR-07 EPC-04 AMB-11: local iov errors of read (needs LOCAL_WRITE) and"
            + " write (needs LOCAL_READ) in the order of the checks; max_rdma_size, max_rdma_read/write_iov, bad"
            + " remote triplet and bad flags → DAT_INVALID_PARAMETER; nothing is posted")
    void localErrors(IaUnderTest under) {
        EpAttr a = messageAttr().maxRdmaSize(4096).maxRdmaReadIov(2).maxRdmaWriteIov(3);
        try (Pair p = new Pair(under.ia(), a, 64).connect()) {
            InterfaceAdapter ia = p.client.ia;
            MemorySegment extra = p.client.arena.allocate(4096, 256);
            sentinel(extra);
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            ProtectionZone pz2 = ProtectionZone.create(ia);
            Lmr otherPz = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(extra.asSlice(0, 1024)), 1024, pz2,
                    MemPriv.ALL);
            Lmr readOnly = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(extra.asSlice(1024, 1024)), 1024,
                    p.client.pz, MemPriv.LOCAL_READ | MemPriv.REMOTE_READ);
            Lmr writeOnly = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(extra.asSlice(2048, 1024)), 1024,
                    p.client.pz, MemPriv.LOCAL_WRITE | MemPriv.REMOTE_WRITE);
            Lmr good = p.client.lmr;
            LmrTriplet stale = new LmrTriplet(good.lmrContext() ^ 0x01, good.registeredAddress(), 8);
            LmrTriplet past = good.triplet(good.registeredSize() - 4, 8);
            RmrTriplet remote8 = p.server.lmr.remoteTriplet(0, 8);

            // read: the local iov is written, so it needs LOCAL_WRITE
            readFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE, remote8, stale);
            readFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE, remote8,
                    otherPz.triplet(0, 8));
            readFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE, remote8,
                    readOnly.triplet(0, 8));
            readFails(p, PARAM, DatReturnSubtype.INVALID_ARG3, remote8, past);
            readFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE, remote8,
                    otherPz.triplet(1020, 8));
            readFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE, remote8,
                    readOnly.triplet(1020, 8));
            // local checks precede the length check
            readFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    p.server.lmr.remoteTriplet(0, 100), readOnly.triplet(0, 8));
            // write: the local iov is read, so it needs LOCAL_READ
            writeFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, remote8, stale);
            writeFails(p, DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ, remote8,
                    otherPz.triplet(0, 8));
            writeFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, remote8,
                    writeOnly.triplet(0, 8));
            writeFails(p, PARAM, DatReturnSubtype.INVALID_ARG3, remote8, past);
            writeFails(p, DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ, remote8,
                    writeOnly.triplet(1020, 8));

            // limits and arguments
            readFails(p, PARAM, DatReturnSubtype.INVALID_ARG2, remote8, good.triplet(0, 1), good.triplet(1, 1),
                    good.triplet(2, 1));
            writeFails(p, PARAM, DatReturnSubtype.INVALID_ARG2, remote8, good.triplet(0, 1), good.triplet(1, 1),
                    good.triplet(2, 1), good.triplet(3, 1));
            readFails(p, PARAM, DatReturnSubtype.INVALID_ARG5, p.server.lmr.remoteTriplet(0, 4097),
                    good.triplet(0, 5000));
            writeFails(p, PARAM, DatReturnSubtype.INVALID_ARG5, p.server.lmr.remoteTriplet(0, 5000),
                    good.triplet(0, 4097));
            readFails(p, PARAM, DatReturnSubtype.INVALID_ARG5, null, good.triplet(0, 8));
            writeFails(p, PARAM, DatReturnSubtype.INVALID_ARG5, null, good.triplet(0, 8));
            readFails(p, PARAM, DatReturnSubtype.INVALID_ARG5, new RmrTriplet(remote8.rmrContext(),
                    remote8.targetAddress(), -1), good.triplet(0, 8));
            for (int bad : new int[] {CompletionFlags.UNSIGNALLED, CompletionFlags.SOLICITED_WAIT,
                    CompletionFlags.EVD_THRESHOLD, 0x40}) {
                expectDat(PARAM, DatReturnSubtype.INVALID_ARG6, () -> p.client.ep.postRdmaRead(1,
                        iov(good, 0, 8), 9, remote8, bad));
                expectDat(PARAM, DatReturnSubtype.INVALID_ARG6, () -> p.client.ep.postRdmaWrite(1,
                        iov(good, 0, 8), 9, remote8, bad));
            }

            assertTrue(p.client.ep.getStatus().requestIdle(), "nothing was queued");
            assertEmpty(p.client.reqEvd, "no completion for a refused post");
            assertUntouched(p.client.buf, 0, p.client.buf.byteSize(), "initiator memory");
            assertUntouched(extra, 0, extra.byteSize(), "other LMRs");
            assertUntouched(p.server.buf, 0, p.server.buf.byteSize(), "target memory");
            // the one-privilege LMRs work in the right direction
            fill(extra, 1024, 8, 36);
            p.client.ep.postRdmaWrite(1, new LmrTriplet[] {readOnly.triplet(0, 8)}, 10, remote8,
                    CompletionFlags.DEFAULT);
            p.client.ep.postRdmaRead(1, new LmrTriplet[] {writeOnly.triplet(0, 8)}, 11, remote8,
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 10, 8);
            dtoOk(p.client.reqEvd, 11, 8);
            assertPattern(p.server.buf, 0, 8, 36, 0, "written by a LOCAL_READ LMR");
            assertPattern(extra, 2048, 8, 36, 0, "read into a LOCAL_WRITE LMR");
        }
    }

    private static void readFails(Pair p, DatReturnType type, DatReturnSubtype subtype, RmrTriplet remote,
            LmrTriplet... iov) {
        expectDat(type, subtype, () -> p.client.ep.postRdmaRead(iov.length, iov, 666, remote, CompletionFlags.DEFAULT));
    }

    private static void writeFails(Pair p, DatReturnType type, DatReturnSubtype subtype, RmrTriplet remote,
            LmrTriplet... iov) {
        expectDat(type, subtype, () -> p.client.ep.postRdmaWrite(iov.length, iov, 666, remote,
                CompletionFlags.DEFAULT));
    }

    /**
     * Where an RDMA Write may complete before it is placed ({@link IaUnderTest#requestCompletesWhenSent}: tcp),
     * returns once the target has placed every write posted so far: an RDMA Read (into memory of its own) completes
     * after them. Elsewhere a write's completion already means it was placed.
     */
    private static void awaitPlaced(IaUnderTest ia, Pair p) {
        if (!ia.requestCompletesWhenSent()) {
            return;
        }
        MemorySegment sink = p.client.arena.allocate(8);
        Lmr l = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(sink), 8, p.client.pz,
                MemPriv.LOCAL_WRITE);
        p.client.ep.postRdmaRead(1, new LmrTriplet[] {l.triplet(0, 8)}, 0xF3_0CE, p.server.lmr.remoteTriplet(0, 8),
                CompletionFlags.DEFAULT);
        dtoOk(p.client.reqEvd, 0xF3_0CE, 8);
    }

    /** One remote protection case: builds the remote triplet on the connected pair. */
    record RemoteCase(String name, boolean write, Function<Pair, RmrTriplet> remote) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** Every remote case on every transport. */
    static Stream<Arguments> remoteCases() {
        return Transports.all().flatMap(ia -> Stream.of(
                new RemoteCase("write, rmr_context with a wrong key", true,
                        p -> new RmrTriplet(p.server.lmr.rmrContext() ^ 0x80, p.server.lmr.registeredAddress() + 64, 64)),
                new RemoteCase("read, rmr_context 0", false,
                        p -> new RmrTriplet(0, p.server.lmr.registeredAddress() + 64, 64)),
                new RemoteCase("write into an LMR without remote write", true,
                        p -> lmr(p, 0, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE | MemPriv.REMOTE_READ)
                                .remoteTriplet(64, 64)),
                new RemoteCase("read from an LMR without remote read", false,
                        p -> lmr(p, 0, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE | MemPriv.REMOTE_WRITE)
                                .remoteTriplet(64, 64)),
                new RemoteCase("read through the lmr_context of a local-only LMR (LMR-06)", false,
                        p -> {
                            Lmr l = lmr(p, 0, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
                            assertEquals(0, l.rmrContext(), "no rmr_context without a remote privilege");
                            return new RmrTriplet(l.lmrContext(), l.registeredAddress() + 64, 64);
                        }),
                new RemoteCase("write into an LMR of another PZ at the target (EPC-05)", true,
                        p -> lmr(p, 1, MemPriv.ALL).remoteTriplet(64, 64)),
                new RemoteCase("write past the end of the LMR", true,
                        p -> p.server.lmr.remoteTriplet(p.server.lmr.registeredSize() - 32, 64)),
                new RemoteCase("read starting before the LMR", false,
                        p -> new RmrTriplet(lmr(p, 0, MemPriv.ALL).rmrContext(),
                                p.server.lmr.registeredAddress() + 4096 - 1, 64)))
                .map(c -> Arguments.of(ia, c)));
    }

    /** A server LMR over {@code server.buf[4096..8192)} in the EP's PZ (pz 0) or a new one (pz 1). */
    private static Lmr lmr(Pair p, int pz, int priv) {
        ProtectionZone z = pz == 0 ? p.server.pz : ProtectionZone.create(p.server.ia);
        return Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(p.server.buf.asSlice(4096, 4096)),
                4096, z, priv);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("remoteCases")
    @DisplayName("RWR-09 RDR-13 RDR-14 RWR-07 EPC-05 LMR-06: a remote protection failure completes the request with"
            + " DAT_DTO_ERR_REMOTE_ACCESS, breaks the connection on both sides and moves no byte")
    void remoteViolation(IaUnderTest ia, RemoteCase c) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            sentinel(p.client.buf);
            fill(p.server.buf, 0, p.server.buf.byteSize(), 37);
            fill(p.client.buf, 0, 64, 38);
            RmrTriplet remote = c.remote.apply(p);
            byte[] target = snapshot(p.server.buf);
            if (c.write) {
                p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), 42, remote, CompletionFlags.SUPPRESS);
            } else {
                p.client.ep.postRdmaRead(1, iov(p.client.lmr, 1024, 64), 42, remote, CompletionFlags.SUPPRESS);
            }
            if (c.write && ia.requestCompletesWhenSent()) {
                // the write may have completed once sent (SUCCESS, suppressed) before the target refused it
                expectBroken(p);
                DatEvent e = new DatEvent();
                if (p.client.reqEvd.dequeue(e)) {
                    checkDto(e, DtoCompletionStatus.ERR_REMOTE_ACCESS, 42);
                }
            } else {
                dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 42);
                expectBroken(p);
            }
            assertUnchanged(p.server.buf, target, "target memory");
            assertUntouchedExcept(p.client.buf, 0, 64);
            assertEmpty(p.server.recvEvd, "target recv EVD");
            assertEmpty(p.server.reqEvd, "target request EVD");
        }
    }

    @EveryTransport
    @DisplayName("RDR-07 RDR-08 RWR-03 RDR-06: read and write accept DEFAULT, SUPPRESS (no success event, data still"
            + " moves), BARRIER_FENCE and SUPPRESS|BARRIER_FENCE; UNSIGNALLED on an EP whose request flags are not"
            + " UNSIGNALLED → DAT_INVALID_PARAMETER")
    void flags(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG6, () -> p.client.ep.postRdmaRead(1,
                    iov(p.client.lmr, 1024, 64), 99, p.server.lmr.remoteTriplet(0, 64), CompletionFlags.UNSIGNALLED));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG6, () -> p.client.ep.postRdmaWrite(1,
                    iov(p.client.lmr, 0, 64), 99, p.server.lmr.remoteTriplet(0, 64), CompletionFlags.UNSIGNALLED));
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            fill(p.server.buf, 0, 256, 39);
            fill(p.client.buf, 0, 256, 40);
            int[] flags = {CompletionFlags.SUPPRESS, CompletionFlags.BARRIER_FENCE,
                CompletionFlags.SUPPRESS | CompletionFlags.BARRIER_FENCE, CompletionFlags.DEFAULT};
            for (int i = 0; i < 4; i++) {
                p.client.ep.postRdmaRead(1, iov(p.client.lmr, 1024 + 64 * i, 64), 100 + i,
                        p.server.lmr.remoteTriplet(64 * i, 64), flags[i]);
                p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 64 * i, 64), 200 + i,
                        p.server.lmr.remoteTriplet(4096 + 64 * i, 64), flags[i]);
            }
            dtoOk(p.client.reqEvd, 101, 64);
            dtoOk(p.client.reqEvd, 201, 64);
            dtoOk(p.client.reqEvd, 103, 64);
            dtoOk(p.client.reqEvd, 203, 64);
            assertEmpty(p.client.reqEvd, "suppressed successes");
            awaitPlaced(ia, p);
            assertPattern(p.client.buf, 1024, 256, 39, 0, "read data");
            assertPattern(p.server.buf, 4096, 256, 40, 0, "written data");
            assertUntouchedExcept(p.client.buf, 0, 256, 1024, 256);
            assertUntouchedExcept(p.server.buf, 0, 256, 4096, 256);
        }
    }

    @EveryTransport
    @DisplayName("RDR-09 RDR-10 RDR-15 RWR-05: read and write are refused in UNCONNECTED and"
            + " ACTIVE_CONNECTION_PENDING (DAT_INVALID_STATE), accepted and flushed at once in DISCONNECTED even with"
            + " SUPPRESS, moving nothing; a freed EP → DAT_INVALID_HANDLE")
    void states(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64)) {
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 64, 41);
            fill(p.server.buf, 0, 64, 42);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> p.client.ep.postRdmaRead(1, iov(p.client.lmr, 1024, 64), 1,
                            p.server.lmr.remoteTriplet(0, 64), CompletionFlags.DEFAULT));
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), 2,
                            p.server.lmr.remoteTriplet(1024, 64), CompletionFlags.DEFAULT));
            long qual = p.listen();
            p.client.ep.connect(p.serverAddress(), qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                    () -> p.client.ep.postRdmaRead(1, iov(p.client.lmr, 1024, 64), 3,
                            p.server.lmr.remoteTriplet(0, 64), CompletionFlags.DEFAULT));
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_ACTCONNPENDING,
                    () -> p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), 4,
                            p.server.lmr.remoteTriplet(1024, 64), CompletionFlags.DEFAULT));
            DatEvent cr = p.server.next(p.crEvd);
            cr.cr().accept(p.server.ep, 0, null);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertEmpty(p.client.reqEvd, "refused posts");
            disconnect(p);

            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 1024, 64), 5, p.server.lmr.remoteTriplet(0, 64),
                    CompletionFlags.SUPPRESS);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), 6, p.server.lmr.remoteTriplet(1024, 64),
                    CompletionFlags.SUPPRESS | CompletionFlags.BARRIER_FENCE);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 2048, 64), 7, p.server.lmr.remoteTriplet(0, 64),
                    CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 5);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 6);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 7);
            assertEmpty(p.client.reqEvd, "one flush per post");
            assertUntouchedExcept(p.client.buf, 0, 64);
            assertUntouchedExcept(p.server.buf, 0, 64);

            p.client.ep.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> p.client.ep.postRdmaRead(1, iov(p.client.lmr, 1024, 64), 8,
                            p.server.lmr.remoteTriplet(0, 64), CompletionFlags.DEFAULT));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), 9,
                            p.server.lmr.remoteTriplet(1024, 64), CompletionFlags.DEFAULT));
        }
    }

    @EveryTransport
    @DisplayName("RDR-05 RDR-16: the provider reports DAT_IOV_CONSUMER; a read still queued (behind a send that"
            + " waits for a receive) is unaffected when the consumer rewrites its iov array after the post returned")
    void iovOwnership(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            assertEquals(IovOwnership.CONSUMER,
                    p.client.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr().iovOwnershipOnReturn());
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 16, 43);
            fill(p.server.buf, 8192, 100, 44);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 16), 1, CompletionFlags.DEFAULT);
            LmrTriplet[] sink = iov(p.client.lmr, 1024, 60, 2048, 40);
            p.client.ep.postRdmaRead(2, sink, 2, p.server.lmr.remoteTriplet(8192, 100), CompletionFlags.DEFAULT);
            assertTrue(!p.client.ep.getStatus().requestIdle(), "send and read are queued");
            sink[0] = p.client.lmr.triplet(30000, 60);
            sink[1] = null;
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 16), 3, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 1, 16);
            dtoOk(p.client.reqEvd, 2, 100);
            dtoOk(p.server.recvEvd, 3, 16);
            assertPattern(p.client.buf, 1024, 60, 44, 0, "read segment 0 (as posted)");
            assertPattern(p.client.buf, 2048, 40, 44, 60, "read segment 1 (as posted)");
            assertUntouchedExcept(p.client.buf, 0, 16, 1024, 60, 2048, 40);
        }
    }

    @EveryTransport
    @DisplayName("RDR-17: reads within the target's max_rdma_read_in succeed back to back; a read arriving at an EP"
            + " whose max_rdma_read_in is 0 exceeds it and breaks the connection, moving nothing")
    void readDepth(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), messageAttr().maxRdmaReadIn(1).maxRdmaReadOut(4), 64).connect()) {
            sentinel(p.client.buf);
            fill(p.server.buf, 0, 1024, 45);
            for (int i = 0; i < 8; i++) {
                p.client.ep.postRdmaRead(1, iov(p.client.lmr, 128 * i, 128), i, p.server.lmr.remoteTriplet(128 * i, 128),
                        CompletionFlags.DEFAULT);
            }
            for (int i = 0; i < 8; i++) {
                dtoOk(p.client.reqEvd, i, 128);
            }
            assertPattern(p.client.buf, 0, 1024, 45, 0, "read data");
        }
        try (Pair p = new Pair(ia.ia(), messageAttr().maxRdmaReadIn(0).maxRdmaReadOut(4), 64).connect()) {
            sentinel(p.client.buf);
            fill(p.server.buf, 0, 64, 46);
            byte[] target = snapshot(p.server.buf);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 0, 64), 9, p.server.lmr.remoteTriplet(0, 64),
                    CompletionFlags.DEFAULT);
            DatEvent e = p.client.next(p.client.reqEvd);
            assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber());
            assertEquals(9, e.userCookie());
            assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, e.status());
            expectBroken(p);
            assertUntouched(p.client.buf, 0, p.client.buf.byteSize(), "read sink");
            assertUnchanged(p.server.buf, target, "read source");
        }
    }

    @EveryTransport
    @DisplayName("RDR-18 RDR-02: alignment is advisory — the provider reports an optimal_buffer_alignment that"
            + " divides DAT_OPTIMAL_ALIGNMENT, and reads with odd local and remote addresses transfer exactly")
    void alignment(IaUnderTest ia) {
        try (Pair p = new Pair(ia.ia(), null, 64).connect()) {
            int align = p.client.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr().optimalBufferAlignment();
            assertTrue(align > 0 && Dat.OPTIMAL_ALIGNMENT % align == 0, "optimal_buffer_alignment " + align);
            sentinel(p.client.buf);
            fill(p.server.buf, 0, 512, 47);
            p.client.ep.postRdmaRead(3, iov(p.client.lmr, 1, 7, 259, 33, 1023, 100), 1,
                    p.server.lmr.remoteTriplet(3, 131), CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 1, 131);
            assertPattern(p.client.buf, 1, 7, 47, 3, "segment 0");
            assertPattern(p.client.buf, 259, 33, 47, 10, "segment 1");
            assertPattern(p.client.buf, 1023, 91, 47, 43, "segment 2");
            assertUntouchedExcept(p.client.buf, 1, 7, 259, 33, 1023, 91);
        }
    }

    @EveryTransport
    @DisplayName("RDR-20 RDR-04 RWR-04: jdat's posts are thread-safe — 2 threads post 500 reads and 500 writes each"
            + " on one EP with one duplicate cookie per thread; every transfer completes with the right bytes")
    void concurrentPosts(IaUnderTest ia) throws Exception {
        EpAttr a = messageAttr().maxRequestDtos(4096);
        try (Pair p = new Pair(ia.ia(), a, 4096).connect()) {
            fill(p.server.buf, 0, 16_000, 48);
            fill(p.client.buf, 32_768, 16_000, 49);
            sentinel(p.client.buf.asSlice(0, 16_000));
            sentinel(p.server.buf.asSlice(32_768, 16_000));
            CountDownLatch start = new CountDownLatch(1);
            List<Throwable> failures = new ArrayList<>();
            Thread[] ts = new Thread[2];
            for (int t = 0; t < 2; t++) {
                final int id = t;
                ts[t] = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < 500; i++) {
                            long off = 16L * (id * 500 + i);
                            p.client.ep.postRdmaRead(1, iov(p.client.lmr, off, 16), id,
                                    p.server.lmr.remoteTriplet(off, 16), CompletionFlags.DEFAULT);
                            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 32_768 + off, 16), id,
                                    p.server.lmr.remoteTriplet(32_768 + off, 16), CompletionFlags.DEFAULT);
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                ts[t].start();
            }
            start.countDown();
            for (Thread t : ts) {
                t.join(30_000);
                assertTrue(!t.isAlive(), "poster finished");
            }
            assertTrue(failures.isEmpty(), () -> "poster failed: " + failures);
            int[] perCookie = new int[2];
            DatEvent e = new DatEvent();
            for (int i = 0; i < 2000; i++) {
                assertTrue(p.client.reqEvd.waitFor(5_000_000, 1, e), "completion " + i);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                assertEquals(16, e.transferredLength());
                perCookie[(int) e.userCookie()]++;
            }
            assertEquals(1000, perCookie[0]);
            assertEquals(1000, perCookie[1]);
            assertEmpty(p.client.reqEvd, "no extra completion");
            awaitPlaced(ia, p);
            assertPattern(p.client.buf, 0, 16_000, 48, 0, "read data");
            assertPattern(p.server.buf, 32_768, 16_000, 49, 0, "written data");
        }
    }
}
