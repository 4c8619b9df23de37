package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dequeued;
import static io.jdat.testing.DataPath.expectDat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Background;
import io.jdat.testing.DataPath;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_srq_create} and {@code dat_srq_query}: the statements of the two seed pages (SRQ-01..23). */
class SrqCreateQueryTest {
    private static final LmrTriplet[] NONE = new LmrTriplet[0];

    @Test
    @DisplayName("SRQ-08 SRQ-09 SRQ-10 SRQ-03 SRQ-04: the dat_srq_query example: 10 entries, 1 EP, 3 posted -> 10/3/3;"
            + " a Send arrives -> 10/2/3; the consumer dequeues the Recv completion -> 10/2/2")
    void workedExample() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(10, 1, Dat.SRQ_LW_DEFAULT))) {
            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < 3; i++) {
                f.post(100 + i, 1024L * i, 1024);
            }
            f.assertCounts(10, 3, 3, "after 3 posts");
            DataPath.fill(f.clientBuf, 0, 64, 7);
            f.sendAndWait(c, 1, 0, 64); // the Send has arrived once the sender's completion is there
            f.assertCounts(10, 2, 3, "after a Send message arrived");
            DatEvent e = dequeued(c.serverRecv);
            DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, e.userCookie());
            assertTrue(e.userCookie() >= 100 && e.userCookie() <= 102, "an SRQ buffer's cookie: " + e);
            assertEquals(64, e.transferredLength());
            f.assertCounts(10, 2, 2, "after the consumer dequeued the Recv completion");
            DataPath.assertPattern(f.serverBuf, 1024L * (e.userCookie() - 100), 64, 7, 0, "received message");
        }
    }

    @Test
    @DisplayName("SRQ-13 SRQ-14 SRQ-16 SRQ-21: create returns an SRQ attached to no EP with depth and iov as requested"
            + " (query reports the actual values); it can be freed at once; EPs are created on it afterwards")
    void createAndDefaults() {
        try (SrqFixture f = new SrqFixture()) {
            SharedReceiveQueue srq = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(10, 3, 0));
            assertEquals(HandleType.SRQ, srq.getHandleType());
            SrqParam p = srq.query(SrqParam.FIELD_ALL);
            assertSame(f.serverIa, p.iaHandle());
            assertEquals(SrqState.OPERATIONAL, p.srqState());
            assertSame(f.serverPz, p.pzHandle());
            assertTrue(p.maxRecvDtos() >= 10, "depth at least as requested");
            assertTrue(p.maxRecvIov() >= 3, "iov at least as requested");
            assertEquals(0, p.lowWatermark());
            assertEquals(0, p.availableDtoCount());
            assertEquals(0, p.outstandingDtoCount());
            // The depth query reports is the depth there is: that many posts fit, one more does not.
            for (int i = 0; i < p.maxRecvDtos(); i++) {
                srq.postRecv(0, NONE, i);
            }
            expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, () -> srq.postRecv(0, NONE, 99));
            LmrTriplet[] four = DataPath.iov(f.serverLmr, 0, 8, 8, 8, 16, 8, 24, 8);
            srq.free();
            SharedReceiveQueue other = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(10, 3, 0));
            other.postRecv(3, four, 1);
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> other.postRecv(4, four, 2));
            // SRQ-14: attached to no EP, so free succeeds right away.
            other.free();
            // SRQ-21: an EP is created on an existing SRQ.
            Endpoint ep = f.srqEp(f.serverDtoEvd(8), SrqFixture.attr());
            assertSame(f.srq, ep.query(EpParam.FIELD_SRQ_HANDLE).srqHandle());
        }
    }

    @Test
    @DisplayName("SRQ-01 SRQ-02 SRQ-05: query fills at least the masked fields (jdat: all of them for any mask);"
            + " an undefined mask bit is INVALID_PARAMETER, a freed SRQ INVALID_HANDLE")
    void queryMasks() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 2, 1))) {
            f.post(1, 0, 64);
            SrqParam all = f.srq.query(SrqParam.FIELD_ALL);
            assertEquals(0x0FFL, SrqParam.FIELD_ALL);
            long[] masks = {0L, SrqParam.FIELD_IA_HANDLE, SrqParam.FIELD_SRQ_STATE, SrqParam.FIELD_PZ_HANDLE,
                SrqParam.FIELD_MAX_RECV_DTO, SrqParam.FIELD_MAX_RECV_IOV, SrqParam.FIELD_LOW_WATERMARK,
                SrqParam.FIELD_AVAILABLE_DTO_COUNT, SrqParam.FIELD_OUTSTANDING_DTO_COUNT};
            long[] bits = {0x001, 0x002, 0x004, 0x008, 0x010, 0x020, 0x040, 0x080};
            for (int i = 0; i < bits.length; i++) {
                assertEquals(bits[i], masks[i + 1], "DAT_SRQ_FIELD bit " + i);
            }
            for (long m : masks) {
                assertEquals(all, f.srq.query(m), "mask 0x" + Long.toHexString(m));
            }
            assertEquals(new SrqParam(f.serverIa, SrqState.OPERATIONAL, f.serverPz, 8, 2, 1, 1, 1), all,
                    "SRQ attributes plus the two counts (SRQ-02)");
            for (long bad : new long[] {0x100L, 0x1FFL, 1L << 40, -1L}) {
                expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> f.srq.query(bad));
            }
            SharedReceiveQueue gone = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(1, 1, 0));
            gone.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> gone.query(SrqParam.FIELD_ALL));
        }
    }

    @Test
    @DisplayName("SRQ-06 SRQ-07: srq_info_supported reports both counts, and jdat never answers DAT_VALUE_UNKNOWN for them")
    void countsAreKnown() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(16, 1, 0))) {
            ProviderAttr pa = f.serverIa.query(0, ProviderAttr.FIELD_ALL).providerAttr();
            assertEquals(ProviderAttr.SRQ_INFO_AVAILABLE_DTO_COUNT | ProviderAttr.SRQ_INFO_OUTSTANDING_DTO_COUNT,
                    pa.srqInfoSupported());
            assertEquals(-2, Dat.VALUE_UNKNOWN);
            SrqFixture.Conn c = f.connect();
            List<SrqParam> seen = new ArrayList<>();
            seen.add(f.query());
            for (int i = 0; i < 8; i++) {
                f.post(i, 128L * i, 128);
                seen.add(f.query());
            }
            for (int i = 0; i < 8; i++) {
                f.sendAndWait(c, i, 0, 16);
                seen.add(f.query());
                dequeued(c.serverRecv);
                seen.add(f.query());
            }
            for (SrqParam p : seen) {
                assertNotEquals(Dat.VALUE_UNKNOWN, p.availableDtoCount(), p.toString());
                assertNotEquals(Dat.VALUE_UNKNOWN, p.outstandingDtoCount(), p.toString());
            }
            f.assertCounts(16, 0, 0, "all reaped");
        }
    }

    @Test
    @DisplayName("SRQ-17 SRQ-18 AMB-26: created with DAT_SRQ_LW_DEFAULT nothing fires on the empty SRQ; a low_watermark"
            + " given at create is stored (0..max_recv_dtos) but arms no event; negative or above the depth is INVALID_PARAMETER")
    void createWatermark() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 1, Dat.SRQ_LW_DEFAULT))) {
            EventDispatcher async = f.serverIa.asyncEvd();
            assertEquals(0, Dat.SRQ_LW_DEFAULT);
            assertEmpty(async, "empty SRQ with the default mark");
            SrqFixture.Conn c = f.connect();
            f.post(1, 0, 64);
            f.sendAndWait(c, 1, 0, 8);
            assertEmpty(async, "drained to 0 with the default mark");

            SharedReceiveQueue marked = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(8, 1, 5));
            assertEquals(5, marked.query(SrqParam.FIELD_LOW_WATERMARK).lowWatermark());
            assertEmpty(async, "0 available is below 5, but create arms nothing");
            for (int i = 0; i < 8; i++) {
                marked.postRecv(0, NONE, i);
            }
            Endpoint ep = Endpoint.createWithSrq(f.serverIa, f.serverPz, f.serverDtoEvd(16), f.serverDtoEvd(16),
                    EventDispatcher.create(f.serverIa, 4, null, EvdFlags.CONNECTION), marked, SrqFixture.attr());
            SrqFixture.Conn m = f.connect(ep, ep.query(EpParam.FIELD_ALL).recvEvdHandle(),
                    ep.query(EpParam.FIELD_ALL).requestEvdHandle(), ep.query(EpParam.FIELD_ALL).connectEvdHandle());
            for (int i = 0; i < 8; i++) {
                f.sendAndWait(m, i, 0, 0);
            }
            assertEquals(0, marked.query(SrqParam.FIELD_ALL).availableDtoCount());
            assertEmpty(async, "no event until dat_srq_set_lw arms one (SRQ-18)");

            SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(8, 1, 8)).free();
            for (int lw : new int[] {-1, 9, Integer.MIN_VALUE}) {
                expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                        () -> SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(8, 1, lw)));
            }
        }
    }

    @Test
    @DisplayName("SRQ-20 SRQ-13: create returns INVALID_HANDLE for a bad IA or PZ and INVALID_PARAMETER for bad attributes;"
            + " a failed create leaves no object behind")
    void createErrors() {
        try (SrqFixture f = new SrqFixture()) {
            InterfaceAdapter ia = InterfaceAdapter.open("mem", 4, null);
            ProtectionZone pz = ProtectionZone.create(ia);
            ProtectionZone freedPz = ProtectionZone.create(ia);
            freedPz.free();
            SrqAttr ok = new SrqAttr(4, 1, 0);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> SharedReceiveQueue.create(ia, null, ok));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> SharedReceiveQueue.create(ia, freedPz, ok));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> SharedReceiveQueue.create(ia, f.serverPz, ok));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                    () -> SharedReceiveQueue.create(ia, pz, null));
            int maxRecv = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().maxRecvPerSrq();
            int maxIov = ia.query(IaAttr.FIELD_ALL, 0).iaAttr().maxIovSegmentsPerDto();
            SrqAttr[] bad = {new SrqAttr(0, 1, 0), new SrqAttr(-1, 1, 0), new SrqAttr(maxRecv + 1, 1, 0),
                new SrqAttr(4, -1, 0), new SrqAttr(4, maxIov + 1, 0)};
            for (SrqAttr a : bad) {
                expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                        () -> SharedReceiveQueue.create(ia, pz, a));
            }
            // The limits themselves are accepted.
            SharedReceiveQueue.create(ia, pz, new SrqAttr(maxRecv, 1, maxRecv)).free();
            SharedReceiveQueue.create(ia, pz, new SrqAttr(1, maxIov, 0)).free();
            // SRQ-13: nothing was left behind by the failures: a graceful close finds only the PZ.
            pz.free();
            ia.close(CloseFlags.GRACEFUL);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                    () -> SharedReceiveQueue.create(ia, pz, ok));
        }
    }

    @Test
    @DisplayName("SRQ-12: dat_srq_create is MT-safe: SRQs created from 8 threads at once are distinct and usable"
            + " (jdat's query is thread-safe too)")
    void createFromManyThreads() throws Exception {
        try (SrqFixture f = new SrqFixture()) {
            int threads = 8;
            int each = 25;
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Background<List<SharedReceiveQueue>>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers.add(Background.start(() -> {
                    start.await();
                    List<SharedReceiveQueue> mine = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        SharedReceiveQueue s = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(1 + i, 1, 0));
                        s.postRecv(0, NONE, id);
                        assertEquals(new SrqParam(f.serverIa, SrqState.OPERATIONAL, f.serverPz, 1 + i, 1, 0, 1, 1),
                                s.query(SrqParam.FIELD_ALL));
                        mine.add(s);
                    }
                    return mine;
                }));
            }
            Map<SharedReceiveQueue, Boolean> all = new IdentityHashMap<>();
            for (Background<List<SharedReceiveQueue>> w : workers) {
                for (SharedReceiveQueue s : w.join()) {
                    assertNull(all.put(s, true), "the same SRQ twice");
                }
            }
            assertEquals(threads * each, all.size());
            for (SharedReceiveQueue s : all.keySet()) {
                s.free();
            }
        }
    }

    @Test
    @DisplayName("IAQ AMB-29: srq_supported, max_srqs / max_ep_per_srq / max_recv_per_srq are reported; an SRQ is"
            + " DAT_HANDLE_TYPE_SRQ (10) with a consumer context; freed, its helpers give INVALID_HANDLE_SRQ")
    void attributesAndHelpers() {
        try (SrqFixture f = new SrqFixture()) {
            InterfaceAdapter.QueryResult q = f.serverIa.query(IaAttr.FIELD_ALL, ProviderAttr.FIELD_ALL);
            assertTrue(q.providerAttr().srqSupported());
            assertTrue(q.iaAttr().maxSrqs() > 0);
            assertTrue(q.iaAttr().maxEpPerSrq() > 0);
            assertTrue(q.iaAttr().maxRecvPerSrq() > 0);
            assertEquals(10, HandleType.SRQ.code());
            assertEquals(HandleType.SRQ, f.srq.getHandleType());
            assertNull(f.srq.getConsumerContext());
            Object ctx = new Object();
            f.srq.setConsumerContext(ctx);
            assertSame(ctx, f.srq.getConsumerContext());
            f.srq.setConsumerContext(null);
            assertNull(f.srq.getConsumerContext());
            SharedReceiveQueue s = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(1, 1, 0));
            s.setConsumerContext("x");
            s.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, s::getHandleType);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, s::getConsumerContext);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> s.setConsumerContext(null));
        }
    }

    @Test
    @DisplayName("SRQ-15: only buffers whose LMR is in the SRQ's PZ are usable; a posted buffer receives the exact bytes")
    void pzOfBuffers() {
        try (SrqFixture f = new SrqFixture()) {
            ProtectionZone otherPz = ProtectionZone.create(f.serverIa);
            Lmr other = Lmr.create(f.serverIa, MemType.VIRTUAL, RegionDescription.forVa(f.serverBuf), 4096, otherPz,
                    MemPriv.ALL);
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> f.srq.postRecv(1, new LmrTriplet[] {other.triplet(0, 64)}, 1));
            f.assertCounts(64, 0, 0, "after the refused post");
            SrqFixture.Conn c = f.connect();
            f.post(2, 4096, 64);
            byte[] msg = new byte[40];
            for (int i = 0; i < msg.length; i++) {
                msg[i] = (byte) (i * 3 + 1);
            }
            f.clientBuf.asSlice(0, 40).copyFrom(java.lang.foreign.MemorySegment.ofArray(msg));
            f.sendAndWait(c, 9, 0, 40);
            DataPath.dtoOk(c.serverRecv, 2, 40);
            assertArrayEquals(msg, f.serverBuf.asSlice(4096, 40).toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
