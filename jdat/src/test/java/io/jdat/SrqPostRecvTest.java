package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.assertQueuedSilently;
import static io.jdat.testing.DataPath.dequeued;
import static io.jdat.testing.DataPath.expectDat;
import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.spi.ChannelSink;
import io.jdat.spi.RecvBuffer;
import io.jdat.testing.ConnFixture;
import io.jdat.testing.DataPath;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_srq_post_recv} and the receive path of SRQ EPs (SPR-01..11), with the data-path statements of the
 * seed pages (SRQ-11, SRQ-19, SRQ-22..26).
 */
class SrqPostRecvTest {
    private static final int BUF = 256;

    /** Posts {@code n} one-segment buffers of {@link #BUF} bytes, cookie {@code i} at offset {@code i * BUF}. */
    private static void postBuffers(SrqFixture f, int n) {
        for (int i = 0; i < n; i++) {
            f.post(i, (long) i * BUF, BUF);
        }
    }

    /** Writes the header {@code (conn, seq)} at {@code off} of the client buffer. */
    private static void header(SrqFixture f, long off, int conn, int seq) {
        f.clientBuf.set(ValueLayout.JAVA_INT_UNALIGNED, off, conn);
        f.clientBuf.set(ValueLayout.JAVA_INT_UNALIGNED, off + 4, seq);
    }

    @Test
    @DisplayName("SPR-01: post_recv takes srq, num_segments, local_iov and a cookie (no flags); 0 segments or a NULL"
            + " iov is a zero-size buffer, which receives a zero-length message")
    void zeroSizeBuffers() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn c = f.connect();
            f.srq.postRecv(0, null, 11);
            f.srq.postRecv(0, new LmrTriplet[] {f.serverLmr.triplet(0, 64)}, 12); // entries beyond num_segments unused
            f.assertCounts(64, 2, 2, "after two zero-size posts");
            Set<Long> cookies = new HashSet<>();
            for (int i = 0; i < 2; i++) {
                f.sendAndWait(c, i, 0, 0);
                DatEvent e = DataPath.next(c.serverRecv);
                DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, e.userCookie());
                assertEquals(0, e.transferredLength());
                cookies.add(e.userCookie());
            }
            assertEquals(Set.of(11L, 12L), cookies, "each zero-size buffer used once");
            f.assertCounts(64, 0, 0, "both used and reaped");
        }
    }

    @Test
    @DisplayName("SPR-02: a posted buffer is taken by an attached EP that is CONNECTED or DISCONNECT_PENDING;"
            + " an attached EP that is not connected takes none")
    void takenWhenConnectedOrDisconnectPending() {
        try (SrqFixture f = new SrqFixture()) {
            Endpoint idle = f.srqEp(f.serverDtoEvd(8), SrqFixture.attr());
            postBuffers(f, 4);
            SrqFixture.Conn c = f.connect();
            // CONNECTED: takes a buffer.
            f.sendAndWait(c, 1, 0, 8);
            DatEvent taken = DataPath.next(c.serverRecv);
            DataPath.checkDto(taken, DtoCompletionStatus.SUCCESS, taken.userCookie());
            assertEquals(EpState.UNCONNECTED, idle.getStatus().epState());
            assertEmpty(idle.query(EpParam.FIELD_ALL).recvEvdHandle(), "the unconnected EP took nothing");
            // DISCONNECT_PENDING: the server's own send waits for a client buffer, so a graceful disconnect pends.
            c.server.postSend(1, iov(f.serverLmr, 8192, 8), 50, CompletionFlags.DEFAULT);
            c.server.disconnect(CloseFlags.GRACEFUL);
            assertEquals(EpState.DISCONNECT_PENDING, c.server.getStatus().epState());
            f.sendAndWait(c, 2, 0, 8);
            DatEvent e = DataPath.next(c.serverRecv);
            DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, e.userCookie());
            assertEquals(8, e.transferredLength());
            f.assertCounts(64, 2, 2, "two taken and reaped");
            // The client takes the server's message: the graceful disconnect completes.
            c.client.postRecv(1, iov(f.clientLmr, 4096, 64), 77, CompletionFlags.DEFAULT);
            DataPath.dtoOk(c.serverReq, 50, 8);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEquals(EpState.DISCONNECTED, c.server.getStatus().epState());
        }
    }

    @Test
    @DisplayName("SPR-03: an SRQ buffer is filled like an EP receive: leading segments full, at most one partial, the"
            + " rest untouched")
    void scatterOrder() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn c = f.connect();
            DataPath.sentinel(f.serverBuf);
            f.srq.postRecv(3, iov(f.serverLmr, 0, 16, 100, 16, 200, 32), 5);
            DataPath.fill(f.clientBuf, 0, 40, 3);
            f.sendAndWait(c, 1, 0, 40);
            DataPath.dtoOk(c.serverRecv, 5, 40);
            DataPath.assertPattern(f.serverBuf, 0, 16, 3, 0, "segment 0");
            DataPath.assertPattern(f.serverBuf, 100, 16, 3, 16, "segment 1");
            DataPath.assertPattern(f.serverBuf, 200, 8, 3, 32, "segment 2, partial");
            DataPath.assertUntouchedExcept(f.serverBuf, 0, 16, 100, 16, 200, 8);
        }
    }

    @Test
    @DisplayName("SPR-04 SRQ-23: the completion goes to the recv EVD of the EP that took the buffer, with that EP,"
            + " the buffer's cookie and the length, as if that EP had posted it; other recv EVDs see nothing")
    void completionOnTakingEp() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn a = f.connect();
            SrqFixture.Conn b = f.connect();
            f.post(42, 0, 128);
            DataPath.fill(f.clientBuf, 0, 100, 9);
            f.sendAndWait(b, 1, 0, 100);
            DatEvent e = DataPath.dtoOk(b.serverRecv, 42, 100);
            assertSame(b.server, e.ep());
            assertSame(b.serverRecv, e.evd());
            DataPath.assertPattern(f.serverBuf, 0, 100, 9, 0, "received bytes");
            assertEmpty(a.serverRecv, "the other EP's recv EVD");
            f.post(43, 128, 128);
            f.sendAndWait(a, 2, 0, 10);
            assertSame(a.server, DataPath.dtoOk(a.serverRecv, 43, 10).ep());
            assertEmpty(b.serverRecv, "the first EP's recv EVD");
        }
    }

    @Test
    @DisplayName("SPR-05: an SOLICITED_WAIT EP signals an SRQ completion only for a solicited send; with EVD_THRESHOLD"
            + " the wake-up follows the wait threshold")
    void notification() {
        try (SrqFixture f = new SrqFixture()) {
            postBuffers(f, 8);
            EventDispatcher solicitedEvd = f.serverDtoEvd(16);
            SrqFixture.Conn s = f.connect(solicitedEvd,
                    SrqFixture.attr().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT));
            f.sendAndWait(s, 1, 0, 4);
            assertQueuedSilently(solicitedEvd, 1);
            s.client.postSend(1, iov(f.clientLmr, 0, 4), 2, CompletionFlags.SOLICITED_WAIT);
            DataPath.dtoOk(s.clientReq, 2, 4);
            DatEvent first = DataPath.next(solicitedEvd); // woken by the solicited one; the unsolicited one is first
            DataPath.checkDto(first, DtoCompletionStatus.SUCCESS, first.userCookie());
            DatEvent second = dequeued(solicitedEvd);
            DataPath.checkDto(second, DtoCompletionStatus.SUCCESS, second.userCookie());
            assertTrue(first.userCookie() != second.userCookie(), "two different SRQ buffers");

            SrqFixture.Conn t = f.connect(); // EVD_THRESHOLD
            DatEvent w = new DatEvent();
            f.sendAndWait(t, 3, 0, 4);
            assertFalse(t.serverRecv.waitFor(100_000, 2, w), "one completion does not reach threshold 2");
            assertEquals(1, w.nmore());
            f.sendAndWait(t, 4, 0, 4);
            assertTrue(t.serverRecv.waitFor(SrqFixture.WAIT, 2, w), "two completions reach threshold 2");
            assertEquals(1, w.nmore());
        }
    }

    @Test
    @DisplayName("SPR-06 SRQ-24 SRQ-25 SRQ-26 SRQ-23: per connection, receive completions follow the sender's order;"
            + " each buffer is used once; nothing is assumed across connections, EVDs or posting order")
    void perConnectionOrder() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(128, 1, 0))) {
            EventDispatcher shared = f.serverDtoEvd(256);
            SrqFixture.Conn[] conns = {f.connect(shared), f.connect(shared), f.connect()};
            int perConn = 30;
            postBuffers(f, conns.length * perConn);
            for (int seq = 0; seq < perConn; seq++) {
                for (int k = 0; k < conns.length; k++) {
                    long off = 64L * k;
                    header(f, off, k, seq);
                    f.sendAndWait(conns[k], seq, off, 8);
                }
            }
            Map<Endpoint, Integer> index = new HashMap<>();
            for (int k = 0; k < conns.length; k++) {
                index.put(conns[k].server, k);
            }
            int[] next = new int[conns.length];
            Set<Long> used = new HashSet<>();
            for (EventDispatcher evd : new EventDispatcher[] {shared, conns[2].serverRecv}) {
                DatEvent e = new DatEvent();
                while (evd.dequeue(e)) {
                    assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                    assertTrue(used.add(e.userCookie()), "buffer used twice: " + e.userCookie());
                    long at = e.userCookie() * BUF;
                    int conn = f.serverBuf.get(ValueLayout.JAVA_INT_UNALIGNED, at);
                    int seq = f.serverBuf.get(ValueLayout.JAVA_INT_UNALIGNED, at + 4);
                    int k = index.get(e.ep());
                    assertEquals(k, conn, "a message of connection " + conn + " completed on EP " + k);
                    assertEquals(next[k]++, seq, "order of connection " + k);
                }
            }
            for (int k = 0; k < conns.length; k++) {
                assertEquals(perConn, next[k], "messages of connection " + k);
            }
            f.assertCounts(128, 0, 0, "every buffer used and reaped");
        }
    }

    @Test
    @DisplayName("SPR-07: a message longer than the SRQ buffer completes with DAT_DTO_ERR_LOCAL_LENGTH (contents and"
            + " length undefined) and breaks that connection; the SRQ serves the others")
    void tooLong() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn a = f.connect();
            SrqFixture.Conn b = f.connect();
            f.post(1, 0, 16);
            f.send(a, 1, 0, 32);
            DataPath.dto(a.serverRecv, DtoCompletionStatus.ERR_LOCAL_LENGTH, 1);
            DataPath.dto(a.clientReq, DtoCompletionStatus.ERR_REMOTE_RESPONDER, 1);
            ConnFixture.expect(a.serverConn, EventNumber.CONNECTION_EVENT_BROKEN);
            ConnFixture.expect(a.clientConn, EventNumber.CONNECTION_EVENT_BROKEN);
            f.assertCounts(64, 0, 0, "the failed buffer was reaped with its completion");
            f.post(2, 0, 16);
            f.sendAndWait(b, 2, 0, 16);
            DataPath.dtoOk(b.serverRecv, 2, 16);
        }
    }

    @Test
    @DisplayName("SPR-08: post_recv is legal in every SRQ state and whatever its EPs' states (none, UNCONNECTED,"
            + " DISCONNECTED: an EP in D neither takes nor flushes SRQ buffers); posting allocates nothing")
    void postAnytimeWithoutAllocation() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(64, 1, 0))) {
            f.post(0, 0, 64);
            f.assertCounts(64, 1, 1, "no EP");
            EventDispatcher idleRecv = f.serverDtoEvd(8);
            f.srqEp(idleRecv, SrqFixture.attr());
            f.post(1, 64, 64);
            f.assertCounts(64, 2, 2, "an UNCONNECTED EP");
            SrqFixture.Conn c = f.connect();
            c.client.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            f.post(2, 128, 64);
            f.assertCounts(64, 3, 3, "a DISCONNECTED EP");
            assertEmpty(c.serverRecv, "nothing flushed for buffers the EP never took");
            assertEmpty(idleRecv, "nothing taken by the unconnected EP");
            assertEquals(SrqState.OPERATIONAL, f.query().srqState());

            // A whole SRQ round trip on one thread - post, send, dequeue both completions - allocates nothing.
            SrqFixture.Conn d = f.connect();
            LmrTriplet[] buf = {f.serverLmr.triplet(1024, 64)};
            LmrTriplet[] msg = {f.clientLmr.triplet(0, 16)};
            DatEvent e = new DatEvent();
            Runnable round = () -> {
                f.srq.postRecv(1, buf, 5);
                d.client.postSend(1, msg, 6, CompletionFlags.DEFAULT);
                while (!d.serverRecv.dequeue(e)) {
                    Thread.onSpinWait();
                }
                while (!d.clientReq.dequeue(e)) {
                    Thread.onSpinWait();
                }
            };
            for (int i = 0; i < 20_000; i++) {
                round.run();
            }
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long best = Long.MAX_VALUE;
            for (int r = 0; r < 5 && best > 0; r++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 1000; i++) {
                    round.run();
                }
                best = Math.min(best, mx.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(best < 2000, "1000 SRQ round trips allocated " + best + " bytes");
            f.assertCounts(64, 3, 3, "the round trips left the three idle buffers");
        }
    }

    @Test
    @DisplayName("SPR-09 SPR-11: LMR in another PZ -> PROTECTION_VIOLATION; invalid LMR or no local write ->"
            + " PRIVILEGES_VIOLATION; segment outside the LMR, bad num_segments or iov -> INVALID_PARAMETER; full ->"
            + " INSUFFICIENT_RESOURCES; freed SRQ -> INVALID_HANDLE; nothing is posted on failure")
    void postErrors() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(2, 2, 0))) {
            ProtectionZone otherPz = ProtectionZone.create(f.serverIa);
            Lmr otherPzLmr = Lmr.create(f.serverIa, MemType.VIRTUAL, RegionDescription.forVa(f.serverBuf), 4096, otherPz,
                    MemPriv.ALL);
            Lmr readOnly = Lmr.create(f.serverIa, MemType.VIRTUAL, RegionDescription.forVa(f.serverBuf), 4096, f.serverPz,
                    MemPriv.LOCAL_READ);
            Lmr freed = Lmr.create(f.serverIa, MemType.VIRTUAL, RegionDescription.forVa(f.serverBuf), 4096, f.serverPz,
                    MemPriv.ALL);
            LmrTriplet stale = freed.triplet(0, 64);
            freed.free();
            SharedReceiveQueue srq = f.srq;
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> srq.postRecv(1, new LmrTriplet[] {otherPzLmr.triplet(0, 64)}, 1));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> srq.postRecv(1, new LmrTriplet[] {stale}, 2));
            expectDat(DatReturnType.PRIVILEGES_VIOLATION, DatReturnSubtype.PRIVILEGES_WRITE,
                    () -> srq.postRecv(1, new LmrTriplet[] {readOnly.triplet(0, 64)}, 3));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                    () -> srq.postRecv(1, new LmrTriplet[] {f.serverLmr.triplet(64 * 1024 - 8, 16)}, 4));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> srq.postRecv(-1, null, 5));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> srq.postRecv(3, iov(f.serverLmr, 0, 8, 8, 8, 16, 8), 6));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                    () -> srq.postRecv(2, iov(f.serverLmr, 0, 8), 7));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                    () -> srq.postRecv(1, new LmrTriplet[] {null}, 8));
            f.assertCounts(2, 0, 0, "after the refused posts");
            f.post(9, 0, 64);
            f.srq.postRecv(2, iov(f.serverLmr, 64, 8, 128, 8), 10);
            expectDat(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, () -> f.post(11, 256, 8));
            // Validation comes first even when full.
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> srq.postRecv(1, new LmrTriplet[] {otherPzLmr.triplet(0, 64)}, 12));
            f.assertCounts(2, 2, 2, "full");
            SharedReceiveQueue gone = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(2, 1, 0));
            gone.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ, () -> gone.postRecv(0, null, 1));
        }
    }

    @Test
    @DisplayName("SPR-10 SRQ-11: an EP owns several SRQ buffers in progress and completed ones on its EVD; entering"
            + " DISCONNECTED it completes the ones it took on its recv EVD (unfinished: FLUSHED); the SRQ keeps the rest"
            + " for the other EPs")
    void disconnectCompletesTakenBuffers() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(16, 1, 0))) {
            SrqFixture.Conn a = f.connect();
            SrqFixture.Conn b = f.connect();
            postBuffers(f, 6);
            // The test plays a transport that has three messages of connection a in flight.
            ChannelSink sink = SrqFixture.sink(a.server);
            RecvBuffer first = sink.takeRecv();
            RecvBuffer second = sink.takeRecv();
            RecvBuffer third = sink.takeRecv();
            assertNotNull(first);
            assertNotNull(third);
            assertEquals(new Endpoint.RecvQueryResult(3, 3), a.server.recvQuery(), "SRQ-11: three in progress");
            assertFalse(a.server.getStatus().recvIdle());
            f.assertCounts(16, 3, 6, "three taken");
            MemorySegment src = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            first.scatter(0, src, 0, 8);
            sink.completeRecv(first, 8, false);
            assertEquals(new Endpoint.RecvQueryResult(2, 2), a.server.recvQuery(),
                    "SRQ-11: two in progress and one completed on the EVD");
            f.assertCounts(16, 3, 6, "one completed, not reaped");
            assertNotNull(second);

            a.server.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(a.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            DatEvent done = DataPath.next(a.serverRecv);
            DataPath.checkDto(done, DtoCompletionStatus.SUCCESS, done.userCookie());
            assertEquals(8, done.transferredLength());
            assertEquals(List.of((byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5, (byte) 6, (byte) 7, (byte) 8),
                    bytes(f.serverBuf, done.userCookie() * BUF, 8));
            Set<Long> taken = new HashSet<>(Set.of(done.userCookie()));
            for (int i = 0; i < 2; i++) {
                DatEvent fl = DataPath.next(a.serverRecv);
                DataPath.checkDto(fl, DtoCompletionStatus.ERR_FLUSHED, fl.userCookie());
                assertSame(a.server, fl.ep());
                assertTrue(taken.add(fl.userCookie()), "flushed twice: " + fl);
            }
            assertEmpty(a.serverRecv, "only the buffers the EP had taken");
            assertTrue(a.server.getStatus().recvIdle());
            f.assertCounts(16, 3, 3, "three reaped, three still on the SRQ");
            // The SRQ keeps working for b with exactly the three buffers nobody took.
            Set<Long> rest = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                f.sendAndWait(b, i, 0, 4);
                rest.add(DataPath.next(b.serverRecv).userCookie());
            }
            assertEquals(6, rest.size() + taken.size());
            rest.retainAll(taken);
            assertTrue(rest.isEmpty(), "b received into buffers a had taken: " + rest);
            f.assertCounts(16, 0, 0, "all used and reaped");
            assertNull(SrqFixture.sink(b.server).takeRecv(), "the SRQ is empty");
        }
    }

    private static List<Byte> bytes(MemorySegment s, long off, int n) {
        List<Byte> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(s.get(ValueLayout.JAVA_BYTE, off + i));
        }
        return l;
    }

    @Test
    @DisplayName("SPR-10: an SRQ EP that disconnects holding no buffer flushes nothing; the buffers stay on the SRQ")
    void disconnectLeavesSrqBuffers() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn a = f.connect();
            SrqFixture.Conn b = f.connect();
            postBuffers(f, 4);
            a.client.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(a.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            assertEmpty(a.serverRecv, "no flushed receives");
            f.assertCounts(64, 4, 4, "nothing flushed off the SRQ");
            f.sendAndWait(b, 1, 0, 4);
            DatEvent e = DataPath.next(b.serverRecv);
            DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, e.userCookie());
            f.assertCounts(64, 3, 3, "the other EP took one");
        }
    }

    @Test
    @DisplayName("SRQ-19: an EP that finds its SRQ empty behaves as an EP with an empty receive queue: on mem the"
            + " message waits for a buffer, then, with none in time, fails RECEIVER_NOT_READY and the connection breaks")
    void emptySrq() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn c = f.connect();
            DataPath.fill(f.clientBuf, 0, 32, 4);
            f.send(c, 1, 0, 32);
            assertEmpty(c.clientReq, "no buffer yet: the send waits");
            assertFalse(c.client.getStatus().requestIdle());
            f.post(8, 512, 64);
            DataPath.dtoOk(c.clientReq, 1, 32);
            DataPath.dtoOk(c.serverRecv, 8, 32);
            DataPath.assertPattern(f.serverBuf, 512, 32, 4, 0, "the message that waited");
            // With no buffer within mem's receiver-not-ready limit the connection breaks, as for any EP
            // (a fresh connection: its limit counts from this send).
            SrqFixture.Conn d = f.connect();
            f.send(d, 2, 0, 8);
            DataPath.dto(d.clientReq, DtoCompletionStatus.ERR_RECEIVER_NOT_READY, 2);
            ConnFixture.expect(d.clientConn, EventNumber.CONNECTION_EVENT_BROKEN);
            ConnFixture.expect(d.serverConn, EventNumber.CONNECTION_EVENT_BROKEN);
            assertEmpty(d.serverRecv, "no buffer was taken");
            f.assertCounts(64, 0, 0, "the SRQ itself is unaffected");
            f.post(9, 0, 64);
            f.sendAndWait(c, 3, 0, 8);
            DataPath.dtoOk(c.serverRecv, 9, 8);
        }
    }

    @Test
    @DisplayName("SRQ-22 SRQ-23 ECS-05: with srq_ep_pz_difference_supported EPs of one SRQ may be in different PZs and"
            + " share a recv EVD or not; each gets its messages")
    void differentPzsAndEvds() {
        try (SrqFixture f = new SrqFixture()) {
            assertTrue(f.serverIa.query(0, ProviderAttr.FIELD_ALL).providerAttr().srqEpPzDifferenceSupported());
            ProtectionZone pz2 = ProtectionZone.create(f.serverIa);
            EventDispatcher shared = f.serverDtoEvd(64);
            SrqFixture.Conn a = f.connect(shared);
            Endpoint other = Endpoint.createWithSrq(f.serverIa, pz2, shared, f.serverDtoEvd(8),
                    EventDispatcher.create(f.serverIa, 4, null, EvdFlags.CONNECTION), f.srq, SrqFixture.attr());
            EpParam op = other.query(EpParam.FIELD_ALL);
            SrqFixture.Conn b = f.connect(other, shared, op.requestEvdHandle(), op.connectEvdHandle());
            SrqFixture.Conn c = f.connect();
            postBuffers(f, 3);
            f.sendAndWait(a, 1, 0, 1);
            f.sendAndWait(b, 2, 0, 2);
            f.sendAndWait(c, 3, 0, 3);
            Map<Endpoint, Long> lengths = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                DatEvent e = DataPath.next(shared);
                assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                lengths.put(e.ep(), e.transferredLength());
            }
            assertEquals(Map.of(a.server, 1L, b.server, 2L), lengths);
            DatEvent e = DataPath.next(c.serverRecv);
            assertSame(c.server, e.ep());
            assertEquals(3, e.transferredLength());
            assertSame(pz2, other.query(EpParam.FIELD_PZ_HANDLE).pzHandle());
        }
    }
}
