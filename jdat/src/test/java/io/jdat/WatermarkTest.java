package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_ep_set_watermark} and {@code dat_ep_recv_query} on a non-SRQ EP. */
class WatermarkTest {
    private static final LmrTriplet[] NONE = new LmrTriplet[0];

    @Test
    @DisplayName("EPW-01 AMB-23: the soft high watermark fires once on the async EVD (ASYNC_WATERMARK_EVENT, EP, reason 2)")
    void softWatermarkFiresOnce() {
        try (Pair p = new Pair()) {
            Endpoint ep = p.client.ep;
            EventDispatcher async = p.client.ia.asyncEvd();
            ep.setWatermark(2, Dat.WATERMARK_INFINITE);
            ep.postRecv(0, NONE, 1, 0);
            ep.postRecv(0, NONE, 2, 0);
            DataPath.assertEmpty(async, "two buffers held, mark 2: not above it yet");
            ep.postRecv(0, NONE, 3, 0);
            DatEvent e = DataPath.dequeued(async);
            assertEquals(EventNumber.ASYNC_WATERMARK_EVENT, e.eventNumber());
            assertEquals(0x08010, e.eventNumber().code());
            assertSame(ep, e.asyncHandle());
            assertEquals(AsyncReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, e.reason());
            ep.postRecv(0, NONE, 4, 0);
            DataPath.assertEmpty(async, "one-shot: no second event without re-arming");
            ep.setWatermark(3, Dat.WATERMARK_INFINITE);
            assertEquals(EventNumber.ASYNC_WATERMARK_EVENT, DataPath.dequeued(async).eventNumber(),
                    "re-armed below the current count: fires at once (EPW-04)");
        }
    }

    @Test
    @DisplayName("EPW-02: receive buffers beyond the hard high watermark break the connection")
    void hardWatermarkBreaks() {
        try (Pair p = new Pair().connect()) {
            Endpoint ep = p.server.ep;
            ep.setWatermark(Dat.WATERMARK_INFINITE, 1);
            ep.postRecv(0, NONE, 1, 0);
            DataPath.assertEmpty(p.server.connEvd, "one buffer held: not above the hard mark");
            ep.postRecv(0, NONE, 2, 0);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(EpState.DISCONNECTED, ep.getStatus().epState());
        }
    }

    @Test
    @DisplayName("EPW-03: with infinite marks nothing fires, and a message that finds no buffer still breaks the connection")
    void infiniteMarksAndNoBuffer() {
        try (Pair p = new Pair().connect()) {
            Endpoint server = p.server.ep;
            server.setWatermark(Dat.WATERMARK_INFINITE, Dat.WATERMARK_INFINITE);
            for (int i = 0; i < 10; i++) {
                server.postRecv(0, NONE, i, 0);
            }
            DataPath.assertEmpty(p.server.ia.asyncEvd(), "infinite soft mark");
            DataPath.assertEmpty(p.server.connEvd, "infinite hard mark");
            for (int i = 0; i < 10; i++) {
                p.client.ep.postSend(0, NONE, i, CompletionFlags.SUPPRESS);
            }
            for (int i = 0; i < 10; i++) {
                DataPath.dto(p.server.recvEvd, DtoCompletionStatus.SUCCESS, i);
            }
            // The eleventh message finds no buffer: mem waits for one (receiver not ready), then breaks.
            p.client.ep.postSend(0, NONE, 99, 0);
            DatEvent e = p.client.next(p.client.reqEvd);
            assertEquals(DtoCompletionStatus.ERR_RECEIVER_NOT_READY, e.status());
            p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @Test
    @DisplayName("ERQ-01 ERQ-02 ERQ-03: a non-SRQ EP holds its buffers from posting to completion; span equals the count")
    void recvQuery() {
        try (Pair p = new Pair().connect()) {
            Endpoint server = p.server.ep;
            assertEquals(new Endpoint.RecvQueryResult(0, 0), server.recvQuery());
            for (int i = 0; i < 3; i++) {
                server.postRecv(0, NONE, i, 0);
            }
            assertEquals(new Endpoint.RecvQueryResult(3, 3), server.recvQuery(), "held from the moment they are posted");
            p.client.ep.postSend(0, NONE, 7, CompletionFlags.SUPPRESS);
            DataPath.dto(p.server.recvEvd, DtoCompletionStatus.SUCCESS, 0);
            Endpoint.RecvQueryResult r = server.recvQuery();
            assertEquals(2, r.nbufsAllocated());
            assertFalse(r.bufsAllocSpan() < r.nbufsAllocated(), "span >= count");
        }
    }
}
