package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.MemType;
import io.jdat.RegionDescription;
import io.jdat.RmrTriplet;
import io.jdat.testing.Pair;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** STags that outlive their registration, and a progress thread that idles without a core. */
class TcpStagAndIdleTest {
    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    @DisplayName("LMF-04 over tcp: an STag of a freed and re-registered region is refused at the target; the reader gets REMOTE_ACCESS, both sides BROKEN")
    void staleStagAfterReRegistration() {
        try (Pair p = new Pair(TcpTesting.LO, null, 64).connect()) {
            MemorySegment target = p.server.arena.allocate(4096, 256);
            target.fill((byte) 0x5A);
            Lmr first = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(target), 4096, p.server.pz,
                    MemPriv.ALL);
            RmrTriplet stale = first.remoteTriplet(0, 64);
            first.free();
            Lmr second = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(target), 4096, p.server.pz,
                    MemPriv.ALL);
            assertNotEquals(stale.rmrContext(), second.rmrContext(), "a re-registration gets a new key");
            // The old STag names nothing now: the read fails at the target's check, before any byte moves.
            p.client.ep.postRdmaRead(1, new LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 1L, stale,
                    CompletionFlags.DEFAULT);
            DatEvent e = p.client.next(p.client.reqEvd);
            assertEquals(DtoCompletionStatus.ERR_REMOTE_ACCESS, e.status());
            p.client.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @Test
    @DisplayName("tcp progress: an idle connection costs no CPU (the progress thread blocks in select)")
    void idleProgressThreadBurnsNoCpu() throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (Pair p = new Pair(TcpTesting.LO, null, 64).connect()) {
            // A little traffic first, so the connection is registered with the selector.
            p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(0, 64)}, 1L, CompletionFlags.DEFAULT);
            p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 2L, CompletionFlags.DEFAULT);
            p.server.expectDto(p.server.recvEvd, 1L);
            p.client.expectDto(p.client.reqEvd, 2L);
            Thread progress = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("jdat-tcp-" + TcpTesting.LO)).findFirst().orElse(null);
            assertNotNull(progress, "no progress thread named jdat-tcp-" + TcpTesting.LO);
            Thread.sleep(300); // past the poller grace period
            long before = mx.getThreadCpuTime(progress.threadId());
            Thread.sleep(1000);
            long used = mx.getThreadCpuTime(progress.threadId()) - before;
            assertTrue(used < 100_000_000L, "an idle progress thread used " + used / 1_000_000 + " ms of CPU in 1 s");
        }
    }
}
