package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jdat.shm.ShmTesting;
import io.jdat.tcp.TcpTesting;
import io.jdat.testing.Pair;
import java.net.SocketAddress;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A connection qualifier never aliases another (issue 14 item 5). DAT_CONN_QUAL is 64 bits: on mem and shm
 * every value is its own qualifier; on tcp a qualifier is a TCP port, so only 1..65535 can be served, and a
 * connect to any other value is refused as a qualifier nobody listens on (CON-08: NON_PEER_REJECTED, EP to
 * DISCONNECTED), never sent to the port its low bits name; creating a PSP or RSP on it is
 * DAT_INVALID_PARAMETER (DAT_INVALID_ARG2, RSP-06).
 */
class QualifierRangeTest {
    private static final long TWO_32 = 1L << 32;

    @BeforeAll
    static void register() {
        TcpTesting.register();
        ShmTesting.register();
    }

    private static SocketAddress address(Pair p) {
        return p.iaName.equals("mem") ? Pair.address() : p.server.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
    }

    /** Connects the client EP to {@code qual} and returns the connection event it gets; resets the EP after. */
    private static EventNumber connect(Pair p, long qual) {
        p.client.ep.connect(address(p), qual, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
        EventNumber n = p.client.next(p.client.connEvd).eventNumber();
        return n;
    }

    /** The qualifiers that share low bits with {@code q} but are not {@code q}. */
    private static List<Long> aliasesOf(long q) {
        return List.of(q + TWO_32, q + 65_536, q - TWO_32, q | Long.MIN_VALUE, -1L, -q, 0L);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mem", ShmTesting.SHM, TcpTesting.LO})
    @DisplayName("CON-08 PSP-10: dat_ep_connect to a qualifier that differs from a listening one only in bits above"
            + " the 16th, or to -1 or 0, gets NON_PEER_REJECTED (EP DISCONNECTED, no CR at the listener), never an"
            + " IllegalArgumentException nor the listener on the aliased port")
    void connectNeverAliases(String iaName) {
        try (Pair p = new Pair(iaName, null, 16)) {
            PublicServicePoint psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            long q = psp.connQual();
            for (long alias : aliasesOf(q)) {
                assertEquals(EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED, connect(p, alias),
                        iaName + ": connect to qualifier " + Long.toUnsignedString(alias) + " with a listener on " + q);
                assertEquals(EpState.DISCONNECTED, p.client.ep.getStatus().epState());
                assertFalse(p.crEvd.dequeue(new DatEvent()), "a CR reached the listener on " + q + " through "
                        + Long.toUnsignedString(alias));
                p.client.ep.reset();
            }
            // The qualifier itself is served.
            p.client.ep.connect(address(p), q, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
            DatEvent cr = p.server.next(p.crEvd);
            assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
            assertEquals(q, cr.connQual());
            cr.cr().reject();
            assertEquals(EventNumber.CONNECTION_EVENT_PEER_REJECTED, p.client.next(p.client.connEvd).eventNumber());
            psp.free();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(longs = {0, -1, 65_536, 65_536 + 4791, TWO_32 + 4791, Long.MIN_VALUE, Long.MAX_VALUE})
    @DisplayName("PSP/RSP on tcp: dat_psp_create and dat_rsp_create on a qualifier that is no TCP port ->"
            + " DAT_INVALID_PARAMETER (DAT_INVALID_ARG2); the RSP's EP stays UNCONNECTED")
    void tcpListenOutsidePortRange(long qual) {
        try (Pair p = new Pair(TcpTesting.LO, null, 16)) {
            DatException e = assertThrows(DatException.class,
                    () -> PublicServicePoint.create(p.server.ia, qual, p.crEvd, PspFlags.CONSUMER));
            assertEquals(DatReturnType.INVALID_PARAMETER, e.type(), e.toString());
            assertEquals(DatReturnSubtype.INVALID_ARG2, e.subtype(), e.toString());
            e = assertThrows(DatException.class, () -> ReservedServicePoint.create(p.server.ia, qual, p.server.ep,
                    p.crEvd));
            assertEquals(DatReturnType.INVALID_PARAMETER, e.type(), e.toString());
            assertEquals(DatReturnSubtype.INVALID_ARG2, e.subtype(), e.toString());
            assertEquals(EpState.UNCONNECTED, p.server.ep.getStatus().epState());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mem", ShmTesting.SHM})
    @DisplayName("PSP-07 on mem and shm: every 64-bit qualifier is its own: PSPs on q, q + 2^32, -q, -1 and"
            + " Long.MIN_VALUE + q coexist, and a connect reaches exactly the one it names")
    void wideQualifiersAreDistinct(String iaName) {
        try (Pair p = new Pair(iaName, null, 16)) {
            long q = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER).connQual();
            long[] others = {q + TWO_32, -q, -1L, Long.MIN_VALUE + q};
            for (long o : others) {
                PublicServicePoint.create(p.server.ia, o, p.crEvd, PspFlags.CONSUMER);
            }
            for (long o : others) {
                p.client.ep.connect(address(p), o, 5_000_000, 0, null, Qos.BEST_EFFORT, 0);
                DatEvent cr = p.server.next(p.crEvd);
                assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, cr.eventNumber());
                assertEquals(o, cr.connQual(), "the CR names the qualifier connected to");
                cr.cr().reject();
                assertEquals(EventNumber.CONNECTION_EVENT_PEER_REJECTED,
                        p.client.next(p.client.connEvd).eventNumber());
                p.client.ep.reset();
            }
            DatException e = assertThrows(DatException.class,
                    () -> PublicServicePoint.create(p.server.ia, q + TWO_32, p.crEvd, PspFlags.CONSUMER));
            assertEquals(DatReturnType.CONN_QUAL_IN_USE, e.type(), "the same 64-bit qualifier twice");
        }
    }
}
