package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.Pair;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The connection-management deadlines of an accepted {@code shm} connection leave the timer's queue when they
 * are cancelled (issue 18): kept until their time (5 and 10 s), every connection of a burst woke the timer thread
 * twice seconds later, 1% of a core of idle CPU after 1024 connections. Counted, not timed.
 */
class ShmTimerTest {
    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    @Test
    @DisplayName("CON-01: after a connection is established, none of its handshake deadlines is still queued")
    void cancelledDeadlinesLeaveTheQueue() {
        ScheduledThreadPoolExecutor timer = (ScheduledThreadPoolExecutor) ShmTransport.TIMER;
        int before = timer.getQueue().size();
        try (Pair p = new Pair(ShmTesting.SHM, null, 16).connect()) {
            int after = timer.getQueue().size();
            assertTrue(after <= before, "deadlines queued: " + before + " before the connection, " + after
                    + " once it is established");
        }
    }
}
