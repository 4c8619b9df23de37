package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.assertPattern;
import static io.jdat.testing.DataPath.assertQueuedSilently;
import static io.jdat.testing.DataPath.assertUntouched;
import static io.jdat.testing.DataPath.attr;
import static io.jdat.testing.DataPath.bind;
import static io.jdat.testing.DataPath.checkDto;
import static io.jdat.testing.DataPath.dequeued;
import static io.jdat.testing.DataPath.disconnect;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectBroken;
import static io.jdat.testing.DataPath.expectDat;
import static io.jdat.testing.DataPath.fill;
import static io.jdat.testing.DataPath.iov;
import static io.jdat.testing.DataPath.next;
import static io.jdat.testing.DataPath.sentinel;
import static io.jdat.testing.DataPath.settle;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Completion flags of API.md §3.1 on the data path: UNSIGNALLED, SUPPRESS, SOLICITED_WAIT, BARRIER_FENCE, and
 * flushing in DISCONNECTED. "Queued silently" is checked with a 100 ms wait that must time out while
 * {@code nmore} counts the queued events; {@link io.jdat.testing.DataPath#settle} first makes mem execute
 * every post before it returns, so the events are already there.
 */
class CompletionFlagsTest {
    private static final int U = CompletionFlags.UNSIGNALLED;

    @Test
    @DisplayName("SND-04 RDR-07 RWR-03 RMB-10 RDR-08 SND-03: with request_completion_flags UNSIGNALLED (dedicated"
            + " request EVD), UNSIGNALLED send, read, write and bind completions are queued but wake no waiter;"
            + " dequeue returns them in order; a DEFAULT post then notifies")
    void unsignalledRequests() {
        try (Pair p = settle(new Pair(attr().requestCompletionFlags(U), 64).connect())) {
            sentinel(p.server.buf);
            sentinel(p.client.buf);
            fill(p.client.buf, 0, 64, 60);
            fill(p.server.buf, 4096, 64, 61);
            p.server.ep.postRecv(1, iov(p.server.lmr, 8192, 64), 100, CompletionFlags.DEFAULT);
            Rmr r = Rmr.create(p.client.pz);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 16), 1, U);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 16, 32), 2, p.server.lmr.remoteTriplet(1024, 32), U);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 2048, 64), 3, p.server.lmr.remoteTriplet(4096, 64), U);
            r.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, p.client.ep, 4, U | CompletionFlags.BARRIER_FENCE);
            assertQueuedSilently(p.client.reqEvd, 4);
            checkDto(dequeued(p.client.reqEvd), DtoCompletionStatus.SUCCESS, 1);
            checkDto(dequeued(p.client.reqEvd), DtoCompletionStatus.SUCCESS, 2);
            DatEvent read = dequeued(p.client.reqEvd);
            checkDto(read, DtoCompletionStatus.SUCCESS, 3);
            assertEquals(64, read.transferredLength());
            DatEvent b = dequeued(p.client.reqEvd);
            assertEquals(EventNumber.RMR_BIND_COMPLETION_EVENT, b.eventNumber());
            assertEquals(4, b.userCookie());
            assertSame(r, b.rmr());
            assertEmpty(p.client.reqEvd, "four completions");
            dtoOk(p.server.recvEvd, 100, 16);
            assertPattern(p.server.buf, 8192, 16, 60, 0, "unsignalled send");
            assertPattern(p.server.buf, 1024, 32, 60, 16, "unsignalled write");
            assertPattern(p.client.buf, 2048, 64, 61, 0, "unsignalled read");

            // one more unsignalled completion, then a DEFAULT one: the waiter wakes and gets them in order
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 5, p.server.lmr.remoteTriplet(2000, 8), U);
            assertQueuedSilently(p.client.reqEvd, 1);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 8, 8), 6, p.server.lmr.remoteTriplet(2008, 8),
                    CompletionFlags.DEFAULT);
            DatEvent first = next(p.client.reqEvd);
            checkDto(first, DtoCompletionStatus.SUCCESS, 5);
            assertEquals(1, first.nmore());
            checkDto(dequeued(p.client.reqEvd), DtoCompletionStatus.SUCCESS, 6);
            assertPattern(p.server.buf, 2000, 16, 60, 0, "both writes");

            // SUPPRESS | UNSIGNALLED: no event at all
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 7, p.server.lmr.remoteTriplet(3000, 8),
                    U | CompletionFlags.SUPPRESS);
            assertQueuedSilently(p.client.reqEvd, 0);
            assertPattern(p.server.buf, 3000, 8, 60, 0, "suppressed unsignalled write");
        }
    }

    @Test
    @DisplayName("RDR-06 RWR-09 SND-04 RDR-10 SND-06 RMB-11: failed and flushed completions notify even when posted"
            + " UNSIGNALLED: a remote access error wakes the waiter, and after the break UNSIGNALLED posts are flushed"
            + " at once with a notifying DAT_DTO_ERR_FLUSHED")
    void unsignalledErrorsNotify() {
        try (Pair p = settle(new Pair(attr().requestCompletionFlags(U), 64).connect())) {
            sentinel(p.server.buf);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 1,
                    new RmrTriplet(p.server.lmr.rmrContext() ^ 0x40, p.server.lmr.registeredAddress(), 8), U);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_ACCESS, 1);
            expectBroken(p);
            assertUntouched(p.server.buf, 0, p.server.buf.byteSize(), "target memory");
            Rmr r = Rmr.create(p.client.pz);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 2, U | CompletionFlags.SUPPRESS);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 0, 8), 3, p.server.lmr.remoteTriplet(0, 8), U);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 4, p.server.lmr.remoteTriplet(0, 8), U);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 4);
            r.bind(p.client.lmr.triplet(0, 8), MemPriv.REMOTE_READ, p.client.ep, 5, U);
            bind(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 5);
            assertEmpty(p.client.reqEvd, "one completion per post");
        }
    }

    @Test
    @DisplayName("RCV-03 RCV-04 RCV-08: with recv_completion_flags UNSIGNALLED, a receive posted UNSIGNALLED completes"
            + " without waking the waiter, one posted DEFAULT notifies; a flushed UNSIGNALLED receive notifies")
    void unsignalledReceives() {
        try (Pair p = settle(new Pair(attr().recvCompletionFlags(U), 64).connect())) {
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 64, 62);
            p.server.ep.postRecv(1, iov(p.server.lmr, 1024, 64), 1, U);
            p.server.ep.postRecv(1, iov(p.server.lmr, 2048, 64), 2, CompletionFlags.DEFAULT);
            p.server.ep.postRecv(1, iov(p.server.lmr, 4096, 64), 3, U);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 20), 11, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 11, 20);
            assertQueuedSilently(p.server.recvEvd, 1);
            p.client.ep.postSend(1, iov(p.client.lmr, 20, 30), 12, CompletionFlags.DEFAULT);
            dtoOk(p.client.reqEvd, 12, 30);
            DatEvent first = next(p.server.recvEvd);
            checkDto(first, DtoCompletionStatus.SUCCESS, 1);
            assertEquals(20, first.transferredLength());
            DatEvent second = dequeued(p.server.recvEvd);
            checkDto(second, DtoCompletionStatus.SUCCESS, 2);
            assertEquals(30, second.transferredLength());
            assertPattern(p.server.buf, 1024, 20, 62, 0, "first message");
            assertPattern(p.server.buf, 2048, 30, 62, 20, "second message");
            // the third receive (UNSIGNALLED) is flushed by the disconnect: errors always notify
            disconnect(p);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            // in D, a new UNSIGNALLED receive is flushed at once, notifying
            p.server.ep.postRecv(1, iov(p.server.lmr, 8192, 64), 4, U);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 4);
            assertUntouched(p.server.buf, 4096, 64, "flushed receive");
        }
    }

    @Test
    @DisplayName("SND-10 RCV-04 RCV-03 EPC-26: with recv_completion_flags SOLICITED_WAIT, unsolicited receive"
            + " completions are queued without waking the waiter; a send with SOLICITED_WAIT wakes it; the EVD"
            + " reports CONFIG_SOLICITED; UNSIGNALLED receive posts are refused")
    void solicitedWait() {
        try (Pair p = settle(new Pair(attr().recvCompletionFlags(CompletionFlags.SOLICITED_WAIT), 64).connect())) {
            sentinel(p.server.buf);
            fill(p.client.buf, 0, 64, 63);
            assertEquals(EvdParam.STATE_CONFIG_SOLICITED,
                    p.server.recvEvd.query(EvdParam.FIELD_EVD_STATE).evdState() & EvdParam.STATE_CONFIG_MASK);
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG5,
                    () -> p.server.ep.postRecv(1, iov(p.server.lmr, 0, 8), 9, U));
            for (int i = 0; i < 4; i++) {
                p.server.ep.postRecv(1, iov(p.server.lmr, 1024 * (i + 1), 64), i + 1, CompletionFlags.DEFAULT);
            }
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 10), 11, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 10, 11), 12, CompletionFlags.BARRIER_FENCE);
            dtoOk(p.client.reqEvd, 11, 10);
            dtoOk(p.client.reqEvd, 12, 11);
            assertQueuedSilently(p.server.recvEvd, 2);
            p.client.ep.postSend(1, iov(p.client.lmr, 21, 12), 13, CompletionFlags.SOLICITED_WAIT);
            dtoOk(p.client.reqEvd, 13, 12);
            DatEvent first = next(p.server.recvEvd);
            checkDto(first, DtoCompletionStatus.SUCCESS, 1);
            assertEquals(2, first.nmore());
            checkDto(dequeued(p.server.recvEvd), DtoCompletionStatus.SUCCESS, 2);
            DatEvent third = dequeued(p.server.recvEvd);
            checkDto(third, DtoCompletionStatus.SUCCESS, 3);
            assertEquals(12, third.transferredLength());
            assertPattern(p.server.buf, 1024, 10, 63, 0, "message 1");
            assertPattern(p.server.buf, 2048, 11, 63, 10, "message 2");
            assertPattern(p.server.buf, 3072, 12, 63, 21, "message 3");

            // an unsolicited message that fails (longer than the buffer) notifies
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 65), 14, CompletionFlags.SUPPRESS);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 4);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_RESPONDER, 14);
            expectBroken(p);
        }
    }

    @Test
    @DisplayName("RDR-08 RWR-03 SND-03 RMB-07: SUPPRESS hides only successful completions of send, read, write and"
            + " bind; a failing SUPPRESS send is still reported; BARRIER_FENCE is accepted and a fenced write cannot"
            + " overtake the earlier read of the same bytes")
    void suppressAndFence() {
        try (Pair p = settle(new Pair().connect())) {
            sentinel(p.client.buf);
            fill(p.server.buf, 0, 64, 64);
            fill(p.client.buf, 4096, 64, 65);
            Rmr r = Rmr.create(p.client.pz);
            int s = CompletionFlags.SUPPRESS;
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 1024, 64), 1, p.server.lmr.remoteTriplet(0, 64), s);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 4096, 64), 2, p.server.lmr.remoteTriplet(0, 64),
                    s | CompletionFlags.BARRIER_FENCE);
            r.bind(p.client.lmr.triplet(0, 64), MemPriv.REMOTE_READ, p.client.ep, 3, s);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 2048, 64), 4, p.server.lmr.remoteTriplet(0, 64),
                    CompletionFlags.BARRIER_FENCE);
            dtoOk(p.client.reqEvd, 4, 64); // the first event is the only unsuppressed one
            assertEmpty(p.client.reqEvd, "suppressed successes");
            assertPattern(p.client.buf, 1024, 64, 64, 0, "first read sees the old bytes");
            assertPattern(p.client.buf, 2048, 64, 65, 0, "fenced read sees the written bytes");
            assertPattern(p.server.buf, 0, 64, 65, 0, "written bytes");

            p.server.ep.postRecv(1, iov(p.server.lmr, 8192, 16), 5, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, iov(p.client.lmr, 4096, 17), 6, s | CompletionFlags.SOLICITED_WAIT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_REMOTE_RESPONDER, 6);
            dto(p.server.recvEvd, DtoCompletionStatus.ERR_LOCAL_LENGTH, 5);
            expectBroken(p);
        }
    }

    @Test
    @DisplayName("RDR-10 SND-06 RWR-05 RCV-08 RMB-11: every post in DISCONNECTED returns SUCCESS and is flushed at"
            + " once with a notifying DAT_DTO_ERR_FLUSHED, whatever SUPPRESS or BARRIER_FENCE says")
    void flushedInDisconnected() {
        try (Pair p = new Pair().connect()) {
            disconnect(p);
            sentinel(p.client.buf);
            sentinel(p.server.buf);
            int sf = CompletionFlags.SUPPRESS | CompletionFlags.BARRIER_FENCE;
            Rmr r = Rmr.create(p.client.pz);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 1, sf | CompletionFlags.SOLICITED_WAIT);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 1);
            p.client.ep.postRdmaRead(1, iov(p.client.lmr, 0, 8), 2, p.server.lmr.remoteTriplet(0, 8), sf);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 2);
            p.client.ep.postRdmaWrite(1, iov(p.client.lmr, 0, 8), 3, p.server.lmr.remoteTriplet(0, 8), sf);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 3);
            r.bind(p.client.lmr.triplet(0, 8), MemPriv.REMOTE_READ, p.client.ep, 4, sf);
            bind(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 4);
            p.client.ep.postRecv(1, iov(p.client.lmr, 0, 8), 5, CompletionFlags.DEFAULT);
            dto(p.client.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 5);
            p.client.ep.postSend(0, null, 6, CompletionFlags.SUPPRESS);
            dto(p.client.reqEvd, DtoCompletionStatus.ERR_FLUSHED, 6);
            assertEmpty(p.client.reqEvd, "one flush per post");
            assertEmpty(p.client.recvEvd, "one flush per post");
            assertUntouched(p.client.buf, 0, p.client.buf.byteSize(), "local memory");
            assertUntouched(p.server.buf, 0, p.server.buf.byteSize(), "peer memory");
            assertTrue(p.client.ep.getStatus().requestIdle() && p.client.ep.getStatus().recvIdle(),
                    "nothing stays queued");
        }
    }
}
