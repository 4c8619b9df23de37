package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MemSmokeTest {
    @Test
    @DisplayName("CON-04 CON-09 EVW-20 SND-09 RWR-02 RDR-02: connect with private data, send, RDMA write, RDMA read")
    void endToEnd() {
        try (Pair p = new Pair()) {
            byte[] pd = {1, 2, 3};
            p.psp = PublicServicePoint.create(p.server.ia, p.qual, p.crEvd, PspFlags.CONSUMER);
            p.client.ep.connect(Pair.address(), p.qual, 5_000_000, 3, pd, Qos.BEST_EFFORT, 0);
            DatEvent cr = p.server.next(p.crEvd);
            assertArrayEquals(pd, cr.cr().query(CrParam.FIELD_ALL).privateData());
            p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 1024)}, 7, 0);
            cr.cr().accept(p.server.ep, 2, new byte[] {9, 8});
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            DatEvent est = p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(new byte[] {9, 8}, est.privateData());

            p.client.buf.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(0, 8)}, 11, 0);
            p.client.expectDto(p.client.reqEvd, 11);
            DatEvent r = p.server.expectDto(p.server.recvEvd, 7);
            assertEquals(8, r.transferredLength());
            assertEquals(0x1122334455667788L, p.server.buf.get(ValueLayout.JAVA_LONG, 0));

            p.client.buf.set(ValueLayout.JAVA_LONG, 64, 42L);
            p.client.ep.postRdmaWrite(1, new LmrTriplet[] {p.client.lmr.triplet(64, 8)}, 12,
                    p.server.lmr.remoteTriplet(128, 8), 0);
            assertEquals(8, p.client.expectDto(p.client.reqEvd, 12).transferredLength());
            assertEquals(42L, p.server.buf.get(ValueLayout.JAVA_LONG, 128));

            p.server.buf.set(ValueLayout.JAVA_LONG, 512, 99L);
            p.client.ep.postRdmaRead(1, new LmrTriplet[] {p.client.lmr.triplet(1024, 8)}, 13,
                    p.server.lmr.remoteTriplet(512, 8), 0);
            assertEquals(8, p.client.expectDto(p.client.reqEvd, 13).transferredLength());
            assertEquals(99L, p.client.buf.get(ValueLayout.JAVA_LONG, 1024));

            p.client.ep.disconnect(CloseFlags.GRACEFUL);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, p.server.ep.getStatus().epState());
        }
    }
}
