package io.jdat.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Hello sample in a child JVM as an unprivileged user (uid/gid 65534 when the tests run as root) under
 * low limits (64 open files, 256 MiB heap): what a user without privileges on a small account gets.
 */
class SamplesUnprivilegedTest {
    private static final int NOBODY = 65534;

    @ParameterizedTest
    @ValueSource(strings = {"mem", "shm", "tcp"})
    void helloRunsUnprivilegedUnderLowLimits(String provider, @TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/prlimit")), "needs prlimit (util-linux)");
        // The real uid: /proc/self/status's "Uid:" line (the /proc/self link itself is always root's).
        boolean root = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow().split("\\s+")[1].equals("0");
        assumeTrue(!root || Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (util-linux) as root");
        // The classes, where the unprivileged user can read them (the build's may be under a private home).
        open(dir);
        Path lib = copy(Path.of(Child.location(io.jdat.InterfaceAdapter.class)), dir.resolve("lib"));
        Path samples = copy(Path.of(Child.location(io.jdat.samples.hello.Hello.class)), dir.resolve("samples"));
        // The shm base directory: new, so that the child creates it for its own uid (0700).
        Path shmBase = Path.of("/dev/shm").resolve("jdat-samples-test-" + ProcessHandle.current().pid() + "-"
                + System.nanoTime());
        List<String> cmd = new ArrayList<>();
        if (root) {
            cmd.addAll(List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
        }
        cmd.addAll(List.of("/usr/bin/prlimit", "--nofile=64", "--"));
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-Xss1m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED", "-Dio.jdat.shm.dir=" + shmBase,
                "-cp", lib + ":" + samples, "io.jdat.samples.hello.Hello", provider));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "Hello did not end within 120 s");
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("rdma read: 1024 bytes checked\n") && out.endsWith("disconnected\n"), out);
        } finally {
            p.destroyForcibly();
            delete(shmBase);
        }
    }

    private static void open(Path d) throws IOException {
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** Copies a jar or a class directory to {@code to} (readable by everyone); returns the class path entry. */
    private static Path copy(Path from, Path to) throws IOException {
        if (Files.isRegularFile(from)) {
            Files.createDirectories(to);
            open(to);
            Path jar = to.resolve(from.getFileName());
            Files.copy(from, jar, StandardCopyOption.REPLACE_EXISTING);
            return jar;
        }
        try (Stream<Path> s = Files.walk(from)) {
            for (Path f : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(t);
                    open(t);
                } else {
                    Files.copy(f, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return to;
    }

    private static void delete(Path d) throws IOException {
        if (Files.exists(d)) {
            try (Stream<Path> s = Files.walk(d)) {
                for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}
