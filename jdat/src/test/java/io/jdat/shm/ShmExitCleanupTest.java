package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 14 item 10: Ctrl-C (SIGINT) or SIGTERM on an {@code shm} server removes its directories at once (a
 * JVM shutdown hook), quickly, and nothing of another live process in the same base. The server is a child JVM
 * ({@link ShmExitPeerMain}) with a connection, a listener and shared memory; a live instance of this JVM sits
 * in the same base directory.
 */
class ShmExitCleanupTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Pattern READY = Pattern.compile("READY ia=(\\S+) server=(\\S+) memory=(\\S+)");
    /** SIGINT's bit in a /proc/PID/status signal mask. */
    private static final long SIGINT_BIT = 1L << (2 - 1);

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "SIG{0}")
    @CsvSource({"TERM, 15", "INT, 2"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aSignalledServerLeavesNoDirectoryAndSparesOtherProcesses(String signal, int number) throws Exception {
        Path base = tmp.resolve("b");
        ShmFiles files = ShmFiles.open(base);
        try (ShmFiles.Instance other = files.createInstance()) {    // another live process's instance, for the child
            try (FileChannel ch = other.createFile("ring", 4096)) {
                assertEquals(4096, ch.size());
            }
            List<String> prefix = ChildJava.defaultSignals();
            try (ChildJava child = ChildJava.start("shm-server-" + signal, prefix,
                    List.of("--enable-native-access=ALL-UNNAMED", "-D" + ShmFiles.BASE_DIRECTORY_PROPERTY + "=" + base),
                    io.jdat.testing.net.ChildJvm.classPath(), Map.of(), ShmExitPeerMain.class.getName(), List.of())) {
                long ignored = Long.parseUnsignedLong(child.awaitLine("SIGIGN ", WAIT).substring(7).strip(), 16);
                Assumptions.assumeFalse(signal.equals("INT") && (ignored & SIGINT_BIT) != 0,
                        "the child inherited an ignored SIGINT (no 'env --default-signal' here): its JVM cannot"
                                + " handle Ctrl-C, so there is nothing to test");
                Matcher m = READY.matcher(child.awaitLine("READY ", WAIT));
                assertTrue(m.find());
                List<Path> dirs = new ArrayList<>();
                for (int g = 1; g <= 3; g++) {
                    Path d = Path.of(m.group(g));
                    assertEquals(base, d.getParent());
                    assertTrue(Files.isDirectory(d), d.toString());
                    dirs.add(d);
                }
                child.signal(signal);
                long start = System.nanoTime();
                int exit = child.waitFor(WAIT);
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertEquals(128 + number, exit, "ended by SIG" + signal + ", hooks run; output:\n" + child.output());
                assertTrue(millis < 30_000, "exit took " + millis + " ms");
                for (Path d : dirs) {
                    assertFalse(Files.exists(d), d + " is left after SIG" + signal);
                }
                assertTrue(Files.exists(other.path("ring")), "another live process's files stay");
                try (var s = Files.list(base)) {
                    assertEquals(List.of(other.directory()), s.toList(), "only the live instance remains");
                }
            }
        }
    }
}
