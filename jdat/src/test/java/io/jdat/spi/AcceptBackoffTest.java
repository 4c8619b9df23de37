package io.jdat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link AcceptBackoff}: the policy of a listener's accept loop under failures (issue 14 item 3). */
class AcceptBackoffTest {
    /** Records what is logged. */
    private static final class Recorder implements System.Logger {
        final List<String> records = new ArrayList<>();

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            records.add(level + " " + msg);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            records.add(level + " " + format);
        }
    }

    /** Records the reports to the service point. */
    private static final class Handler implements IncomingHandler {
        final List<String> reports = new ArrayList<>();

        @Override
        public boolean onRequest(IncomingRequest request) {
            return false;
        }

        @Override
        public void acceptFailing(Throwable cause, boolean stopped) {
            reports.add((stopped ? "stopped " : "failing ") + cause.getMessage());
        }
    }

    @Test
    @DisplayName("Failures back off 10, 20, 40 ... ms; the first is a WARNING; after 1 s of failing the consumer is"
            + " told once (ERROR); a success ends the episode (INFO) and the next episode is reported again")
    void episodes() {
        Recorder log = new Recorder();
        Handler h = new Handler();
        AcceptBackoff b = new AcceptBackoff(log, "listener", h);
        long start = System.nanoTime();
        b.failed(new IOException("Too many open files"));
        b.failed(new IOException("Too many open files"));
        b.failed(new IOException("Too many open files"));
        long threeMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(threeMs >= 10 + 20 + 40, "three back-offs took " + threeMs + " ms");
        assertEquals(List.of(), h.reports, "told before the failure persisted");
        while (h.reports.isEmpty()) {
            b.failed(new IOException("Too many open files"));
            assertTrue(System.nanoTime() - start < 5_000_000_000L, "no report within 5 s");
        }
        long reportedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(reportedMs >= AcceptBackoff.PERSISTENT_MILLIS, "told after " + reportedMs + " ms");
        b.failed(new IOException("Too many open files"));
        assertEquals(List.of("failing Too many open files"), h.reports, "told once per episode");
        b.accepted();
        assertEquals(3, log.records.size(), log.records.toString());
        assertTrue(log.records.get(0).startsWith("WARNING listener: accept failed"), log.records.toString());
        assertTrue(log.records.get(1).startsWith("ERROR listener: accept has failed"), log.records.toString());
        assertTrue(log.records.get(2).startsWith("INFO listener: accepting again"), log.records.toString());
        long again = System.nanoTime();
        b.failed(new IOException("No buffer space available"));
        assertTrue((System.nanoTime() - again) / 1_000_000 < 500, "the back-off starts again at 10 ms");
        b.stopped(new IOException("closed under it"));
        assertEquals(List.of("failing Too many open files", "stopped closed under it"), h.reports);
    }

    @Test
    @DisplayName("close() ends a back-off sleep at once and silences reports")
    void closeWakesTheSleeper() throws Exception {
        Handler h = new Handler();
        AcceptBackoff b = new AcceptBackoff(new Recorder(), "listener", h);
        for (int i = 0; i < 7; i++) {
            b.failed(new IOException("EMFILE")); // the delay is now at its 1 s cap
        }
        Thread sleeper = Thread.ofPlatform().start(() -> b.failed(new IOException("EMFILE")));
        Thread.sleep(100);
        long t0 = System.nanoTime();
        b.close();
        sleeper.join(5_000);
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 500, "close did not wake the back-off");
        b.stopped(new IOException("after close"));
        assertTrue(h.reports.stream().noneMatch(r -> r.startsWith("stopped")), h.reports.toString());
    }
}
