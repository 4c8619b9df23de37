package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertUnchanged;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.assertUntouchedExcept;
import static io.jdat.testing.DataPath.attr;
import static io.jdat.testing.DataPath.bind;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** LMR, RMR and PZ (CONFORMANCE §2.14), with the remote checks they feed (EPC-05, EPC-08). */
class MemoryRegionTest {
    private static final DatReturnType PARAM = DatReturnType.INVALID_PARAMETER;

    /** One IA with a PZ and native memory, for tests that need no connection. */
    private static final class Local implements AutoCloseable {
        final InterfaceAdapter ia = InterfaceAdapter.open("mem", 16, null);
        final ProtectionZone pz = ProtectionZone.create(ia);
        final Arena arena = Arena.ofShared();
        final MemorySegment mem = arena.allocate(16_384, 256);

        Lmr lmr(long off, long len, ProtectionZone z, int priv) {
            return Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(mem.asSlice(off, len)), len, z, priv);
        }

        @Override
        public void close() {
            ia.close(CloseFlags.ABRUPT);
            arena.close();
        }
    }

    // ================================================================== LMR

    @Test
    @DisplayName("LMR-01 LMR-02 LMR-05 LMR-07 LMR-08: a VIRTUAL LMR registers [for_va, for_va+length), reports its"
            + " parameters and OUT values, and its lmr_context carries a message into exactly that range")
    void virtualLmr() {
        assertEquals(0x33, MemPriv.ALL);
        assertEquals(0x00, MemPriv.NONE);
        try (Pair p = new Pair().connect()) {
            MemorySegment seg = p.server.arena.allocate(10_000, 256).asSlice(100, 5000);
            sentinel(seg);
            Lmr l = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 3000, p.server.pz,
                    MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE);
            assertTrue(l.registeredAddress() <= seg.address(), "registered range starts at or before for_va");
            assertTrue(l.registeredAddress() + l.registeredSize() >= seg.address() + 3000, "and covers the length");
            assertEquals(0, l.rmrContext(), "no rmr_context without a remote privilege (LMR-06)");
            LmrParam q = l.query(LmrParam.FIELD_ALL);
            assertSame(p.server.ia, q.iaHandle());
            assertEquals(MemType.VIRTUAL, q.memType());
            assertEquals(RegionDescription.forVa(seg), q.regionDescription());
            assertEquals(3000, q.length());
            assertSame(p.server.pz, q.pzHandle());
            assertEquals(MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE, q.memPriv());
            assertEquals(l.lmrContext(), q.lmrContext());
            assertEquals(0, q.rmrContext());
            assertEquals(l.registeredSize(), q.registeredSize());
            assertEquals(l.registeredAddress(), q.registeredAddress());
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> l.query(0x400));

            // the context is usable in a DTO, in-bounds only
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> p.server.ep.postRecv(1,
                    new LmrTriplet[] {new LmrTriplet(l.lmrContext(), seg.address() + 2999, 2)}, 1, 0));
            p.server.ep.postRecv(1, new LmrTriplet[] {new LmrTriplet(l.lmrContext(), seg.address() + 2900, 100)}, 1,
                    CompletionFlags.DEFAULT);
            fill(p.client.buf, 0, 100, 50);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 100), 2, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 2, 100);
            dtoOk(p.server.recvEvd, 1, 100);
            assertPattern(seg, 2900, 100, 50, 0, "message in the LMR");
            assertUntouchedExcept(seg, 2900, 100);
        }
    }

    @Test
    @DisplayName("LMR-05 LMR-06 LMR-10: privileges default to none — an LMR with DAT_MEM_PRIV_NONE gets no"
            + " rmr_context and fails every local use with DAT_PRIVILEGES_VIOLATION; undefined privilege bits →"
            + " DAT_INVALID_PARAMETER")
    void noPrivileges() {
        try (Local t = new Local()) {
            Lmr none = t.lmr(0, 1024, t.pz, MemPriv.NONE);
            assertEquals(0, none.rmrContext());
            assertEquals(MemPriv.NONE, none.query(LmrParam.FIELD_MEM_PRIV).memPriv());
            Endpoint ep = Endpoint.create(t.ia, t.pz, null, null, null, attr());
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> ep.postRecv(1, new LmrTriplet[] {none.triplet(0, 8)}, 1, CompletionFlags.DEFAULT));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.NO_SUBTYPE,
                    () -> Rmr.create(t.pz).bind(none.triplet(0, 8), MemPriv.REMOTE_READ, ep, 1, 0));
            Lmr remote = t.lmr(1024, 1024, t.pz, MemPriv.REMOTE_WRITE);
            assertNotEquals(0, remote.rmrContext(), "a remote privilege yields an rmr_context");
            assertEquals(remote.rmrContext(), remote.query(LmrParam.FIELD_RMR_CONTEXT).rmrContext());
            for (int bad : new int[] {0x40, 0x04, 0x100, -1}) {
                expectDat(PARAM, DatReturnSubtype.INVALID_ARG6, () -> t.lmr(2048, 8, t.pz, bad));
            }
        }
    }

    @Test
    @DisplayName("LMR-03 PZ-02: DAT_MEM_TYPE_LMR re-registers an existing LMR's memory (length ignored) in another"
            + " PZ with other privileges; each registration answers only for its own PZ and rights")
    void lmrOfLmr() {
        try (Local t = new Local()) {
            Lmr orig = t.lmr(4096, 2048, t.pz, MemPriv.ALL);
            ProtectionZone pz2 = ProtectionZone.create(t.ia);
            Lmr again = Lmr.create(t.ia, MemType.LMR, RegionDescription.forLmr(orig), 1, pz2, MemPriv.LOCAL_READ);
            assertNotEquals(orig.lmrContext(), again.lmrContext());
            assertEquals(orig.registeredAddress(), again.registeredAddress());
            assertEquals(orig.registeredSize(), again.registeredSize());
            assertEquals(0, again.rmrContext());
            LmrParam q = again.query(LmrParam.FIELD_ALL);
            assertEquals(MemType.LMR, q.memType());
            assertSame(pz2, q.pzHandle());
            assertEquals(MemPriv.LOCAL_READ, q.memPriv());

            Endpoint ep1 = Endpoint.create(t.ia, t.pz, null, null, null, attr());
            Endpoint ep2 = Endpoint.create(t.ia, pz2, null, null, null, attr());
            // the new LMR lacks LOCAL_WRITE; the old one is in the other PZ
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> ep2.postRecv(1, new LmrTriplet[] {again.triplet(2040, 8)}, 1, 0));
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> ep2.postRecv(1, new LmrTriplet[] {orig.triplet(0, 8)}, 1, 0));
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> ep1.postRecv(1, new LmrTriplet[] {again.triplet(0, 8)}, 1, 0));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2,
                    () -> Lmr.syncRdmaRead(t.ia, new LmrTriplet[] {again.triplet(2040, 9)}, 1));
            Lmr.syncRdmaRead(t.ia, new LmrTriplet[] {again.triplet(2040, 8)}, 1);
            ep1.postRecv(1, new LmrTriplet[] {orig.triplet(0, 8)}, 1, 0);

            // PZ-02: the LMR-type registration keeps pz2 in use
            ep2.free();
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, pz2::free);
            again.free();
            pz2.free();
            // a freed LMR cannot be re-registered
            orig.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_LMR,
                    () -> Lmr.create(t.ia, MemType.LMR, RegionDescription.forLmr(orig), 0, t.pz, MemPriv.ALL));
        }
    }

    @Test
    @DisplayName("LMR-04 LMR-09 LMR-10: DAT_MEM_TYPE_SHARED_VIRTUAL names memory by a 40-byte cookie compared in"
            + " full; the same cookie for other memory → DAT_INVALID_STATE; a cookie of another size →"
            + " DAT_INVALID_PARAMETER")
    void sharedVirtual() {
        try (Local t = new Local()) {
            byte[] a = new byte[Dat.LMR_COOKIE_SIZE];
            a[1] = 7; // a[0] = 0: as C strings all these cookies would be empty and equal
            byte[] b = a.clone();
            b[39] = 1;
            MemorySegment m1 = t.mem.asSlice(0, 4096);
            MemorySegment m2 = t.mem.asSlice(4096, 4096);
            Lmr s1 = Lmr.create(t.ia, MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m1, a), 4096, t.pz,
                    MemPriv.ALL);
            Lmr s2 = Lmr.create(t.ia, MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m1, a.clone()), 4096,
                    t.pz, MemPriv.LOCAL_READ);
            assertNotEquals(s1.lmrContext(), s2.lmrContext());
            assertEquals(s1.registeredAddress(), s2.registeredAddress());
            assertEquals(MemType.SHARED_VIRTUAL, s2.query(LmrParam.FIELD_MEM_TYPE).memType());
            Lmr s3 = Lmr.create(t.ia, MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m2, b), 4096, t.pz,
                    MemPriv.ALL);
            assertEquals(m2.address(), s3.registeredAddress());
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.NO_SUBTYPE,
                    () -> Lmr.create(t.ia, MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m2, a), 4096,
                            t.pz, MemPriv.ALL));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> Lmr.create(t.ia, MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m1, new byte[39]),
                            4096, t.pz, MemPriv.ALL));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> Lmr.create(t.ia, MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m1, new byte[41]),
                            4096, t.pz, MemPriv.ALL));
            // once every registration of cookie a is gone, it may name other memory
            s1.free();
            s2.free();
            Lmr s4 = Lmr.create(t.ia, MemType.SHARED_VIRTUAL, RegionDescription.forSharedMemory(m2, a), 4096, t.pz,
                    MemPriv.ALL);
            assertEquals(m2.address(), s4.registeredAddress());
            s3.free();
            s4.free();
        }
    }

    @Test
    @DisplayName("LMR-09 LMR-10 LMR-11 AMB-20 AMB-21: zero length → DAT_LENGTH_ERROR; heap memory, a length beyond"
            + " the segment, a closed or confined arena, a mismatched description → DAT_INVALID_PARAMETER; unsupported memory"
            + " type → DAT_MODEL_NOT_SUPPORTED; NULL, freed or foreign PZ → DAT_INVALID_HANDLE")
    void lmrCreateErrors() {
        try (Local t = new Local(); InterfaceAdapter other = InterfaceAdapter.open("mem", 16, null)) {
            MemorySegment m = t.mem.asSlice(0, 4096);
            expectDat(DatReturnType.LENGTH_ERROR, DatReturnSubtype.NO_SUBTYPE,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, RegionDescription.forVa(m), 0, t.pz, MemPriv.ALL));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> Lmr.create(t.ia, MemType.VIRTUAL,
                    RegionDescription.forVa(MemorySegment.ofArray(new byte[4096])), 4096, t.pz, MemPriv.ALL));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, RegionDescription.forVa(m), 4097, t.pz, MemPriv.ALL));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG4,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, RegionDescription.forVa(m), -1, t.pz, MemPriv.ALL));
            MemorySegment gone;
            try (Arena a = Arena.ofConfined()) {
                gone = a.allocate(64);
            }
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, RegionDescription.forVa(gone), 64, t.pz, MemPriv.ALL));
            try (Arena a = Arena.ofConfined()) {
                // providers touch registered memory on their own threads: confined memory is refused
                MemorySegment confined = a.allocate(64);
                expectDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> Lmr.create(t.ia, MemType.VIRTUAL,
                        RegionDescription.forVa(confined), 64, t.pz, MemPriv.ALL));
            }
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> Lmr.create(t.ia, MemType.LMR, RegionDescription.forVa(m), 4096, t.pz, MemPriv.ALL));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, null, 4096, t.pz, MemPriv.ALL));
            expectDat(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE,
                    () -> Lmr.create(t.ia, 3, RegionDescription.forVa(m), 4096, t.pz, MemPriv.ALL));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, RegionDescription.forVa(m), 4096, null, MemPriv.ALL));
            ProtectionZone foreign = ProtectionZone.create(other);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, RegionDescription.forVa(m), 4096, foreign, MemPriv.ALL));
            ProtectionZone freed = ProtectionZone.create(t.ia);
            freed.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> Lmr.create(t.ia, MemType.VIRTUAL, RegionDescription.forVa(m), 4096, freed, MemPriv.ALL));
            // nothing was registered by the failures: the PZ is free to go
            t.pz.free();
        }
    }

    @Test
    @DisplayName("LMR-12 LMF-03 LMF-05 LMF-02 RDR-14 SND-08: register → free → register the same buffer succeeds with"
            + " a new context; a DTO naming the freed LMR fails with DAT_PRIVILEGES_VIOLATION (invalid LMR, as the"
            + " seed page says); the freed handle is invalid; its memory is untouched and still usable")
    void reRegisterAndFreedLmr() {
        try (Pair p = new Pair().connect()) {
            MemorySegment seg = p.client.arena.allocate(4096, 256);
            fill(seg, 0, 4096, 51);
            Lmr first = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, p.client.pz,
                    MemPriv.ALL);
            LmrTriplet[] oldIov = {first.triplet(0, 64)};
            first.free();
            assertPattern(seg, 0, 4096, 51, 0, "memory of a freed LMR (LMF-02)");
            seg.set(ValueLayout.JAVA_BYTE, 0, (byte) 1); // still mapped and writable
            fill(seg, 0, 1, 51);
            Lmr second = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, p.client.pz,
                    MemPriv.ALL);
            assertNotEquals(oldIov[0].lmrContext(), second.lmrContext(), "a new registration has a new context");

            // LMF-03: send, recv, RDMA Read and Write with the freed context
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ,
                    () -> p.client.ep.postSend(1, oldIov, 1, 0));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> p.client.ep.postRecv(1, oldIov, 1, 0));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> p.client.ep.postRdmaRead(1, oldIov, 1, p.server.lmr.remoteTriplet(0, 64), 0));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_READ,
                    () -> p.client.ep.postRdmaWrite(1, oldIov, 1, p.server.lmr.remoteTriplet(0, 64), 0));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> Lmr.syncRdmaWrite(p.client.ia, oldIov, 1));
            assertEmpty(p.client.reqEvd, "refused posts");

            // LMF-05
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_LMR, first::free);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_LMR,
                    () -> first.query(LmrParam.FIELD_ALL));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_LMR, first::lmrContext);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_LMR, first::getHandleType);

            // the new registration of the same memory works
            sentinel(p.server.buf);
            p.client.ep.postRdmaWrite(1, new LmrTriplet[] {second.triplet(0, 64)}, 2, p.server.lmr.remoteTriplet(0, 64),
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 2, 64);
            assertPattern(p.server.buf, 0, 64, 51, 0, "written from the re-registered buffer");
            assertUntouchedExcept(p.server.buf, 0, 64);
        }
    }

    @Test
    @DisplayName("LMF-04 LMF-02: an RDMA Write with the rmr_context of an LMR freed at the target fails with"
            + " DAT_DTO_ERR_REMOTE_ACCESS, breaks the connection and writes nothing")
    void remoteUseOfFreedLmr() {
        try (Pair p = new Pair().connect()) {
            MemorySegment seg = p.server.arena.allocate(4096, 256);
            sentinel(seg);
            Lmr l = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, p.server.pz,
                    MemPriv.ALL);
            RmrTriplet remote = l.remoteTriplet(0, 64);
            fill(p.client.buf, 0, 128, 52);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 64), 1, remote, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 1, 64);
            assertPattern(seg, 0, 64, 52, 0, "write before the free");
            l.free();
            byte[] target = snapshot(p.server.buf);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 64, 64), 2, remote, CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 2);
            expectBroken(p);
            assertPattern(seg, 0, 64, 52, 0, "freed LMR memory keeps its bytes");
            assertUntouched(seg, 64, 4096 - 64, "freed LMR memory");
            assertUnchanged(p.server.buf, target, "other target memory");
        }
    }

    @Test
    @DisplayName("LSY-01: with lmr_sync_req FALSE, lmr_sync_rdma_read/write accept segments of different LMRs and"
            + " PZs (and zero segments); a segment outside its LMR or of no LMR → DAT_INVALID_PARAMETER; closed IA"
            + " → DAT_INVALID_HANDLE")
    void lmrSync() {
        InterfaceAdapter closed;
        try (Local t = new Local()) {
            closed = t.ia;
            assertFalse(t.ia.query(0, ProviderAttr.FIELD_ALL).providerAttr().lmrSyncReq());
            ProtectionZone pz2 = ProtectionZone.create(t.ia);
            Lmr a = t.lmr(0, 1024, t.pz, MemPriv.LOCAL_READ);
            Lmr b = t.lmr(4096, 1024, pz2, MemPriv.REMOTE_WRITE);
            LmrTriplet[] two = {a.triplet(0, 1024), b.triplet(100, 924)};
            Lmr.syncRdmaRead(t.ia, two, 2);
            Lmr.syncRdmaWrite(t.ia, two, 2);
            Lmr.syncRdmaRead(t.ia, null, 0);
            Lmr.syncRdmaWrite(t.ia, two, 1);
            LmrTriplet[] bad = {a.triplet(0, 8), b.triplet(1000, 25)};
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> Lmr.syncRdmaRead(t.ia, bad, 2));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> Lmr.syncRdmaWrite(t.ia, bad, 2));
            Lmr.syncRdmaWrite(t.ia, bad, 1); // only the first segment counts
            LmrTriplet[] nobody = {new LmrTriplet(0x7777_7701, a.registeredAddress(), 8)};
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> Lmr.syncRdmaRead(t.ia, nobody, 1));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> Lmr.syncRdmaRead(t.ia, two, 3));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3, () -> Lmr.syncRdmaRead(t.ia, two, -1));
        }
        expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                () -> Lmr.syncRdmaRead(closed, null, 0));
    }

    // ================================================================== RMR

    @Test
    @DisplayName("RMC-01 PZ-03: rmr_create gives an unbound RMR; rmr_query without the LMR_TRIPLET bit succeeds and"
            + " reports IA and PZ; the RMR keeps its PZ in use")
    void rmrCreate() {
        try (Local t = new Local()) {
            ProtectionZone pz2 = ProtectionZone.create(t.ia);
            Rmr r = Rmr.create(pz2);
            assertEquals(HandleType.RMR, r.getHandleType());
            RmrParam q = r.query(RmrParam.FIELD_IA_HANDLE | RmrParam.FIELD_PZ_HANDLE | RmrParam.FIELD_MEM_PRIV);
            assertSame(t.ia, q.iaHandle());
            assertSame(pz2, q.pzHandle());
            assertNull(r.query(RmrParam.FIELD_ALL).lmrTriplet(), "unbound");
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> r.query(0x20));
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, pz2::free);
            r.free();
            pz2.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, () -> Rmr.create(pz2));
        }
    }

    @Test
    @DisplayName("RMB-01 RMB-02 RMB-03 RMB-04 RMB-07 EPC-08: rmr_bind returns the context at once and completes with"
            + " DAT_RMR_BIND_COMPLETION_EVENT (rmr, cookie, SUCCESS) on the EP's request EVD; a context sent right"
            + " behind a suppressed bind works for the peer's RDMA Write and Read, inside the window only")
    void bindAndUse() {
        try (Pair p = new Pair().connect()) {
            sentinel(p.client.buf);
            fill(p.client.buf, 8192, 256, 53);
            Rmr r = Rmr.create(p.client.pz);
            LmrTriplet window = p.client.lmr.triplet(4096, 1024);
            int ctx = r.bind(window, MemPriv.REMOTE_WRITE, p.client.ep, 0xB1D, CompletionFlags.DEFAULT);
            DatEvent e = bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 0xB1D);
            assertSame(r, e.rmr());
            assertEmpty(p.client.recvEvd, "bind completions go to the request EVD only");
            RmrParam q = r.query(RmrParam.FIELD_ALL);
            assertEquals(window, q.lmrTriplet());
            assertEquals(MemPriv.REMOTE_WRITE, q.memPriv());
            assertEquals(ctx, q.rmrContext());

            // re-bind read-only onto another range with SUPPRESS and send the context behind it (fenced)
            LmrTriplet readWindow = p.client.lmr.triplet(8192, 256);
            int ctx2 = r.bind(readWindow, MemPriv.REMOTE_READ, p.client.ep, 0xB1E, CompletionFlags.SUPPRESS);
            p.client.buf.set(ValueLayout.JAVA_INT_UNALIGNED, 0, ctx2);
            p.client.buf.set(ValueLayout.JAVA_LONG_UNALIGNED, 4, readWindow.virtualAddress());
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 12), 2, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 2, 12); // the suppressed bind produced no event
            dtoOk(p.server.recvEvd, 1, 12);
            int got = p.server.buf.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
            long va = p.server.buf.get(ValueLayout.JAVA_LONG_UNALIGNED, 4);
            assertEquals(ctx2, got);
            p.server.ep.postRdmaRead(1, iov(p.server.lmr, 1024, 256), 3, new RmrTriplet(got, va, 256),
                    CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 3, 256);
            assertPattern(p.server.buf, 1024, 256, 53, 0, "read through the RMR");

            // a write through a write window (bound again)
            int ctx3 = r.bind(window, MemPriv.REMOTE_WRITE | MemPriv.REMOTE_READ, p.client.ep, 0xB1F,
                    CompletionFlags.BARRIER_FENCE);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 0xB1F);
            fill(p.server.buf, 2048, 100, 54);
            p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 2048, 100), 4,
                    new RmrTriplet(ctx3, window.virtualAddress() + 924, 100), CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 4, 100);
            assertPattern(p.client.buf, 4096 + 924, 100, 54, 0, "written through the RMR");
            assertUntouchedExcept(p.client.buf, 0, 12, 4096 + 924, 100, 8192, 256);
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("RMB-02 RWR-09 EPC-05: an RDMA Write through a bound RMR that runs past its window (though inside"
            + " the LMR) fails with DAT_DTO_ERR_REMOTE_ACCESS, breaks the connection and writes nothing")
    void rmrWindowBounds() {
        try (Pair p = new Pair().connect()) {
            sentinel(p.client.buf);
            Rmr r = Rmr.create(p.client.pz);
            LmrTriplet window = p.client.lmr.triplet(4096, 1024);
            int ctx = r.bind(window, MemPriv.REMOTE_WRITE, p.client.ep, 1, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 1);
            fill(p.server.buf, 0, 100, 55);
            p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 0, 100), 2,
                    new RmrTriplet(ctx, window.virtualAddress() + 925, 100), CompletionFlags.DEFAULT);
            dto(p.server.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 2);
            expectBroken(p);
            assertUntouched(p.client.buf, 0, p.client.buf.byteSize(), "target memory");
        }
    }

    @Test
    @DisplayName("RMB-06 LMR-13: after a re-bind, RDMA with the previous context fails (DAT_DTO_ERR_REMOTE_ACCESS,"
            + " BROKEN on both sides, nothing written), while the LMR's own rmr_context kept working throughout")
    void staleContextAfterRebind() {
        try (Pair p = new Pair().connect()) {
            sentinel(p.client.buf);
            Rmr r = Rmr.create(p.client.pz);
            LmrTriplet a = p.client.lmr.triplet(4096, 512);
            LmrTriplet b = p.client.lmr.triplet(8192, 512);
            int ctx1 = r.bind(a, MemPriv.REMOTE_WRITE, p.client.ep, 1, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 1);
            fill(p.server.buf, 0, 512, 56);
            p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 0, 64), 10, new RmrTriplet(ctx1, a.virtualAddress(), 64),
                    CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 10, 64);
            int ctx2 = r.bind(b, MemPriv.REMOTE_WRITE, p.client.ep, 2, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 2);
            assertNotEquals(ctx1, ctx2, "every bind yields a new context");
            p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 64, 64), 11, new RmrTriplet(ctx2, b.virtualAddress(), 64),
                    CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 11, 64);
            // LMR-13: binding, re-binding and freeing an RMR never revokes the LMR's own rmr_context
            Rmr other = Rmr.create(p.client.pz);
            other.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, p.client.ep, 3, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 3);
            other.free();
            p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 128, 64), 12, p.client.lmr.remoteTriplet(16_384, 64),
                    CompletionFlags.DEFAULT);
            dtoOk(p.server.reqEvd, 12, 64);
            assertPattern(p.client.buf, 4096, 64, 56, 0, "write through the first binding");
            assertPattern(p.client.buf, 8192, 64, 56, 64, "write through the second binding");
            assertPattern(p.client.buf, 16_384, 64, 56, 128, "write through the LMR's rmr_context");
            byte[] target = snapshot(p.client.buf);

            p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 192, 64), 13, new RmrTriplet(ctx1, a.virtualAddress(), 64),
                    CompletionFlags.DEFAULT);
            dto(p.server.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 13);
            expectBroken(p);
            assertUnchanged(p.client.buf, target, "target memory after the stale access");
        }
    }

    @Test
    @DisplayName("LMF-01 RMB-09 RMF-01: lmr_free with a bound RMR → DAT_INVALID_STATE (LMR_IN_USE); a zero-length"
            + " triplet unbinds (with a completion) so the free succeeds; rmr_free of a bound RMR unbinds too")
    void lmrInUse() {
        try (Pair p = new Pair().connect()) {
            MemorySegment seg = p.client.arena.allocate(4096, 256);
            Lmr l = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, p.client.pz,
                    MemPriv.ALL);
            Rmr r = Rmr.create(p.client.pz);
            r.bind(l.triplet(0, 128), MemPriv.REMOTE_READ, p.client.ep, 1, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 1);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_LMR_IN_USE, l::free);
            r.bind(new LmrTriplet(0x0BAD, 0x0BAD, 0), MemPriv.NONE, p.client.ep, 2, CompletionFlags.DEFAULT);
            assertSame(r, bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 2).rmr());
            assertNull(r.query(RmrParam.FIELD_LMR_TRIPLET).lmrTriplet(), "unbound");
            l.free();

            Lmr l2 = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, p.client.pz,
                    MemPriv.ALL);
            r.bind(l2.triplet(64, 64), MemPriv.REMOTE_WRITE, p.client.ep, 3, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 3);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_LMR_IN_USE, l2::free);
            r.free();
            l2.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RMR, r::free);
        }
    }

    @Test
    @DisplayName("RMF-01: after rmr_free of a bound RMR, remote use of its context fails with"
            + " DAT_DTO_ERR_REMOTE_ACCESS and breaks the connection; the freed handle is invalid; an unbound RMR frees"
            + " too")
    void rmrFree() {
        try (Pair p = new Pair().connect()) {
            Rmr unbound = Rmr.create(p.client.pz);
            unbound.free();
            sentinel(p.client.buf);
            Rmr r = Rmr.create(p.client.pz);
            LmrTriplet w = p.client.lmr.triplet(1024, 256);
            int ctx = r.bind(w, MemPriv.REMOTE_WRITE, p.client.ep, 1, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 1);
            r.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RMR,
                    () -> r.query(RmrParam.FIELD_ALL));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RMR,
                    () -> r.bind(w, MemPriv.REMOTE_WRITE, p.client.ep, 2, 0));
            fill(p.server.buf, 0, 64, 57);
            p.server.ep.postRdmaWrite(1, iov(p.server.lmr, 0, 64), 3, new RmrTriplet(ctx, w.virtualAddress(), 64),
                    CompletionFlags.DEFAULT);
            dto(p.server.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 3);
            expectBroken(p);
            assertUntouched(p.client.buf, 0, p.client.buf.byteSize(), "target memory");
            assertEmpty(p.client.reqEvd, "no extra bind completion");
        }
    }

    @Test
    @DisplayName("RMB-08 RMB-10 RMB-12 RMB-13 AMB-17: bind errors — remote read needs LMR local read and remote"
            + " write needs LMR local write (PRIVILEGES_VIOLATION), invalid LMR (PRIVILEGES_VIOLATION), LMR or EP in"
            + " another PZ (PROTECTION_VIOLATION), range outside the LMR, bad flags or privileges"
            + " (INVALID_PARAMETER), freed RMR or EP (INVALID_HANDLE); none of them binds")
    void bindErrors() {
        try (Pair p = new Pair().connect()) {
            InterfaceAdapter ia = p.client.ia;
            MemorySegment seg = p.client.arena.allocate(8192, 256);
            Lmr noLocalRead = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(seg.asSlice(0, 2048)), 2048,
                    p.client.pz, MemPriv.LOCAL_WRITE);
            Lmr noLocalWrite = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(seg.asSlice(2048, 2048)), 2048,
                    p.client.pz, MemPriv.LOCAL_READ);
            ProtectionZone pz2 = ProtectionZone.create(ia);
            Lmr otherPz = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(seg.asSlice(4096, 2048)), 2048, pz2,
                    MemPriv.ALL);
            Endpoint ep2 = Endpoint.create(ia, pz2, null, null, null, attr());
            Rmr r = Rmr.create(p.client.pz);
            Endpoint ep = p.client.ep;

            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.NO_SUBTYPE,
                    () -> r.bind(noLocalRead.triplet(0, 64), MemPriv.REMOTE_READ, ep, 1, 0));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.NO_SUBTYPE,
                    () -> r.bind(noLocalWrite.triplet(0, 64), MemPriv.REMOTE_WRITE, ep, 1, 0));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.NO_SUBTYPE,
                    () -> r.bind(new LmrTriplet(p.client.lmr.lmrContext() ^ 1, p.client.lmr.registeredAddress(), 64),
                            MemPriv.REMOTE_READ, ep, 1, 0));
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.NO_SUBTYPE,
                    () -> r.bind(otherPz.triplet(0, 64), MemPriv.REMOTE_READ, ep, 1, 0));
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.NO_SUBTYPE,
                    () -> r.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, ep2, 1, 0));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2,
                    () -> r.bind(p.client.lmr.triplet(p.client.lmr.registeredSize() - 10, 11), MemPriv.REMOTE_READ,
                            ep, 1, 0));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG2, () -> r.bind(null, MemPriv.REMOTE_READ, ep, 1, 0));
            expectDat(PARAM, DatReturnSubtype.INVALID_ARG3,
                    () -> r.bind(p.client.lmr.triplet(0, 64), 0x40, ep, 1, 0));
            for (int bad : new int[] {CompletionFlags.UNSIGNALLED, CompletionFlags.SOLICITED_WAIT,
                    CompletionFlags.EVD_THRESHOLD}) {
                expectDat(PARAM, DatReturnSubtype.INVALID_ARG6,
                        () -> r.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, ep, 1, bad));
            }
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> r.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, null, 1, 0));
            ep2.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    () -> r.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, ep2, 1, 0));
            assertEmpty(p.client.reqEvd, "refused binds");
            assertNull(r.query(RmrParam.FIELD_ALL).lmrTriplet(), "still unbound");
            noLocalRead.free();
            noLocalWrite.free();
            otherPz.free();

            // the matching local right is enough
            Lmr readable = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(seg.asSlice(0, 2048)), 2048,
                    p.client.pz, MemPriv.LOCAL_READ);
            r.bind(readable.triplet(0, 64), MemPriv.REMOTE_READ, ep, 4, CompletionFlags.DEFAULT);
            bind(p.client.reqEvd, DtoCompletionStatus.SUCCESS, 4);
            r.free();
            Rmr dead = Rmr.create(p.client.pz);
            dead.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_RMR,
                    () -> dead.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, ep, 1, 0));
        }
    }

    @Test
    @DisplayName("RMB-11 EPC-08: rmr_bind is refused in UNCONNECTED (DAT_INVALID_STATE); in DISCONNECTED it returns"
            + " SUCCESS and is flushed at once on the request EVD (even with SUPPRESS) without binding")
    void bindStates() {
        try (Pair p = new Pair()) {
            MemorySegment seg = p.client.arena.allocate(4096, 256);
            Lmr l = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, p.client.pz,
                    MemPriv.ALL);
            Rmr r = Rmr.create(p.client.pz);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED,
                    () -> r.bind(l.triplet(0, 64), MemPriv.REMOTE_READ, p.client.ep, 1, 0));
            p.connect();
            disconnect(p);
            r.bind(l.triplet(0, 64), MemPriv.REMOTE_READ, p.client.ep, 2, CompletionFlags.SUPPRESS);
            r.bind(l.triplet(64, 64), MemPriv.REMOTE_WRITE, p.client.ep, 3, CompletionFlags.DEFAULT);
            DatEvent e = bind(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            assertSame(r, e.rmr());
            bind(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            assertEmpty(p.client.reqEvd, "one flush per bind");
            assertEmpty(p.client.recvEvd, "bind completions go to the request EVD");
            assertNull(r.query(RmrParam.FIELD_LMR_TRIPLET).lmrTriplet(), "a flushed bind binds nothing");
            l.free(); // not in use
        }
    }

    @Test
    @DisplayName("RMB-05 RMB-03 RMB-11: a bind still queued (behind a send that waits for a receive) when the"
            + " connection goes down completes with DAT_RMR_BIND_FAILURE (ERR_FLUSHED) and binds nothing: the RMR"
            + " reports no binding and its LMR can be freed")
    void flushedQueuedBind() {
        try (Pair p = new Pair().connect()) {
            MemorySegment seg = p.client.arena.allocate(4096, 256);
            Lmr l = Lmr.create(p.client.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, p.client.pz,
                    MemPriv.ALL);
            Rmr r = Rmr.create(p.client.pz);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 1, CompletionFlags.DEFAULT); // no receive: waits
            r.bind(l.triplet(0, 128), MemPriv.REMOTE_WRITE, p.client.ep, 2, CompletionFlags.DEFAULT);
            assertFalse(p.client.ep.getStatus().requestIdle(), "send and bind are queued");
            disconnect(p);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
            DatEvent e = bind(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            assertSame(r, e.rmr());
            assertNull(r.query(RmrParam.FIELD_LMR_TRIPLET).lmrTriplet(), "a flushed bind binds nothing");
            l.free();
        }
    }

    // ================================================================== PZ

    @Test
    @DisplayName("PZ-01 PZ-02 PZ-03 PZ-04: pz_free while an EP, LMR or RMR uses it → DAT_INVALID_STATE (PZ_IN_USE);"
            + " once they are gone it frees; afterwards every use of the handle → DAT_INVALID_HANDLE")
    void pzInUse() {
        try (Local t = new Local()) {
            ProtectionZone idle = ProtectionZone.create(t.ia);
            idle.free();

            ProtectionZone z = ProtectionZone.create(t.ia);
            Endpoint ep = Endpoint.create(t.ia, z, null, null, null, attr());
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, z::free);
            ep.free();
            Lmr l = t.lmr(0, 1024, z, MemPriv.ALL);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, z::free);
            l.free();
            Rmr r = Rmr.create(z);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, z::free);
            r.free();
            assertSame(t.ia, z.query(PzParam.FIELD_ALL).iaHandle());
            z.free();

            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, () -> z.query(PzParam.FIELD_ALL));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, z::free);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, () -> Rmr.create(z));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> t.lmr(0, 1024, z, MemPriv.ALL));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> Endpoint.create(t.ia, z, null, null, null, attr()));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ, z::getHandleType);
        }
    }
}
