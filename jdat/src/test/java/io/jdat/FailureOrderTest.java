package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.testing.Pair;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Once a request of one direction fails, every later one of that direction fails too (§7.5). */
class FailureOrderTest {
    @Test
    @DisplayName("DSC-05 RWR-09: after a remote access error, the next send posted at once is flushed, never delivered")
    void laterRequestsFailAfterOne() {
        try (Pair p = new Pair().connect()) {
            p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 64)}, 1, 0);
            LmrTriplet[] src = {p.client.lmr.triplet(0, 8)};
            RmrTriplet bad = new RmrTriplet(p.server.lmr.rmrContext() ^ 0x1, p.server.lmr.registeredAddress(), 8);
            p.client.ep.postRdmaWrite(1, src, 10, bad, 0);
            try {
                p.client.ep.postSend(1, src, 11, 0); // posted before or after the break lands: must not succeed
            } catch (DatException e) {
                throw new AssertionError("a post in CONNECTED or DISCONNECTED is accepted", e);
            }
            DatEvent first = p.client.next(p.client.reqEvd);
            assertEquals(10, first.userCookie());
            assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, first.status());
            DatEvent second = p.client.next(p.client.reqEvd);
            assertEquals(11, second.userCookie());
            assertEquals(DtoCompletionStatus.ERR_FLUSHED, second.status(), "the send after the failure");
            p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            DatEvent recv = p.server.next(p.server.recvEvd);
            assertEquals(DtoCompletionStatus.ERR_FLUSHED, recv.status(), "the server's receive got no message");
        }
    }
}
