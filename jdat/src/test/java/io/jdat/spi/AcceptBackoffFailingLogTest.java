package io.jdat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link AcceptBackoff} when logging itself fails (issue 18): with the descriptors exhausted, the first record of
 * java.util.logging threw {@code java.lang.Error} (its formatter could not open the time-zone rules), which
 * ended the tcp listener's accept loop; every later connect was refused.
 */
class AcceptBackoffFailingLogTest {
    /** A logger whose every record fails as the JDK's did at EMFILE. */
    private static final class FailingLogger implements System.Logger {
        int attempts;

        @Override
        public String getName() {
            return "failing";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            fail();
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            fail();
        }

        /** The first record fails as the static initializer did, later ones as the class left uninitialized. */
        private void fail() {
            if (attempts++ == 0) {
                throw new Error(new java.io.FileNotFoundException("lib/tzdb.dat (Too many open files)"));
            }
            throw new NoClassDefFoundError("Could not initialize class java.time.zone.ZoneRulesProvider");
        }
    }

    @Test
    @DisplayName("A failing logger does not end the accept loop: failed, accepted and stopped return, and the"
            + " consumer is still told")
    void failingLogIsDropped() {
        FailingLogger log = new FailingLogger();
        List<String> reports = new ArrayList<>();
        IncomingHandler h = new IncomingHandler() {
            @Override
            public boolean onRequest(IncomingRequest request) {
                return false;
            }

            @Override
            public void acceptFailing(Throwable cause, boolean stopped) {
                reports.add(stopped ? "stopped" : "failing");
            }
        };
        AcceptBackoff b = new AcceptBackoff(log, "listener", h);
        b.failed(new IOException("Too many open files")); // threw NoClassDefFoundError before
        b.accepted();
        b.stopped(new IOException("closed under it"));
        assertEquals(3, log.attempts);
        assertEquals(List.of("stopped"), reports);
    }
}
