package io.jdat.tcp;

import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A Send that arrives before its receive is posted waits (receiver not ready) with the socket's read readiness
 * off. When the consumer posted the buffer while the receive path was just entering that wait, recvPosted did
 * not see the stall, the consumer's own poll then placed the message, and read readiness stayed off: the next
 * message sat unread in the socket while the consumer waited parked (found by the dtest exchange, whose ping
 * races the peer's receives: about 1 run in 100 hung).
 */
class TcpRnrResumeTest {
    private static final int ROUNDS = 3000;
    private static final int WAIT = 5_000_000;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    @DisplayName("RCV-02 SND-02: 3000 Sends racing the posting of their receives, every tenth after the receiver"
            + " parked: every message arrives, none waits for a timer")
    void sendsRacingTheirReceivesAllArrive() throws Exception {
        try (Pair p = new Pair(TcpTesting.LO, DataPath.attr(), 64).connect()) {
            CyclicBarrier go = new CyclicBarrier(2);
            Thread sender = Thread.ofPlatform().name("sender").start(() -> {
                DatEvent e = new DatEvent();
                try {
                    for (int r = 0; r < ROUNDS; r++) {
                        go.await(10, TimeUnit.SECONDS);
                        if (r % 10 == 9) {
                            LockSupport.parkNanos(2_000_000); // the receiver is parked in dat_evd_wait by now
                        } else {
                            // sweep the instant of arrival across the receiver's post (0 to ~40 µs)
                            long until = System.nanoTime() + ThreadLocalRandom.current().nextInt(40_000);
                            while (System.nanoTime() < until) {
                                Thread.onSpinWait();
                            }
                        }
                        p.client.ep.postSend(1, iov(p.client.lmr, 0, 64), r, CompletionFlags.DEFAULT);
                        if (!p.client.reqEvd.waitFor(WAIT, 1, e) || e.status() != DtoCompletionStatus.SUCCESS) {
                            throw new AssertionError("send " + r + ": " + e);
                        }
                    }
                } catch (Exception ex) {
                    throw new AssertionError(ex);
                }
            });
            DatEvent e = new DatEvent();
            // Liveness, not speed: healthy, the rounds take about a second; with read readiness left off, each
            // parked round waited for a timer (a 3000-round run took 460 s).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            try {
                for (int r = 0; r < ROUNDS; r++) {
                    assertTrue(System.nanoTime() < deadline, "round " + r + " of " + ROUNDS + " after 30 s: messages"
                            + " wait for a timer instead of the socket");
                    go.await(10, TimeUnit.SECONDS);
                    p.server.ep.postRecv(1, iov(p.server.lmr, 0, 64), r, CompletionFlags.DEFAULT);
                    assertTrue(p.server.recvEvd.waitFor(WAIT, 1, e), "message " + r + " did not arrive within 5 s");
                    assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "message " + r);
                    assertEquals(r, e.userCookie());
                }
            } finally {
                sender.join(10_000);
            }
        }
    }
}
