package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dequeued;
import static io.jdat.testing.DataPath.expectDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.spi.ChannelSink;
import io.jdat.spi.RecvBuffer;
import io.jdat.testing.ConnFixture;
import io.jdat.testing.DataPath;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_srq_set_lw} (SLW-01..05, AMB-23, AMB-24) and the EP watermark and receive-query calls on SRQ EPs
 * (EPW-01..04, ERQ-01..03).
 */
class SrqWatermarkTest {
    /** Checks that {@code e} is the SRQ low watermark event of {@code srq} on {@code async}. */
    private static void assertLowWatermark(DatEvent e, SharedReceiveQueue srq, EventDispatcher async) {
        assertEquals(EventNumber.ASYNC_WATERMARK_EVENT, e.eventNumber());
        assertEquals(0x08010, e.eventNumber().code());
        assertTrue(e.eventNumber().isAsyncError(), "in the asynchronous range");
        assertSame(async, e.evd());
        assertSame(srq, e.asyncHandle());
        assertEquals(AsyncReason.SRQ_LOW_WATERMARK_EVENT, e.reason());
        assertEquals(2, e.reason());
    }

    @Test
    @DisplayName("SLW-01 SLW-05 AMB-23: set_lw arms one event for the first time an EP's take leaves fewer available"
            + " buffers than the mark: ASYNC_WATERMARK_EVENT (0x08010) on the IA async EVD, handle = the SRQ, reason"
            + " DAT_SRQ_LOW_WATERMARK_EVENT")
    void firesWhenBelow() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 1, 0))) {
            EventDispatcher async = f.serverIa.asyncEvd();
            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < 5; i++) {
                f.post(i, 0, 8);
            }
            f.srq.setLw(3);
            assertEquals(3, f.query().lowWatermark());
            assertEmpty(async, "5 available: not below 3");
            f.sendAndWait(c, 1, 0, 0);
            f.sendAndWait(c, 2, 0, 0);
            assertEquals(3, f.query().availableDtoCount());
            assertEmpty(async, "3 available: not below 3");
            f.sendAndWait(c, 3, 0, 0);
            assertLowWatermark(dequeued(async), f.srq, async);
            assertEmpty(async, "one event");
        }
    }

    @Test
    @DisplayName("SLW-02 SLW-03: the event fires once per arming; calling set_lw again re-arms it, and a mark above the"
            + " current available count fires during the call")
    void oncePerArming() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 1, 0))) {
            EventDispatcher async = f.serverIa.asyncEvd();
            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < 4; i++) {
                f.post(i, 0, 8);
            }
            f.srq.setLw(4);
            assertEmpty(async, "4 available: not below 4");
            f.sendAndWait(c, 1, 0, 0);
            assertLowWatermark(dequeued(async), f.srq, async);
            f.sendAndWait(c, 2, 0, 0);
            f.sendAndWait(c, 3, 0, 0);
            f.sendAndWait(c, 4, 0, 0);
            assertEmpty(async, "still below, but fired already: no second event without re-arming");
            f.srq.setLw(4);
            assertLowWatermark(dequeued(async), f.srq, async); // 0 available < 4: at once
            f.srq.setLw(1);
            assertLowWatermark(dequeued(async), f.srq, async); // 0 < 1: at once again
            assertEmpty(async, "one event per call");
        }
    }

    @Test
    @DisplayName("SLW-03 AMB-24: a mark equal to or below the available count only replaces the old mark (no event"
            + " during the call); the next take below it fires")
    void markNotAbove() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 1, 0))) {
            EventDispatcher async = f.serverIa.asyncEvd();
            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < 5; i++) {
                f.post(i, 0, 8);
            }
            f.srq.setLw(2);
            f.srq.setLw(5);
            assertEmpty(async, "5 available is not below 2 or 5");
            assertEquals(5, f.query().lowWatermark(), "the old mark is replaced");
            f.sendAndWait(c, 1, 0, 0);
            assertLowWatermark(dequeued(async), f.srq, async);
            f.srq.setLw(6);
            assertLowWatermark(dequeued(async), f.srq, async); // 4 < 6: during the call
        }
    }

    @Test
    @DisplayName("SLW-04 SRQ-17: a mark above max_recv_dtos or negative is INVALID_PARAMETER and changes nothing;"
            + " max_recv_dtos itself is allowed; watermarks are supported (no MODEL_NOT_SUPPORTED); DAT_SRQ_LW_DEFAULT"
            + " disarms")
    void invalidMarksAndDefault() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 1, 0))) {
            EventDispatcher async = f.serverIa.asyncEvd();
            int supported = f.serverIa.query(0, ProviderAttr.FIELD_ALL).providerAttr().srqWatermarksSupported();
            assertEquals(ProviderAttr.SRQ_WATERMARK_LOW, supported & ProviderAttr.SRQ_WATERMARK_LOW);
            for (int i = 0; i < 8; i++) {
                f.post(i, 0, 8);
            }
            f.srq.setLw(8);
            assertEmpty(async, "8 available is not below 8");
            for (int bad : new int[] {9, -1, Integer.MIN_VALUE}) {
                expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> f.srq.setLw(bad));
            }
            assertEquals(8, f.query().lowWatermark(), "unchanged");
            f.srq.setLw(Dat.SRQ_LW_DEFAULT);
            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < 8; i++) {
                f.sendAndWait(c, i, 0, 0);
            }
            assertEquals(0, f.query().availableDtoCount());
            assertEmpty(async, "DAT_SRQ_LW_DEFAULT never fires");
            SharedReceiveQueue gone = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(2, 1, 0));
            gone.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> gone.setLw(1));
        }
    }

    @Test
    @DisplayName("EPW-01 EPW-04 AMB-23: on an SRQ EP the soft high watermark counts the SRQ buffers the EP holds:"
            + " one event (EP handle, reason DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT) when it holds more; a mark below the"
            + " current count fires during the call; allowed in every state")
    void softMarkOnSrqEp() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(16, 1, 0))) {
            EventDispatcher async = f.serverIa.asyncEvd();
            Endpoint idle = f.srqEp(f.serverDtoEvd(8), SrqFixture.attr());
            idle.setWatermark(0, Dat.WATERMARK_INFINITE); // UNCONNECTED
            for (int i = 0; i < 8; i++) {
                f.post(i, 64L * i, 64);
            }
            assertEmpty(async, "buffers on the SRQ are held by no EP");
            SrqFixture.Conn c = f.connect();
            c.server.setWatermark(1, Dat.WATERMARK_INFINITE);
            ChannelSink sink = SrqFixture.sink(c.server);
            RecvBuffer one = sink.takeRecv();
            assertEmpty(async, "one held: not above 1");
            RecvBuffer two = sink.takeRecv();
            DatEvent e = dequeued(async);
            assertEquals(EventNumber.ASYNC_WATERMARK_EVENT, e.eventNumber());
            assertSame(c.server, e.asyncHandle());
            assertEquals(AsyncReason.SRQ_SOFT_HIGH_WATERMARK_EVENT, e.reason());
            RecvBuffer three = sink.takeRecv();
            assertEmpty(async, "one-shot");
            c.server.setWatermark(2, Dat.WATERMARK_INFINITE);
            assertSame(c.server, dequeued(async).asyncHandle(), "3 held > 2: fires during the call (EPW-04)");
            sink.completeRecv(one, 0, false);
            sink.completeRecv(two, 0, false);
            sink.completeRecv(three, 0, false);
            // Through the transport: a message makes the EP hold a buffer, above a mark of 0.
            c.server.setWatermark(0, Dat.WATERMARK_INFINITE);
            f.sendAndWait(c, 1, 0, 4);
            assertSame(c.server, dequeued(async).asyncHandle());
            c.client.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            c.server.setWatermark(Dat.WATERMARK_INFINITE, Dat.WATERMARK_INFINITE); // DISCONNECTED
            assertEmpty(async, "nothing else fired");
        }
    }

    @Test
    @DisplayName("EPW-02 EPW-03: an SRQ EP that holds more buffers than its hard mark breaks its connection; the SRQ"
            + " serves the others; with infinite marks nothing fires")
    void hardMarkOnSrqEp() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(16, 1, 0))) {
            SrqFixture.Conn a = f.connect();
            SrqFixture.Conn b = f.connect();
            for (int i = 0; i < 4; i++) {
                f.post(i, 64L * i, 64);
            }
            b.server.setWatermark(Dat.WATERMARK_INFINITE, Dat.WATERMARK_INFINITE);
            f.sendAndWait(b, 1, 0, 4);
            DatEvent first = DataPath.next(b.serverRecv);
            DataPath.checkDto(first, DtoCompletionStatus.SUCCESS, first.userCookie());
            assertEmpty(f.serverIa.asyncEvd(), "infinite marks");
            assertEmpty(b.serverConn, "infinite marks");
            a.server.setWatermark(Dat.WATERMARK_INFINITE, 0);
            f.sendAndWait(a, 2, 0, 4);
            ConnFixture.expect(a.serverConn, EventNumber.CONNECTION_EVENT_BROKEN);
            ConnFixture.expect(a.clientConn, EventNumber.CONNECTION_EVENT_BROKEN);
            assertEquals(EpState.DISCONNECTED, a.server.getStatus().epState());
            f.sendAndWait(b, 3, 0, 4);
            DatEvent e = DataPath.next(b.serverRecv);
            DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, e.userCookie());
        }
    }

    @Test
    @DisplayName("ERQ-01 ERQ-02 ERQ-03: recv_query of an SRQ EP counts the SRQ buffers it took and did not complete"
            + " (none while they sit on the SRQ); span equals the count; both values are supported")
    void recvQuery() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(16, 1, 0))) {
            int info = f.serverIa.query(0, ProviderAttr.FIELD_ALL).providerAttr().epRecvInfoSupported();
            assertEquals(ProviderAttr.EP_RECV_INFO_NBUFS_ALLOCATED | ProviderAttr.EP_RECV_INFO_BUFS_ALLOC_SPAN, info);
            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < 8; i++) {
                f.post(i, 64L * i, 64);
            }
            assertEquals(new Endpoint.RecvQueryResult(0, 0), c.server.recvQuery(), "posted to the SRQ, not held");
            ChannelSink sink = SrqFixture.sink(c.server);
            RecvBuffer[] taken = {sink.takeRecv(), sink.takeRecv(), sink.takeRecv()};
            for (RecvBuffer t : taken) {
                assertNotNull(t);
            }
            Endpoint.RecvQueryResult r = c.server.recvQuery();
            assertEquals(3, r.nbufsAllocated());
            assertTrue(r.bufsAllocSpan() >= r.nbufsAllocated(), "span >= count");
            sink.completeRecv(taken[0], 0, false);
            assertEquals(new Endpoint.RecvQueryResult(2, 2), c.server.recvQuery());
            c.server.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(new Endpoint.RecvQueryResult(0, 0), c.server.recvQuery(), "flushed");
        }
    }
}
