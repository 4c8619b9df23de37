package io.jdat;

import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Endpoint#counters()} and {@link InterfaceAdapter#counters()} after known transfers. */
class CountersTest {
    @ParameterizedTest
    @ValueSource(strings = {"mem", "tcp"})
    void countsKnownTransfersThenFlushesOnDisconnect(String ia) {
        try (Pair p = new Pair(ia, null, 64)) {
            assertEquals(DtoCounters.ZERO, p.client.ep.counters());
            for (int i = 0; i < 3; i++) {
                p.server.ep.postRecv(1, iov(p.server.lmr, 4096L * i, 4096), 10 + i, CompletionFlags.DEFAULT);
            }
            p.connect();
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 100), 1, CompletionFlags.DEFAULT);
            p.client.ep.postSend(2, iov(p.client.lmr, 0, 100, 200, 100), 2, CompletionFlags.SUPPRESS);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 1000), 3, p.server.lmr.remoteTriplet(20000, 1000),
                    CompletionFlags.DEFAULT);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 30000, 500), 4, p.server.lmr.remoteTriplet(0, 500),
                    CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 1, 100);
            dtoOk(p.client.reqEvd, 3, 1000);
            dtoOk(p.client.reqEvd, 4, 500);
            dtoOk(p.server.recvEvd, 10, 100);
            dtoOk(p.server.recvEvd, 11, 200);

            DtoCounters c = p.client.ep.counters();
            assertEquals(new DtoCounters(4, 4, 0, 0, 100 + 200 + 1000 + 500, 0, 0, 0, 0, 0), c);
            DtoCounters s = p.server.ep.counters();
            assertEquals(new DtoCounters(0, 0, 0, 0, 0, 3, 2, 0, 0, 300), s);
            assertEquals(1, s.outstanding());
            assertEquals(c, p.client.ia.counters());
            assertEquals(s, p.server.ia.counters());

            // Disconnect: the server's third receive is flushed; a send posted in DISCONNECTED is flushed at once.
            p.client.ep.disconnect(CloseFlags.ABRUPT);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_DISCONNECTED);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 12);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 5, CompletionFlags.DEFAULT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 5);
            assertEquals(new DtoCounters(0, 0, 0, 0, 0, 3, 2, 1, 0, 300), p.server.ep.counters());
            DtoCounters c2 = p.client.ep.counters();
            assertEquals(new DtoCounters(5, 4, 1, 0, 1800, 0, 0, 0, 0, 0), c2);
            assertEquals(0, c2.outstanding());
            assertEquals(new DtoCounters(1, 0, 1, 0, 0, 0, 0, 0, 0, 0), c2.minus(c));

            // The IA keeps a freed Endpoint's counts.
            p.client.ep.free();
            assertEquals(c2, p.client.ia.counters());
            Endpoint second = Endpoint.create(p.client.ia, p.client.pz, p.client.recvEvd, p.client.reqEvd,
                    p.client.connEvd, null);
            second.postRecv(1, iov(p.client.lmr, 0, 64), 6, CompletionFlags.DEFAULT);
            assertEquals(c2.plus(new DtoCounters(0, 0, 0, 0, 0, 1, 0, 0, 0, 0)), p.client.ia.counters());
        }
    }

    @Test
    void errorsAreCountedApartFromFlushes() {
        try (Pair p = new Pair()) {
            p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, CompletionFlags.DEFAULT);
            p.connect();
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 128), 2, CompletionFlags.DEFAULT);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 1);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_RESPONDER, 2);
            DtoCounters s = p.server.ep.counters();
            DtoCounters c = p.client.ep.counters();
            assertEquals(1, s.recvErrors());
            assertEquals(0, s.recvsCompleted());
            assertEquals(1, c.requestErrors());
            assertEquals(0, c.requestBytes());
            assertEquals(2, s.errors() + c.errors());
        }
    }

    @Test
    void countingAllocatesNothingPerTransfer() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Pair p = new Pair().connect()) {
            LmrTriplet[] recv = iov(p.server.lmr, 0, 64);
            LmrTriplet[] send = iov(p.client.lmr, 0, 64);
            DatEvent ev = new DatEvent();
            long best = Long.MAX_VALUE;
            int rounds = 0;
            for (; rounds < 5 && best > 0; rounds++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 1000; i++) {
                    p.server.ep.postRecv(1, recv, i, CompletionFlags.DEFAULT);
                    p.client.ep.postSend(1, send, i, CompletionFlags.DEFAULT);
                    while (!p.client.reqEvd.dequeue(ev)) {
                        Thread.onSpinWait();
                    }
                    while (!p.server.recvEvd.dequeue(ev)) {
                        Thread.onSpinWait();
                    }
                }
                best = Math.min(best, mx.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(best < 2000, "1000 counted send/recv pairs allocated " + best + " bytes");
            assertEquals(1000L * rounds, p.client.ep.counters().requestsCompleted());
            assertEquals(1000L * rounds * 64, p.server.ep.counters().recvBytes());
        }
    }
}
