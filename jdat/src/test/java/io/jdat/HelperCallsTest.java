package io.jdat;

import static io.jdat.testing.Background.fails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.testing.Pair;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The helper calls of CONFORMANCE §2.16 (HLP-01..03): dat_set_consumer_context / dat_get_consumer_context,
 * dat_get_handle_type and dat_strerror.
 */
class HelperCallsTest {
    /**
     * One live object of every kind jdat implements (SRQ: see SrqCreateQueryTest and SrqFreeTest), with its expected
     * handle type. The CR comes from a real connection request.
     */
    private static Map<DatHandle, HandleType> everyKind(Pair p) {
        Map<DatHandle, HandleType> m = new LinkedHashMap<>();
        Pair.Side s = p.server;
        m.put(s.ia, HandleType.IA);
        m.put(s.pz, HandleType.PZ);
        m.put(s.recvEvd, HandleType.EVD);
        m.put(s.ia.asyncEvd(), HandleType.EVD);
        m.put(s.ep, HandleType.EP);
        m.put(s.lmr, HandleType.LMR);
        m.put(Rmr.create(s.pz), HandleType.RMR);
        m.put(Cno.create(s.ia, null), HandleType.CNO);
        Endpoint rspEp = Endpoint.create(s.ia, s.pz, s.recvEvd, s.reqEvd, s.connEvd, null);
        m.put(ReservedServicePoint.create(s.ia, Pair.freshQual(), rspEp, p.crEvd), HandleType.RSP);
        p.psp = PublicServicePoint.create(s.ia, p.qual, p.crEvd, PspFlags.CONSUMER);
        m.put(p.psp, HandleType.PSP);
        p.client.ep.connect(Pair.address(), p.qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
        DatEvent cr = s.next(p.crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
        m.put(cr.cr(), HandleType.CR);
        return m;
    }

    @Test
    @DisplayName("HLP-01 AMB-29: every kind of object starts without a context; set stores it, a second set replaces it, null clears it; objects are independent")
    void consumerContext() {
        try (Pair p = new Pair()) {
            Map<DatHandle, HandleType> all = everyKind(p);
            for (DatHandle h : all.keySet()) {
                assertNull(h.getConsumerContext(), "fresh " + h);
                Object first = new Object();
                h.setConsumerContext(first);
                assertSame(first, h.getConsumerContext());
                assertSame(first, h.getConsumerContext(), "reading does not consume the context");
                h.setConsumerContext("second");
                assertEquals("second", h.getConsumerContext());
                h.setConsumerContext(null);
                assertNull(h.getConsumerContext(), "null clears " + h);
            }
            Map<DatHandle, Object> given = new LinkedHashMap<>();
            for (DatHandle h : all.keySet()) {
                Object ctx = new Object();
                given.put(h, ctx);
                h.setConsumerContext(ctx);
            }
            given.forEach((h, ctx) -> assertSame(ctx, h.getConsumerContext(), "context of " + h));
            // The context is opaque: the provider keeps the reference and never looks at it.
            p.client.ia.setConsumerContext(given);
            assertSame(given, p.client.ia.getConsumerContext());
        }
    }

    @Test
    @DisplayName("HLP-02 AMB-29: get_handle_type reports the right DAT_HANDLE_TYPE for every kind of object, with the 1.2 numbers")
    void handleTypes() {
        try (Pair p = new Pair()) {
            everyKind(p).forEach((h, type) -> assertEquals(type, h.getHandleType(), "type of " + h));
        }
        int[] codes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        HandleType[] types = {HandleType.CR, HandleType.EP, HandleType.EVD, HandleType.IA, HandleType.LMR,
            HandleType.PSP, HandleType.PZ, HandleType.RMR, HandleType.RSP, HandleType.CNO, HandleType.SRQ};
        assertEquals(types.length, HandleType.values().length);
        for (int i = 0; i < codes.length; i++) {
            assertEquals(codes[i], types[i].code(), types[i].name());
            assertSame(types[i], HandleType.of(codes[i]));
        }
        assertNull(HandleType.of(11), "DAT_HANDLE_TYPE_CSP is not 1.2");
        assertNull(HandleType.of(-1));
    }

    @Test
    @DisplayName("HLP-01 HLP-02: on a freed object set/get_consumer_context and get_handle_type give INVALID_HANDLE with the object's subtype")
    void helpersOnFreedObjects() {
        try (Pair p = new Pair()) {
            Map<DatHandle, HandleType> all = everyKind(p);
            Map<DatHandle, DatReturnSubtype> freed = new LinkedHashMap<>();
            for (DatHandle h : all.keySet()) {
                switch (all.get(h)) {
                    case CR -> {
                        ((ConnectionRequest) h).reject();
                        freed.put(h, DatReturnSubtype.INVALID_HANDLE_CR);
                    }
                    case RSP -> {
                        ((ReservedServicePoint) h).free();
                        freed.put(h, DatReturnSubtype.INVALID_HANDLE_RSP);
                    }
                    case PSP -> {
                        ((PublicServicePoint) h).free();
                        freed.put(h, DatReturnSubtype.INVALID_HANDLE_PSP);
                    }
                    case RMR -> {
                        ((Rmr) h).free();
                        freed.put(h, DatReturnSubtype.INVALID_HANDLE_RMR);
                    }
                    case CNO -> {
                        ((Cno) h).free();
                        freed.put(h, DatReturnSubtype.INVALID_HANDLE_CNO);
                    }
                    default -> {
                        // IA, PZ, EVD, EP, LMR: see below
                    }
                }
            }
            // The other kinds: destroyed by closing an IA of their own.
            InterfaceAdapter ia = InterfaceAdapter.open("mem", 4, null);
            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher evd = EventDispatcher.create(ia, 4, null, EvdFlags.DTO);
            Endpoint ep = Endpoint.create(ia, pz, evd, evd, null, null);
            Lmr lmr = Lmr.create(ia, MemType.VIRTUAL, RegionDescription.forVa(p.server.buf), 4096, pz, MemPriv.ALL);
            ia.close(CloseFlags.ABRUPT);
            freed.put(ia, DatReturnSubtype.INVALID_HANDLE_IA);
            freed.put(pz, DatReturnSubtype.INVALID_HANDLE_PZ);
            freed.put(evd, DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC);
            freed.put(ep, DatReturnSubtype.INVALID_HANDLE_EP);
            freed.put(lmr, DatReturnSubtype.INVALID_HANDLE_LMR);
            freed.forEach((h, sub) -> {
                fails(DatReturnType.INVALID_HANDLE, sub, h::getHandleType);
                fails(DatReturnType.INVALID_HANDLE, sub, () -> h.setConsumerContext("x"));
                fails(DatReturnType.INVALID_HANDLE, sub, () -> h.setConsumerContext(null));
                fails(DatReturnType.INVALID_HANDLE, sub, h::getConsumerContext);
            });
            assertEquals(10, freed.size(), "every kind but SRQ");
        }
    }

    @Test
    @DisplayName("HLP-03: strerror(DAT_SUCCESS) succeeds; for every defined type and subtype the major string names the TYPE and the minor the SUBTYPE")
    void strerrorDefinedValues() {
        assertEquals(new DatReturn.Message("DAT_SUCCESS", "DAT_NO_SUBTYPE"), DatReturn.strerror(DatReturn.SUCCESS));
        for (DatReturnType t : DatReturnType.values()) {
            if (t == DatReturnType.SUCCESS) {
                continue;
            }
            for (DatReturnSubtype s : DatReturnSubtype.values()) {
                DatReturn.Message m = DatReturn.strerror(DatReturn.error(t, s));
                assertEquals("DAT_" + t.name(), m.major());
                assertEquals("DAT_" + s.name(), m.minor());
            }
            // The RI also returns bare types (e.g. plain DAT_INVALID_STATE from dat_cr_accept).
            assertEquals(new DatReturn.Message(t.datName(), "DAT_NO_SUBTYPE"), DatReturn.strerror(t.code()));
        }
        assertEquals(new DatReturn.Message("DAT_INVALID_STATE", "DAT_INVALID_STATE_EVD_IN_USE"),
                DatReturn.strerror(0x80070049));
        assertEquals(new DatReturn.Message("DAT_PROVIDER_NOT_FOUND", "DAT_NAME_NOT_REGISTERED"),
                DatReturn.strerror(0x800A0062));
        assertEquals(new DatReturn.Message("DAT_NOT_IMPLEMENTED", "DAT_NO_SUBTYPE"), DatReturn.strerror(0x8FFF0000));
        assertEquals(new DatReturn.Message("DAT_TIMEOUT_EXPIRED", "DAT_NO_SUBTYPE"), DatReturn.strerror(0x000F0000));

        // A real failure's code maps back to its own type and subtype.
        try (InterfaceAdapter ia = InterfaceAdapter.open("mem", 4, null)) {
            EventDispatcher evd = EventDispatcher.create(ia, 4, null, EvdFlags.SOFTWARE);
            DatException e = fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                    () -> evd.waitFor(0, 0, new DatEvent()));
            assertEquals(new DatReturn.Message("DAT_INVALID_PARAMETER", "DAT_INVALID_ARG3"), DatReturn.strerror(e.code()));
        }
    }

    @Test
    @DisplayName("HLP-03 AMB-01 AMB-30: strerror of an undefined DAT_RETURN (post-1.2 or unknown type, unknown or Solaris-only subtype) gives INVALID_PARAMETER")
    void strerrorUndefinedValues() {
        int[] undefined = {
            0x00150000, // DAT_RESERVED_LMR, > 1.2
            0x80160000, // DAT_PORT_IN_USE, > 1.2
            0x80170000, // DAT_COMM_NOT_SUPPORTED, > 1.2
            0x3FFF0000, // DAT_NOT_IMPLEMENTED of DAT 2.0
            0x90000000, // DAT_EXTENSION_BASE / DAT_IB_ERR
            0x80200000,
            0x80070066, // subtype 102: Sun DAT_INVALID_RO_COOKIE, reserved (AMB-30)
            0x80070067, // subtype 103
            0x8007FFFF,
            0x00000001, // DAT_SUCCESS carries no subtype
        };
        for (int rc : undefined) {
            fails(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> DatReturn.strerror(rc));
        }
    }
}
