package io.jdat.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./jdat.sh}, run by bash in a copy of the launcher ({@code jdat.sh}, {@code bin/jdk25.sh}) whose Maven
 * wrapper is a stand-in that logs its arguments (and "builds" by copying a jar), and whose tools jar and
 * benchmarks jar are an echo program printing its arguments and JVM options: what goes to Maven, what goes to
 * the tools, which JVM options they get, and what the launcher says while it builds.
 */
class LauncherTest {
    private static final Path REPO = repoRoot();

    @TempDir
    Path root;
    private Path echoJar;

    /** Prints its arguments ({@code arg:}) and JVM options ({@code jvm:}), one a line: the stand-in tools jar. */
    public static final class Echo {
        private Echo() {
        }

        /**
         * Prints what it was given.
         *
         * @param args the arguments
         */
        public static void main(String[] args) {
            for (String a : args) {
                System.out.println("arg:" + a);
            }
            for (String j : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                System.out.println("jvm:" + j);
            }
        }
    }

    /** Output of one launcher run. */
    record Run(int exitCode, String out, String err) {
        List<String> lines(String prefix) {
            return out.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).toList();
        }
    }

    @BeforeEach
    void layOutTheLauncher() throws IOException {
        Files.createDirectories(root.resolve("bin"));
        Files.copy(REPO.resolve("jdat.sh"), root.resolve("jdat.sh"));
        Files.copy(REPO.resolve("bin/jdk25.sh"), root.resolve("bin/jdk25.sh"));
        root.resolve("jdat.sh").toFile().setExecutable(true);
        echoJar = root.resolve("echo.jar");
        writeEchoJar(echoJar);
        // The stand-in Maven wrapper: logs one line of arguments; "package" of a module puts the echo jar where
        // the launcher expects that module's jar; prints a Surefire summary for "verify".
        Path mvnw = root.resolve("mvnw");
        Files.writeString(mvnw, """
                #!/usr/bin/env bash
                echo "$*" >> "$(dirname "$0")/mvnw.log"
                case " $* " in
                    *" -pl jdat-tools "*) mkdir -p jdat-tools/target && cp echo.jar jdat-tools/target/jdat-tools.jar ;;
                    *" -pl jdat-bench "*) mkdir -p jdat-bench/target && cp echo.jar jdat-bench/target/benchmarks.jar ;;
                esac
                case " $* " in
                    *" verify "*) echo "[INFO] Tests run: 7, Failures: 1, Errors: 0, Skipped: 2" ;;
                esac
                """);
        Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void testRunsMavenWithEveryArgumentAndNothingElse() throws Exception {
        Run r = launch(Map.of(), "test", "--ia", "tcp", "--threads", "2", "-t", "2", "--help");
        assertEquals(List.of("-B -ntp verify --ia tcp --threads 2 -t 2 --help"), mavenCalls());
        assertTrue(r.out().contains("tests: 4 passed, 1 failed, 2 skipped"), r.out());
        assertTrue(r.lines("arg:").isEmpty(), "the tools ran:\n" + r.out());
    }

    @Test
    void aToolGetsItsArgumentsAsGivenAndTheJvmOptions() throws Exception {
        installToolsJar();
        Run r = launch(Map.of("JDAT_JAVA_OPTS", "-Xmx97m  -Djdat.launcher.probe=yes"), "tx", "--ia", "tcp", "-t",
                "2", "--help");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(List.of("tx", "--ia", "tcp", "-t", "2", "--help"), r.lines("arg:"));
        List<String> jvm = r.lines("jvm:");
        assertTrue(jvm.containsAll(List.of("--enable-native-access=ALL-UNNAMED", "-Xmx97m",
                "-Djdat.launcher.probe=yes")), jvm::toString);
        assertTrue(jvm.indexOf("-Xmx97m") > jvm.indexOf("--enable-native-access=ALL-UNNAMED"),
                "the user's options come last, so they override: " + jvm);
        assertEquals(List.of(), mavenCalls(), "a fresh jar is not rebuilt");
        assertEquals("", r.err());
    }

    @Test
    void theFirstRunSaysItBuildsTheTools() throws Exception {
        Run r = launch(Map.of(), "perf", "--sizes", "all");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.err().startsWith("jdat: building the tools (first run, ~40 s)..."), r.err());
        assertEquals(List.of("-B -ntp -q -Dmaven.test.skip=true -pl jdat-tools -am package"), mavenCalls());
        assertEquals(List.of("perf", "--sizes", "all"), r.lines("arg:"));
    }

    @Test
    void theBenchmarksGetTheJvmOptionsToo() throws Exception {
        Run r = launch(Map.of("JDAT_JAVA_OPTS", "-XX:+UseSerialGC"), "bench", "-f", "1", "Foo");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(List.of("-f", "1", "Foo"), r.lines("arg:"));
        assertTrue(r.lines("jvm:").contains("-XX:+UseSerialGC"), r.out());
        assertTrue(r.err().startsWith("jdat: building the benchmarks"), r.err());
    }

    @Test
    void helpDocumentsTheCommandsAndTheJvmOptions() throws Exception {
        for (String flag : List.of("--help", "-h")) {
            Run r = launch(Map.of(), flag);
            assertEquals(0, r.exitCode(), r.err());
            for (String s : List.of("./jdat.sh test [maven args]", "./jdat.sh COMMAND [args]", "tx (the transaction "
                    + "test)", "JDAT_JAVA_OPTS", "-XX:StartFlightRecording")) {
                assertTrue(r.out().contains(s), "no '" + s + "' in:\n" + r.out());
            }
            assertFalse(r.out().contains("set -euo"), r.out());
        }
        assertEquals(List.of(), mavenCalls());
    }

    private void installToolsJar() throws IOException {
        Files.createDirectories(root.resolve("jdat-tools/target"));
        Files.copy(echoJar, root.resolve("jdat-tools/target/jdat-tools.jar"));
    }

    private List<String> mavenCalls() throws IOException {
        Path log = root.resolve("mvnw.log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    private Run launch(Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", root.resolve("jdat.sh").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile());
        pb.environment().remove("JDAT_JAVA_OPTS");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().putAll(env);
        Path out = root.resolve("launcher.out");
        Path err = root.resolve("launcher.err");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                Path.of("/dev/null").toFile()));
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("jdat.sh " + String.join(" ", args) + " did not end within 60 s");
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** A runnable jar whose main class is {@link Echo}. */
    private static void writeEchoJar(Path jar) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Echo.class.getName());
        String entry = Echo.class.getName().replace('.', '/') + ".class";
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(os, m);
                InputStream in = Echo.class.getClassLoader().getResourceAsStream(entry)) {
            j.putNextEntry(new JarEntry(entry));
            in.transferTo(j);
            j.closeEntry();
        }
    }

    /** The checkout: the nearest directory above the working directory that holds {@code jdat.sh}. */
    private static Path repoRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("jdat.sh")) && Files.isRegularFile(p.resolve("bin/jdk25.sh"))) {
                return p;
            }
        }
        throw new IllegalStateException("no jdat.sh above " + Path.of("").toAbsolutePath());
    }
}
