package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CloseFlags;
import io.jdat.DatEvent;
import io.jdat.Endpoint;
import io.jdat.EventDispatcher;
import io.jdat.EventNumber;
import io.jdat.EvdFlags;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.ProtectionZone;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import java.net.SocketAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A burst of connection requests to one {@code shm} PSP (issue 18): the listening socket's queue holds it, so
 * every request reaches the consumer. With the JDK's default queue of 50 part of a burst of 200 was refused with
 * {@code NON_PEER_REJECTED} before the accept loop ran (a connecting virtual thread does not wait for room).
 */
class ShmConnectBurstTest {
    private static final int BURST = 200;

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    @Test
    @DisplayName("CON-01: 200 dat_ep_connect at once to one PSP, accepted as they are dequeued: all established")
    void burstIsAllEstablished() {
        InterfaceAdapter server = InterfaceAdapter.open(ShmTesting.SHM, 4, null);
        InterfaceAdapter client = InterfaceAdapter.open(ShmTesting.SHM, 4, null);
        try {
            ProtectionZone spz = ProtectionZone.create(server);
            ProtectionZone cpz = ProtectionZone.create(client);
            EventDispatcher sdto = EventDispatcher.create(server, 2 * BURST, null, EvdFlags.DTO);
            EventDispatcher cdto = EventDispatcher.create(client, 2 * BURST, null, EvdFlags.DTO);
            EventDispatcher sconn = EventDispatcher.create(server, 2 * BURST, null, EvdFlags.CONNECTION);
            EventDispatcher cconn = EventDispatcher.create(client, 2 * BURST, null, EvdFlags.CONNECTION);
            EventDispatcher crEvd = EventDispatcher.create(server, 2 * BURST, null, EvdFlags.CR);
            PublicServicePoint psp = PublicServicePoint.createAny(server, crEvd, PspFlags.CONSUMER);
            SocketAddress to = server.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
            for (int i = 0; i < BURST; i++) {
                Endpoint.create(client, cpz, cdto, cdto, cconn, null)
                        .connect(to, psp.connQual(), 60_000_000, 0, null, Qos.BEST_EFFORT, 0);
            }
            DatEvent e = new DatEvent();
            int accepted = 0;
            int upServer = 0;
            int upClient = 0;
            long deadline = System.nanoTime() + 120_000_000_000L;
            while ((upServer < BURST || upClient < BURST) && System.nanoTime() < deadline) {
                if (crEvd.dequeue(e)) {
                    e.cr().accept(Endpoint.create(server, spz, sdto, sdto, sconn, null), 0, null);
                    accepted++;
                } else if (sconn.dequeue(e)) {
                    assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(), "serving side");
                    upServer++;
                } else if (cconn.dequeue(e)) {
                    assertEquals(EventNumber.CONNECTION_EVENT_ESTABLISHED, e.eventNumber(),
                            "connecting side, after " + upClient + " established");
                    upClient++;
                } else {
                    Thread.onSpinWait();
                }
            }
            assertEquals(BURST, accepted);
            assertTrue(upServer == BURST && upClient == BURST, upServer + "/" + upClient + " established");
        } finally {
            client.close(CloseFlags.ABRUPT);
            server.close(CloseFlags.ABRUPT);
        }
    }
}
