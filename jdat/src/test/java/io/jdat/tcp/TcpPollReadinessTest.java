package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.DatEvent;
import io.jdat.testing.ManyConnections;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A consumer's poll on a {@code tcp} IA with many connections visits only the ready ones (issue 18): an empty
 * {@code dat_evd_dequeue} asks the selector once and reads no socket (it read every connection's socket before,
 * one system call each: 5 ms at 1024 connections), and what arrives on any connection is still received by the
 * polling consumer. Counted with {@link TcpProgress#consumerVisits}, not timed.
 */
class TcpPollReadinessTest {
    private static final int N = 16;

    @BeforeAll
    static void register() {
        TcpTesting.register();
    }

    @Test
    @DisplayName("EVQ-01, SND-01: with 16 idle connections an empty dat_evd_dequeue visits none; a Send on each arrives")
    void emptyPollVisitsNoConnection() {
        assertTrue(N > TcpProgress.SCAN_MAX);
        try (ManyConnections m = new ManyConnections(TcpTesting.LO, N)) {
            // one Send on every connection, received by a consumer that only polls (dat_evd_dequeue)
            m.sendEach();
            m.receiveEach(30);
            // every connection idle now: an empty poll reads no socket
            DatEvent e = new DatEvent();
            long before = TcpProgress.consumerVisits;
            for (int k = 0; k < 1000; k++) {
                assertFalse(m.cdto.dequeue(e), "an event on an idle IA: " + e);
            }
            assertEquals(0, TcpProgress.consumerVisits - before,
                    "connections visited by 1000 empty polls of an IA with " + N + " idle connections");
            m.sendEach(); // and the next round arrives as well
            m.receiveEach(30);
        }
    }
}
