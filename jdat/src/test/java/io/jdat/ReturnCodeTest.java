package io.jdat;

import static io.jdat.testing.Background.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The numeric {@code DAT_RETURN} values of uDAPL 1.2 (API.md §2.1-2.3; AMB-01: the 1.2 column, not 2.0) and
 * {@link DatException#code()}.
 */
class ReturnCodeTest {
    @Test
    @DisplayName("AMB-01: every DAT_RETURN_TYPE has its uDAPL 1.2 value (API.md §2.2); DAT_NOT_IMPLEMENTED is 0x0FFF0000, not the 2.0 0x3FFF0000")
    void typeValues() {
        Map<DatReturnType, Integer> expected = new LinkedHashMap<>();
        expected.put(DatReturnType.SUCCESS, 0x00000000);
        expected.put(DatReturnType.ABORT, 0x00010000);
        expected.put(DatReturnType.CONN_QUAL_IN_USE, 0x00020000);
        expected.put(DatReturnType.INSUFFICIENT_RESOURCES, 0x00030000);
        expected.put(DatReturnType.INTERNAL_ERROR, 0x00040000);
        expected.put(DatReturnType.INVALID_HANDLE, 0x00050000);
        expected.put(DatReturnType.INVALID_PARAMETER, 0x00060000);
        expected.put(DatReturnType.INVALID_STATE, 0x00070000);
        expected.put(DatReturnType.LENGTH_ERROR, 0x00080000);
        expected.put(DatReturnType.MODEL_NOT_SUPPORTED, 0x00090000);
        expected.put(DatReturnType.PROVIDER_NOT_FOUND, 0x000A0000);
        expected.put(DatReturnType.PRIVILEGES_VIOLATION, 0x000B0000);
        expected.put(DatReturnType.PROTECTION_VIOLATION, 0x000C0000);
        expected.put(DatReturnType.QUEUE_EMPTY, 0x000D0000);
        expected.put(DatReturnType.QUEUE_FULL, 0x000E0000);
        expected.put(DatReturnType.TIMEOUT_EXPIRED, 0x000F0000);
        expected.put(DatReturnType.PROVIDER_ALREADY_REGISTERED, 0x00100000);
        expected.put(DatReturnType.PROVIDER_IN_USE, 0x00110000);
        expected.put(DatReturnType.INVALID_ADDRESS, 0x00120000);
        expected.put(DatReturnType.INTERRUPTED_CALL, 0x00130000);
        expected.put(DatReturnType.CONN_QUAL_UNAVAILABLE, 0x00140000);
        expected.put(DatReturnType.NOT_IMPLEMENTED, 0x0FFF0000);
        assertEquals(expected.size(), DatReturnType.values().length, "no types beyond 1.2");
        expected.forEach((t, code) -> {
            assertEquals(code.intValue(), t.code(), t.name());
            assertEquals("DAT_" + t.name(), t.datName());
            assertSame(t, DatReturnType.ofReturn(code));
            assertSame(t, DatReturnType.ofReturn(DatReturn.CLASS_ERROR | code | 0x0042), "class and subtype are masked off");
        });
        for (int notOneTwo : new int[] {0x00150000, 0x00160000, 0x00170000, 0x10000000, 0x3FFF0000}) {
            assertNull(DatReturnType.ofReturn(notOneTwo), Integer.toHexString(notOneTwo));
        }
    }

    @Test
    @DisplayName("AMB-01 AMB-02 AMB-30: DAT_RETURN_SUBTYPE follows the 1.2 numbering at every group boundary (API.md §2.3)")
    void subtypeBoundaries() {
        Object[][] boundaries = {
            {DatReturnSubtype.NO_SUBTYPE, 0},
            {DatReturnSubtype.SUB_INTERRUPTED, 1},
            {DatReturnSubtype.RESOURCE_MEMORY, 2},
            {DatReturnSubtype.RESOURCE_SRQ, 10},
            {DatReturnSubtype.INVALID_HANDLE_IA, 11},
            {DatReturnSubtype.INVALID_HANDLE_SRQ, 25},
            {DatReturnSubtype.INVALID_HANDLE1, 26}, // 2.0 inserted INVALID_HANDLE_CSP here (27 in 2.0)
            {DatReturnSubtype.INVALID_HANDLE10, 35},
            {DatReturnSubtype.INVALID_ARG1, 36},
            {DatReturnSubtype.INVALID_ARG10, 45},
            {DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, 46},
            {DatReturnSubtype.INVALID_STATE_EP_UNCONFTENTATIVE, 65},
            {DatReturnSubtype.INVALID_STATE_CNO_IN_USE, 66},
            {DatReturnSubtype.INVALID_STATE_CNO_DEAD, 67},
            {DatReturnSubtype.INVALID_STATE_EVD_OPEN, 68},
            {DatReturnSubtype.INVALID_STATE_EVD_IN_USE, 73},
            {DatReturnSubtype.INVALID_STATE_EVD_WAITER, 77},
            {DatReturnSubtype.INVALID_STATE_EVD_ASYNC, 78},
            {DatReturnSubtype.INVALID_STATE_IA_IN_USE, 79},
            {DatReturnSubtype.INVALID_STATE_PZ_FREE, 83},
            {DatReturnSubtype.INVALID_STATE_SRQ_OPERATIONAL, 84},
            {DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, 86}, // AMB-02: dat_srq_free's "DAT_SRQ_IN_USE"
            {DatReturnSubtype.PRIVILEGES_READ, 87},
            {DatReturnSubtype.PRIVILEGES_RDMA_WRITE, 90},
            {DatReturnSubtype.PROTECTION_READ, 91},
            {DatReturnSubtype.PROTECTION_RDMA_WRITE, 94},
            {DatReturnSubtype.INVALID_ADDRESS_UNSUPPORTED, 95},
            {DatReturnSubtype.INVALID_ADDRESS_MALFORMED, 97},
            {DatReturnSubtype.NAME_NOT_REGISTERED, 98},
            {DatReturnSubtype.THREAD_SAFETY_NOT_FOUND, 101},
        };
        for (Object[] b : boundaries) {
            DatReturnSubtype s = (DatReturnSubtype) b[0];
            int code = (Integer) b[1];
            assertEquals(code, s.code(), s.name());
            assertEquals("DAT_" + s.name(), s.datName());
            assertSame(s, DatReturnSubtype.ofReturn(code));
            assertSame(s, DatReturnSubtype.ofReturn(DatReturn.CLASS_ERROR | DatReturnType.INVALID_STATE.code() | code));
        }
        // Sequential: the enumeration has no holes, and nothing after THREAD_SAFETY_NOT_FOUND (the Solaris
        // DAT_INVALID_RO_COOKIE = 102 is reserved, not implemented: AMB-30).
        DatReturnSubtype[] all = DatReturnSubtype.values();
        assertEquals(102, all.length);
        for (int i = 0; i < all.length; i++) {
            assertEquals(i, all[i].code());
        }
        assertNull(DatReturnSubtype.ofReturn(102));
        assertNull(DatReturnSubtype.ofReturn(0xFFFF));
    }

    @Test
    @DisplayName("AMB-01: DAT_RETURN layout: class bits 31..30, type 29..16, subtype 15..0; DAT_ERROR, DAT_GET_TYPE, DAT_GET_SUBTYPE, DAT_IS_WARNING")
    void layout() {
        assertEquals(0x80000000, DatReturn.CLASS_ERROR);
        assertEquals(0x40000000, DatReturn.CLASS_WARNING);
        assertEquals(0x00000000, DatReturn.CLASS_SUCCESS);
        assertEquals(0x3FFF0000, DatReturn.TYPE_MASK);
        assertEquals(0x0000FFFF, DatReturn.SUBTYPE_MASK);
        assertEquals(0, DatReturn.SUCCESS);
        int rc = DatReturn.error(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE);
        assertEquals(0x80070049, rc);
        assertEquals(0x00070000, DatReturn.getType(rc));
        assertEquals(73, DatReturn.getSubtype(rc));
        assertFalse(DatReturn.isWarning(rc));
        assertTrue(DatReturn.isWarning(DatReturn.CLASS_WARNING | 0x00070000));
        assertEquals(0x8FFF0000, DatReturn.error(DatReturnType.NOT_IMPLEMENTED, DatReturnSubtype.NO_SUBTYPE));
        assertEquals(0x800A0065, DatReturn.error(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.THREAD_SAFETY_NOT_FOUND));
        assertEquals(0, DatReturn.error(DatReturnType.SUCCESS, DatReturnSubtype.NO_SUBTYPE), "DAT_SUCCESS is exactly 0");
        assertEquals(0x00130000, DatReturn.getType(0x80130001), "DAT_INTERRUPTED_CALL");
    }

    @Test
    @DisplayName("AMB-01 HLP-03: DatException.code() is DAT_ERROR(type, subtype) of the failed call, for real failures of several calls")
    void exceptionCodes() {
        DatException notFound = fails(DatReturnType.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                () -> InterfaceAdapter.open("no-such-ia", 4, null));
        assertEquals(0x800A0062, notFound.code());
        InterfaceAdapter ia = InterfaceAdapter.open("mem", 4, null);
        try {
            EventDispatcher evd = EventDispatcher.create(ia, 2, null, EvdFlags.SOFTWARE);
            assertEquals(0x80060026, fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                    () -> evd.waitFor(0, 0, new DatEvent())).code());
            int q = evd.query(EvdParam.FIELD_EVD_QLEN).evdQlen();
            for (int i = 0; i < q; i++) {
                evd.postSe(DatEvent.software(i));
            }
            DatException full = fails(DatReturnType.QUEUE_FULL, DatReturnSubtype.NO_SUBTYPE,
                    () -> evd.postSe(DatEvent.software("x")));
            assertEquals(0x800E0000, full.code());
            ProtectionZone pz = ProtectionZone.create(ia);
            Endpoint.create(ia, pz, EventDispatcher.create(ia, 4, null, EvdFlags.DTO), null, null, null);
            assertEquals(0x80070052, fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE,
                    pz::free).code());
            assertEquals(0x8007004F, fails(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                    () -> ia.close(CloseFlags.GRACEFUL)).code());
            ia.close(CloseFlags.ABRUPT);
            DatException closed = fails(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_IA,
                    () -> ia.query(0, 0));
            assertEquals(0x8005000B, closed.code());
            assertEquals(DatReturnType.INVALID_HANDLE.code(), DatReturn.getType(closed.code()));
            assertEquals(DatReturnSubtype.INVALID_HANDLE_IA.code(), DatReturn.getSubtype(closed.code()));
            assertTrue(closed.getMessage().startsWith("DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA)"), closed.getMessage());
        } finally {
            EventDispatcherTest.closeQuietly(ia);
        }
        DatException bare = new DatException(DatReturnType.TIMEOUT_EXPIRED, "detail");
        assertSame(DatReturnSubtype.NO_SUBTYPE, bare.subtype());
        assertEquals(0x800F0000, bare.code());
    }
}
