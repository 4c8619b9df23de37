package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dequeued;
import static io.jdat.testing.DataPath.expectDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jdat.spi.ChannelSink;
import io.jdat.testing.ConnFixture;
import io.jdat.testing.DataPath;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** {@code dat_srq_free} (SRF-01, AMB-02), the abrupt IA close, and completions that are lost instead of dequeued. */
class SrqFreeTest {
    @Test
    @DisplayName("SRF-01 AMB-02: free while an EP uses the SRQ is DAT_INVALID_STATE with subtype SRQ_IN_USE; once the"
            + " EPs are freed it succeeds and every call on the handle is INVALID_HANDLE (INVALID_HANDLE_SRQ)")
    void inUseThenFreed() {
        try (SrqFixture f = new SrqFixture()) {
            SharedReceiveQueue srq = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(8, 1, 0));
            Endpoint idle = Endpoint.createWithSrq(f.serverIa, f.serverPz, null, null, null, srq, SrqFixture.attr());
            DatException e = expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, srq::free);
            assertEquals(DatReturn.error(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE), e.code());
            srq.postRecv(0, null, 1); // still alive and usable
            // A connected EP holds it too.
            SrqFixture.Conn c = f.connect();
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, f.srq::free);
            c.server.free();
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, srq::free);
            idle.free();
            // The SRQ holds its PZ.
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_PZ_IN_USE, f.serverPz::free);
            srq.free();
            f.srq.free();
            List<Executable> calls = List.of(srq::free, srq::close, () -> srq.postRecv(0, null, 2),
                    () -> srq.query(SrqParam.FIELD_ALL), () -> srq.resize(4), () -> srq.setLw(1), srq::getHandleType,
                    srq::getConsumerContext, () -> srq.setConsumerContext(null),
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, null, null, null, srq, SrqFixture.attr()));
            for (Executable call : calls) {
                expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, call);
            }
        }
    }

    @Test
    @DisplayName("IAC-01 IAC-03: an abrupt dat_ia_close destroys the SRQ with its EPs; a graceful close refuses while"
            + " an SRQ lives")
    void iaClose() {
        try (SrqFixture f = new SrqFixture()) {
            InterfaceAdapter ia = InterfaceAdapter.open("mem", 8, null);
            ProtectionZone pz = ProtectionZone.create(ia);
            SharedReceiveQueue srq = SharedReceiveQueue.create(ia, pz, new SrqAttr(4, 1, 0));
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_IA_IN_USE,
                    () -> ia.close(CloseFlags.GRACEFUL));
            srq.free();
            pz.free();
            ia.close(CloseFlags.GRACEFUL);

            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < 4; i++) {
                f.post(i, 0, 64);
            }
            f.sendAndWait(c, 1, 0, 8);
            f.serverIa.close(CloseFlags.ABRUPT);
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> f.srq.query(SrqParam.FIELD_ALL));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> f.srq.postRecv(0, null, 9));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP, c.server::getStatus);
            ConnFixture.expect(c.clientConn, EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @Test
    @DisplayName("SRQ-04: an entry stops being outstanding when its completion is lost instead of dequeued: recv EVD"
            + " overflow, recv EVD freed with it queued, EP freed while holding buffers, EP without a recv EVD")
    void lostCompletionsFreeEntries() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(16, 1, 0))) {
            EventDispatcher async = f.serverIa.asyncEvd();
            for (int i = 0; i < 12; i++) {
                f.post(i, 64L * i, 64);
            }
            // Overflow: a recv EVD of two entries takes two completions; the third is lost.
            EventDispatcher small = f.serverDtoEvd(2);
            SrqFixture.Conn a = f.connect(small);
            for (int i = 0; i < 3; i++) {
                f.sendAndWait(a, i, 0, 4);
            }
            DatEvent overflow = dequeued(async);
            assertEquals(EventNumber.ASYNC_ERROR_EVD_OVERFLOW, overflow.eventNumber());
            assertSame(small, overflow.asyncHandle());
            f.assertCounts(16, 9, 11, "two queued, one lost");
            // The EVD is freed with its two completions (the EP first, since it feeds the EVD).
            a.server.free();
            f.assertCounts(16, 9, 11, "still queued on the EVD");
            small.free();
            f.assertCounts(16, 9, 9, "discarded with the EVD");
            // The EP is freed while it holds buffers.
            SrqFixture.Conn b = f.connect();
            ChannelSink sink = SrqFixture.sink(b.server);
            assertNotNull(sink.takeRecv());
            assertNotNull(sink.takeRecv());
            f.assertCounts(16, 7, 9, "two held");
            b.server.free();
            f.assertCounts(16, 7, 7, "discarded with the EP");
            assertEmpty(b.serverRecv, "no completion for them");
            // No recv EVD at all: consumed and reaped at once.
            Endpoint blind = f.srqEp(null, SrqFixture.attr());
            EpParam p = blind.query(EpParam.FIELD_ALL);
            SrqFixture.Conn c = f.connect(blind, null, p.requestEvdHandle(), p.connectEvdHandle());
            f.sendAndWait(c, 1, 0, 4);
            f.assertCounts(16, 6, 6, "no EVD to report on");
            // The freed entries take new posts.
            for (int i = 0; i < 10; i++) {
                f.post(100 + i, 0, 8);
            }
            f.assertCounts(16, 16, 16, "full again");
            DataPath.assertEmpty(async, "no other async event");
        }
    }
}
