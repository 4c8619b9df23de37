package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DatException;
import io.jdat.DtoCompletionStatus;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Send/answer exchanges on many {@code shm} connections that went cold, polled by one consumer thread the way
 * {@code jdat-bench/scale.sh} does (two request DTOs per EP, a Send reposted on its answer): with the periodic full
 * look switched off ({@link ShmProgress#fullLookNanos}), every connection must go on making round trips on the
 * ready board's marks alone (a connection left cold with its consumer-sleeping flag clear starved), and when an
 * answer arrives no earlier Send of that EP may still be outstanding (the client's request and receive
 * completions share one EVD, so their order is checked; the scale benchmark's repost found its request queue of
 * depth 2 full). Counted, not timed: the 20 s limit only ends a hang.
 */
@ExtendWith(ShmTesting.KeepConnectionFiles.class)
class ShmColdExchangeTest {
    private static final int N = 16;
    private static final int ROUNDS = 2_000;
    private long savedFullLook;

    @BeforeEach
    void noFullLook() {
        savedFullLook = ShmProgress.fullLookNanos;
        ShmProgress.fullLookNanos = Long.MAX_VALUE / 2; // only marks make a cold connection be looked at
    }

    @AfterEach
    void restore() {
        ShmProgress.fullLookNanos = savedFullLook;
    }

    @Test
    @DisplayName("SND-01: 16 connections gone cold, full look off: each makes 2000 Send/answer round trips on the"
            + " board's marks, and a Send completes before or with its answer (two request DTOs per EP)")
    void coldConnectionsKeepExchanging() throws Exception {
        try (Arena arena = Arena.ofShared(); ManyEpSide server = new ManyEpSide(arena, N, false);
                ManyEpSide client = new ManyEpSide(arena, N, true)) {
            ManyEpSide.connect(server, client);
            for (int i = 0; i < N; i++) {
                client.eps[i].postRecv(1, client.recv[i], i, CompletionFlags.DEFAULT);
                server.eps[i].postRecv(1, server.recv[i], i, CompletionFlags.DEFAULT);
            }
            for (int cycle = 0; cycle < 3; cycle++) {
                Thread.sleep(300); // every connection goes cold and both progress threads block
                DatEvent idle = new DatEvent();
                for (int k = 0; k < 100_000; k++) {
                    assertTrue(!client.recvEvd.dequeue(idle), "nothing sent yet");
                }
                long[] counts = new long[N];
                int[] sendsPending = new int[N];
                for (int i = 0; i < N; i++) {
                    client.eps[i].postSend(1, client.send[i], N + i, CompletionFlags.DEFAULT);
                    sendsPending[i]++;
                }
                DatEvent e = new DatEvent();
                long deadline = System.nanoTime() + 20_000_000_000L;
                int done = 0;
                int spins = 0;
                try {
                    while (done < N) {
                        if (System.nanoTime() > deadline) {
                            StringBuilder sb = new StringBuilder();
                            for (int i = 0; i < N; i++) {
                                sb.append(counts[i]).append(' ');
                            }
                            fail("round trips per connection after 20 s, with no full look (cycle " + cycle + "): "
                                    + sb);
                        }
                        while (server.recvEvd.dequeue(e)) {
                            int i = received(e);
                            server.eps[i].postRecv(1, server.recv[i], i, CompletionFlags.DEFAULT);
                            server.eps[i].postSend(1, server.send[i], i, CompletionFlags.SUPPRESS);
                        }
                        while (client.recvEvd.dequeue(e)) { // the client's receives and its Sends' completions
                            assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "client " + e);
                            if (e.userCookie() >= N) { // a Send's completion
                                int i = (int) e.userCookie() - N;
                                assertTrue(sendsPending[i] > 0, "a Send completion with none outstanding on EP " + i);
                                sendsPending[i]--;
                                continue;
                            }
                            int i = (int) e.userCookie();
                            // the Send this answers may complete with it (the peer may publish its consumption
                            // after it answered); an earlier one must have completed before it
                            assertTrue(sendsPending[i] <= 1, "EP " + i + ": an answer arrived before the completion"
                                    + " of an earlier Send (round " + counts[i] + ", cycle " + cycle + ")");
                            client.eps[i].postRecv(1, client.recv[i], i, CompletionFlags.DEFAULT);
                            if (++counts[i] == ROUNDS) {
                                done++;
                            } else {
                                client.eps[i].postSend(1, client.send[i], N + i, CompletionFlags.DEFAULT);
                                sendsPending[i]++;
                            }
                        }
                        if ((++spins & 1023) == 0 && server.reqEvd.dequeue(e)) {
                            fail("a Send failed: " + e);
                        }
                    }
                } catch (DatException x) {
                    fail("a Send found its request queue full (a completion came after the answer): " + x, x);
                }
            }
        }
    }

    private static int received(DatEvent e) {
        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "receive " + e);
        return (int) e.userCookie();
    }
}
