package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.LmrTriplet;
import io.jdat.RmrTriplet;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TcpSmokeTest {
    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    void sendWriteReadOverLoopback() {
        try (Pair p = new Pair(TcpTesting.LO, null, 64).connect(new byte[] {1, 2, 3}, new byte[] {4})) {
            for (int i = 0; i < 64; i++) {
                p.client.buf.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(1024, 1024)}, 7L, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 8L, CompletionFlags.DEFAULT);
            p.client.expectDto(p.client.reqEvd, 8L);
            DatEvent r = p.server.expectDto(p.server.recvEvd, 7L);
            assertEquals(64, r.transferredLength());
            assertEquals((byte) 63, p.server.buf.get(ValueLayout.JAVA_BYTE, 1024 + 63));
            // RDMA Write client -> server
            RmrTriplet remote = p.server.lmr.remoteTriplet(4096, 64);
            p.client.ep.postRdmaWrite(1, new LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 9L, remote, CompletionFlags.DEFAULT);
            p.client.expectDto(p.client.reqEvd, 9L);
            // RDMA Read it back into the client at 8192
            p.client.ep.postRdmaRead(1, new LmrTriplet[] {p.client.lmr.triplet(8192, 64)}, 10L, remote, CompletionFlags.DEFAULT);
            p.client.expectDto(p.client.reqEvd, 10L);
            assertEquals((byte) 63, p.client.buf.get(ValueLayout.JAVA_BYTE, 8192 + 63));
        }
    }
}
