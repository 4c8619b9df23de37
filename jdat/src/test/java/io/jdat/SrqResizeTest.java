package io.jdat;

import static io.jdat.testing.DataPath.dequeued;
import static io.jdat.testing.DataPath.expectDat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.spi.ChannelSink;
import io.jdat.spi.RecvBuffer;
import io.jdat.testing.Background;
import io.jdat.testing.DataPath;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_srq_resize} (SRZ-01..05, AMB-25). */
class SrqResizeTest {
    @Test
    @DisplayName("SRZ-01 SRZ-04: growing and shrinking keep every posted and every held buffer: each is used exactly"
            + " once afterwards; query reports the new depth, which posts then respect")
    void keepsBuffers() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 1, 0))) {
            SrqFixture.Conn a = f.connect();
            SrqFixture.Conn b = f.connect();
            for (int i = 0; i < 5; i++) {
                f.post(i, 256L * i, 256);
            }
            ChannelSink sink = SrqFixture.sink(a.server);
            RecvBuffer held = sink.takeRecv(); // a message of a in flight across the resizes
            assertNotNull(held);
            f.srq.resize(16);
            f.assertCounts(16, 4, 5, "grown");
            f.srq.resize(6);
            f.assertCounts(6, 4, 5, "shrunk (SRZ-04: at least the requested depth)");
            f.post(5, 256L * 5, 256);
            expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, () -> f.post(6, 0, 8));
            sink.completeRecv(held, 3, false);
            Set<Long> used = new HashSet<>();
            DatEvent first = dequeued(a.serverRecv);
            DataPath.checkDto(first, DtoCompletionStatus.SUCCESS, first.userCookie());
            used.add(first.userCookie());
            for (int i = 0; i < 5; i++) {
                f.sendAndWait(b, i, 0, 8);
                DatEvent e = dequeued(b.serverRecv);
                DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, e.userCookie());
                assertTrue(used.add(e.userCookie()), "buffer used twice: " + e);
            }
            assertEquals(Set.of(0L, 1L, 2L, 3L, 4L, 5L), used, "every buffer, once");
            f.assertCounts(6, 0, 0, "all reaped");
            f.srq.resize(64);
            for (int i = 0; i < 64; i++) {
                f.post(i, 0, 8);
            }
            f.assertCounts(64, 64, 64, "grown again and filled");
        }
    }

    @Test
    @DisplayName("SRZ-01: resizing while messages flow loses neither buffers nor messages (2000 messages, resizes"
            + " between 32 and 64 from another thread)")
    void resizeUnderTraffic() {
        int buffers = 32;
        int messages = 2000;
        int window = 16;
        try (SrqFixture f = new SrqFixture(new SrqAttr(buffers, 1, 0))) {
            SrqFixture.Conn c = f.connect();
            for (int i = 0; i < buffers; i++) {
                f.post(i, 64L * i, 64);
            }
            AtomicBoolean done = new AtomicBoolean();
            Background<Integer> consumer = Background.start(() -> {
                DatEvent e = new DatEvent();
                for (int seq = 0; seq < messages; seq++) {
                    assertTrue(c.serverRecv.waitFor(SrqFixture.WAIT, 1, e), "message " + seq);
                    DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, e.userCookie());
                    long at = 64L * e.userCookie();
                    assertEquals(seq, f.serverBuf.get(ValueLayout.JAVA_INT_UNALIGNED, at), "per-connection order");
                    f.post(e.userCookie(), at, 64);
                }
                done.set(true);
                return messages;
            });
            Background<Integer> resizer = Background.start(() -> {
                int[] sizes = {64, 32, 48, 33, 40};
                int n = 0;
                while (!done.get()) {
                    f.srq.resize(sizes[n++ % sizes.length]);
                    Thread.yield();
                }
                return n;
            });
            DatEvent e = new DatEvent();
            int completed = 0;
            for (int seq = 0; seq < messages; seq++) {
                while (seq - completed >= window) {
                    assertTrue(c.clientReq.waitFor(SrqFixture.WAIT, 1, e), "send completion " + completed);
                    DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, completed++);
                }
                long slot = 64L * (seq % window);
                f.clientBuf.set(ValueLayout.JAVA_INT_UNALIGNED, slot, seq);
                f.send(c, seq, slot, 4);
            }
            while (completed < messages) {
                assertTrue(c.clientReq.waitFor(SrqFixture.WAIT, 1, e), "send completion " + completed);
                DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, completed++);
            }
            assertEquals(messages, consumer.join());
            assertTrue(resizer.join() > 0, "resized while messages flowed");
            SrqParam p = f.query();
            assertEquals(buffers, p.availableDtoCount(), "every buffer back on the SRQ");
            assertEquals(buffers, p.outstandingDtoCount());
            assertTrue(p.maxRecvDtos() >= buffers);
        }
    }

    @Test
    @DisplayName("SRZ-02 AMB-02: a size below the outstanding entries (on the SRQ, held by EPs, completed and not"
            + " reaped) is INVALID_STATE (SRQ_IN_USE) and changes nothing; exactly the outstanding count is accepted")
    void belowOutstanding() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(10, 1, 0))) {
            SrqFixture.Conn a = f.connect();
            for (int i = 0; i < 6; i++) {
                f.post(i, 64L * i, 64);
            }
            f.sendAndWait(a, 1, 0, 4);
            f.sendAndWait(a, 2, 0, 4); // two completed, not dequeued
            RecvBuffer held = SrqFixture.sink(a.server).takeRecv(); // one held
            assertNotNull(held);
            f.assertCounts(10, 3, 6, "3 on the SRQ, 1 held, 2 completed");
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, () -> f.srq.resize(5));
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, () -> f.srq.resize(1));
            f.assertCounts(10, 3, 6, "unchanged by the refused resizes");
            f.srq.resize(6);
            f.assertCounts(6, 3, 6, "resized to exactly the outstanding count");
            expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, () -> f.post(9, 0, 8));
            dequeued(a.serverRecv);
            f.post(9, 0, 8);
            f.assertCounts(6, 4, 6, "a reaped entry made room");
            SrqFixture.sink(a.server).completeRecv(held, 0, false);
        }
    }

    @Test
    @DisplayName("SRZ-03 AMB-25: a size strictly below the low watermark is INVALID_STATE (SRQ_OPERATIONAL) and changes"
            + " nothing; a size equal to it is accepted")
    void belowLowWatermark() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(10, 1, 0))) {
            f.srq.setLw(4);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_OPERATIONAL, () -> f.srq.resize(3));
            SrqParam p = f.query();
            assertEquals(10, p.maxRecvDtos(), "unchanged");
            assertEquals(4, p.lowWatermark());
            f.srq.resize(4);
            assertEquals(4, f.query().maxRecvDtos());
        }
    }

    @Test
    @DisplayName("SRZ-05: a size of 0, a negative one or one beyond max_recv_per_srq is INVALID_PARAMETER; a freed SRQ"
            + " is INVALID_HANDLE")
    void invalidSize() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(10, 1, 0))) {
            int max = f.serverIa.query(IaAttr.FIELD_ALL, 0).iaAttr().maxRecvPerSrq();
            for (int bad : new int[] {0, -1, Integer.MIN_VALUE, max + 1}) {
                expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2, () -> f.srq.resize(bad));
            }
            assertEquals(10, f.query().maxRecvDtos());
            SharedReceiveQueue gone = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(2, 1, 0));
            gone.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> gone.resize(4));
        }
    }
}
