package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14 item 1: the {@code shm} suite as an unprivileged user. Every test of this build runs as whoever runs
 * the build; CI runs it as root, where an ownership or permission mistake never shows (the provider believed
 * every process was root, and no non-root user could use shm at all). So, when this JVM is root, this test runs
 * the {@code shm} test classes once more in a child JVM as the user {@code nobody} (created with
 * {@code useradd} as {@value #FALLBACK_USER} where there is no {@code nobody}), through
 * {@code setpriv --reuid --regid --clear-groups --no-new-privs}: connect, data both ways (every size, with and
 * without cross-memory attach), two processes, hostile peers, the file layout, the squatted base and the exit
 * cleanup. The child gets its own copy of the test classpath (root's Maven repository is not readable by
 * others), its own {@code HOME} and {@code java.io.tmpdir}; it uses the real default base
 * {@code /dev/shm/jdat-shm-<its uid>}.
 *
 * <p>When this JVM is not root, the whole suite already runs unprivileged: the test is skipped, saying so.
 */
class ShmUnprivilegedTest {
    static final String FALLBACK_USER = "jdat-unprivileged";
    /** The classes the child runs (as names: some are package-private). */
    private static final List<Class<?>> SUITE = List.of(ShmFilesTest.class, ShmSmokeTest.class,
            ShmConnectTest.class, io.jdat.conformance.DataPathTest.class, ShmCrossProcessTest.class, ShmHostileTest.class,
            ShmMemoryTest.class, ShmBaseDirectoryTest.class, ShmExitCleanupTest.class);
    private static final Pattern SUMMARY = Pattern.compile(
            "(?m)^SUMMARY found=(\\d+) succeeded=(\\d+) failed=(\\d+) skipped=(\\d+) aborted=(\\d+)");

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    @DisplayName("as root: the shm suite passes again as an unprivileged user (setpriv), in its default base")
    void shmSuiteRunsAsAnUnprivilegedUser() throws Exception {
        long uid = ShmFiles.currentUid();
        Assumptions.assumeTrue(uid == 0, "not root (uid " + uid + "): every shm test of this run already ran"
                + " unprivileged, so the setpriv re-run is not needed");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) || onPath("setpriv"),
                "setpriv (util-linux) is missing: cannot run the shm suite as another user");
        String user = unprivilegedUser();
        long userId = Long.parseLong(run("id", "-u", user));
        long groupId = Long.parseLong(run("id", "-g", user));
        assertTrue(userId != 0, user + " is root");

        // short names: the child's sockets live under its java.io.tmpdir, and a socket path has 108 bytes at most
        Path work = Files.createDirectory(Path.of("/tmp", "jdat-u" + Long.toHexString(ProcessHandle.current().pid())
                + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 16))));
        try {
            Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
            String classpath = readableCopy(work.resolve("cp"));
            Path home = owned(work.resolve("h"), userId, groupId);
            Path tmp = owned(work.resolve("t"), userId, groupId);
            // a directory of root's for ShmFilesTest.refusesAnotherUsersDirectoryNamingTheFix
            Path foreign = Files.createDirectory(work.resolve("roots"));
            Files.setPosixFilePermissions(foreign, PosixFilePermissions.fromString("rwx------"));

            List<String> prefix = List.of("setpriv", "--reuid=" + userId, "--regid=" + groupId, "--clear-groups",
                    "--no-new-privs");
            List<String> jvm = List.of("-Xss1m", "-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED",
                    "-Djava.io.tmpdir=" + tmp, "-Duser.home=" + home, "-D" + io.jdat.conformance.Transports.ONLY + "=shm", "-Djdat.test.foreignShmDir=" + foreign);
            List<String> args = SUITE.stream().map(Class::getName).toList();
            try (ChildJava child = ChildJava.start("unprivileged", home, prefix, jvm, classpath,
                    Map.of("HOME", home.toString(), "TMPDIR", tmp.toString(), "USER", user, "LOGNAME", user),
                    ShmSuiteMain.class.getName(), args)) {
                int exit = child.waitFor(Duration.ofMinutes(18));
                String out = child.output();
                assertTrue(Pattern.compile("(?m)^UID " + userId + "$").matcher(out).find(),
                        "the child's ShmFiles.currentUid() is "
                        + user + "'s uid " + userId + ":\n" + out);
                Matcher m = SUMMARY.matcher(out);
                assertTrue(m.find(), "no summary from the child:\n" + out);
                assertEquals("0", m.group(3), "failures as " + user + ":\n" + out);
                assertTrue(Long.parseLong(m.group(2)) >= 50, "too few tests passed as " + user + ":\n" + out);
                assertEquals(0, exit, out);
            }
        } finally {
            deleteTree(work);
        }
    }

    /** {@code nobody} if the system has it, else {@value #FALLBACK_USER} (created with useradd if missing). */
    private static String unprivilegedUser() throws Exception {
        for (String candidate : List.of("nobody", FALLBACK_USER)) {
            Process p = new ProcessBuilder("id", "-u", candidate).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() == 0) {
                return candidate;
            }
        }
        run("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FALLBACK_USER);
        return FALLBACK_USER;
    }

    /**
     * Copies every entry of this JVM's classpath under {@code dir}, readable by everyone (directories 0755,
     * files 0644), and returns the copy's classpath.
     */
    private static String readableCopy(Path dir) throws IOException {
        Files.createDirectory(dir);
        List<String> entries = new ArrayList<>();
        int i = 0;
        for (String e : io.jdat.testing.net.ChildJvm.classPath().split(File.pathSeparator)) {
            Path src = Path.of(e);
            if (!Files.exists(src)) {
                continue;
            }
            Path dst = dir.resolve((i++) + "-" + src.getFileName());
            if (Files.isDirectory(src)) {
                try (Stream<Path> tree = Files.walk(src)) {
                    for (Path p : (Iterable<Path>) tree::iterator) {
                        Path q = dst.resolve(src.relativize(p).toString());
                        if (Files.isDirectory(p)) {
                            Files.createDirectories(q);
                            Files.setPosixFilePermissions(q, PosixFilePermissions.fromString("rwxr-xr-x"));
                        } else {
                            Files.copy(p, q, StandardCopyOption.REPLACE_EXISTING);
                            Files.setPosixFilePermissions(q, PosixFilePermissions.fromString("rw-r--r--"));
                        }
                    }
                }
            } else {
                Files.copy(src, dst);
                Files.setPosixFilePermissions(dst, PosixFilePermissions.fromString("rw-r--r--"));
            }
            entries.add(dst.toString());
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        return String.join(File.pathSeparator, entries);
    }

    private static Path owned(Path dir, long uid, long gid) throws IOException {
        Files.createDirectory(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(dir, "unix:gid", (int) gid);
        Files.setAttribute(dir, "unix:uid", (int) uid);
        return dir;
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
                return true;
            }
        }
        return false;
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> tree = Files.walk(root)) {
            for (Path p : (Iterable<Path>) tree.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
