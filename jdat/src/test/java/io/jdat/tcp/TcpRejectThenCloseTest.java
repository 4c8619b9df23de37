package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.testing.DataPath;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_cr_reject} answers with an MPA Reply whose reject bit is set before it returns, so a listener that
 * closes its IA right afterwards (a server giving up on a bad request, as DAPL's dtest does) still tells the
 * requester PEER_REJECTED. The Reply used to be written on another thread, and the IA's close could cut the
 * stream before it: the requester then saw a close without a Reply, NON_PEER_REJECTED.
 */
class TcpRejectThenCloseTest {
    private static final int ROUNDS = 40;
    private static final int WAIT = 5_000_000;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    @DisplayName("CRJ-02 CRJ-05 CON-10: reject, then close the IA at once: the requester sees PEER_REJECTED, every time")
    void rejectThenCloseIsStillPeerRejected() {
        try (InterfaceAdapter client = InterfaceAdapter.open(TcpTesting.LO, 16, null)) {
            ProtectionZone pz = ProtectionZone.create(client);
            EventDispatcher dto = EventDispatcher.create(client, 16, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(client, 4, null, EvdFlags.CONNECTION);
            DatEvent e = new DatEvent();
            for (int round = 0; round < ROUNDS; round++) {
                InterfaceAdapter server = InterfaceAdapter.open(TcpTesting.LO, 16, null);
                try {
                    EventDispatcher crEvd = EventDispatcher.create(server, 4, null, EvdFlags.CR);
                    PublicServicePoint psp = PublicServicePoint.createAny(server, crEvd, PspFlags.CONSUMER);
                    Endpoint ep = Endpoint.create(client, pz, dto, dto, conn, DataPath.attr());
                    ep.connect(server.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress(), psp.connQual(), WAIT, 0, null,
                            Qos.BEST_EFFORT, 0);
                    assertTrue(crEvd.waitFor(WAIT, 1, e), "connection request, round " + round);
                    e.cr().reject();
                    server.close(CloseFlags.ABRUPT);
                    server = null;
                    assertTrue(conn.waitFor(WAIT, 1, e), "the requester's outcome, round " + round);
                    assertEquals(EventNumber.CONNECTION_EVENT_PEER_REJECTED, e.eventNumber(), "round " + round);
                    ep.free();
                } finally {
                    if (server != null) {
                        server.close(CloseFlags.ABRUPT);
                    }
                }
            }
        }
    }
}
