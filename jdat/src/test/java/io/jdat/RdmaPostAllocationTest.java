package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * RDR-16 on the mem transport, where a request whose peer is ready completes before its post returns, so that
 * 2 000 posts in a row neither fill the request queue nor need reaping (the rest of the RDMA tests run on every
 * transport: io.jdat.conformance.RdmaTest).
 */
class RdmaPostAllocationTest {
    @Test
    @DisplayName("RDR-16: posting RDMA Reads and Writes allocates nothing on the posting thread")
    void postingAllocatesNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Pair p = new Pair().connect()) {
            LmrTriplet[] local = iov(p.client.lmr, 0, 32, 64, 32);
            RmrTriplet remote = p.server.lmr.remoteTriplet(1024, 64);
            for (int i = 0; i < 20_000; i++) { // warm up
                p.client.ep.postRdmaWrite(2, local, i, remote, CompletionFlags.SUPPRESS);
                p.client.ep.postRdmaRead(2, local, i, remote, CompletionFlags.SUPPRESS);
            }
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 5 && best > 0; round++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 1000; i++) {
                    p.client.ep.postRdmaWrite(2, local, i, remote, CompletionFlags.SUPPRESS);
                    p.client.ep.postRdmaRead(2, local, i, remote, CompletionFlags.SUPPRESS);
                }
                best = Math.min(best, mx.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(best < 2000, "2000 posts allocated " + best + " bytes");
            assertEmpty(p.client.reqEvd, "suppressed successes");
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
        }
    }
}
