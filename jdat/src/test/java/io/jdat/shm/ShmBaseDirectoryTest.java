package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 item 2: a squatted default base directory does not block an IA given {@code dir=}, the open without
 * {@code dir=} fails with the exact {@code DatException} naming the directory and the fix, and a failed open
 * leaves no instance directory behind (also under a low descriptor limit, where an open fails at each of its
 * steps in turn). Each case runs in a child JVM, whose default base (the system property
 * {@value ShmFiles#BASE_DIRECTORY_PROPERTY}) the test squats: the real {@code /dev/shm/jdat-shm-<uid>} is
 * shared with every other shm user of the host. Conformance: IAO-08 (dat_ia_open returns
 * INSUFFICIENT_RESOURCES or INVALID_PARAMETER), IAO-01 (many concurrent opens), IAC-07 (close leaks nothing).
 */
class ShmBaseDirectoryTest {
    private static final Duration WAIT = Duration.ofMinutes(3);
    private static final Pattern SUMMARY = Pattern.compile("(?m)^SUMMARY found=(\\d+) succeeded=(\\d+) failed=(\\d+)");

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    @DisplayName("a default base with group/other permissions: dir= still works, the default open names the fix")
    void looseDefaultBase() throws Exception {
        Path squatted = Files.createDirectory(tmp.resolve("squatted"));
        Files.setPosixFilePermissions(squatted, PosixFilePermissions.fromString("rwxrwxrwx"));
        runChecks(squatted);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    @DisplayName("a default base owned by another user: dir= still works, the default open names the fix")
    void foreignDefaultBase() throws Exception {
        Assumptions.assumeTrue(ShmFiles.currentUid() == 0, "only root can give a directory to another user"
                + " (ShmUnprivilegedTest runs this class as a non-root user with the root-owned case covered by"
                + " ShmFilesTest)");
        Path squatted = Files.createDirectory(tmp.resolve("squatted"));
        Files.setPosixFilePermissions(squatted, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(squatted, "unix:uid", 65534);
        runChecks(squatted);
    }

    private void runChecks(Path squatted) throws Exception {
        Path own = Files.createDirectory(tmp.resolve("o"));
        Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwx------"));
        try (ChildJava child = ChildJava.start("squatted", List.of(),
                List.of("--enable-native-access=ALL-UNNAMED", "-D" + ShmFiles.BASE_DIRECTORY_PROPERTY + "=" + squatted,
                        "-Djdat.test.ownShmDir=" + own),
                io.jdat.testing.net.ChildJvm.classPath(), Map.of(), ShmSuiteMain.class.getName(),
                List.of(ShmSquattedBaseChecks.class.getName()))) {
            int exit = child.waitFor(WAIT);
            String out = child.output();
            Matcher m = SUMMARY.matcher(out);
            assertTrue(m.find(), "no summary:\n" + out);
            assertEquals("2", m.group(2), "both checks pass:\n" + out);
            assertEquals(0, exit, out);
        }
        try (var s = Files.list(squatted)) {
            assertEquals(0, s.count(), "nothing was created in the squatted directory");
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    @DisplayName("ulimit -n 128, ulimit -l 0: every refused open is DAT_INSUFFICIENT_RESOURCES and leaves nothing")
    void refusedOpensLeaveNothingUnderALowDescriptorLimit() throws Exception {
        Path base = tmp.resolve("b");
        try (ChildJava child = ChildJava.start("low-fd", List.of("sh", "-c",
                        "ulimit -n 128 && ulimit -l 0 && exec \"$@\"", "sh"),
                List.of("--enable-native-access=ALL-UNNAMED", "-D" + ShmFiles.BASE_DIRECTORY_PROPERTY + "=" + base),
                io.jdat.testing.net.ChildJvm.classPath(), Map.of(), ShmDescriptorLimitMain.class.getName(),
                List.of())) {
            String result = child.awaitLine("RESULT ", WAIT);
            assertTrue(result.startsWith("RESULT ok "), child.output());
            Matcher m = Pattern.compile("refusals=(\\d+)").matcher(result);
            assertTrue(m.find() && Integer.parseInt(m.group(1)) >= 2, "opens were refused at several steps: "
                    + result);
            assertEquals(0, child.waitFor(WAIT));
        }
    }
}
