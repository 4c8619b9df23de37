package io.jdat.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * README.md's "A first program" cannot rot: the test takes the fenced java block under that heading, compiles
 * it with javax.tools against the library, runs it in a child JVM on mem, shm and tcp, and checks its output
 * and exit code. The block is also the Hello sample, word for word (less the package line).
 */
class ReadmeFirstProgramTest {
    private static final String HEADING = "## A first program";

    /** The README of the repository (found upwards from the working directory). */
    static Path readme() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("README.md")) && Files.isDirectory(d.resolve("jdat-samples"))) {
                return d.resolve("README.md");
            }
        }
        throw new AssertionError("no README.md above " + Path.of("").toAbsolutePath());
    }

    /** The first ```java block after the heading, before the next heading. */
    static String firstProgram() throws IOException {
        String md = Files.readString(readme());
        int h = md.indexOf("\n" + HEADING + "\n");
        assertTrue(h >= 0, "README.md has no '" + HEADING + "' section");
        int end = md.indexOf("\n## ", h + 1);
        String section = md.substring(h, end < 0 ? md.length() : end);
        int open = section.indexOf("\n```java\n");
        assertTrue(open >= 0, "no ```java block under '" + HEADING + "'");
        int close = section.indexOf("\n```\n", open + 1);
        assertTrue(close >= 0, "the ```java block under '" + HEADING + "' is not closed");
        return section.substring(open + "\n```java\n".length(), close + 1);
    }

    @Test
    void theReadmeProgramIsTheHelloSample() throws IOException {
        Path hello = readme().resolveSibling("jdat-samples/src/main/java/io/jdat/samples/hello/Hello.java");
        String sample = Files.readString(hello);
        String header = "package io.jdat.samples.hello;\n\n";
        assertTrue(sample.startsWith(header));
        assertEquals(sample.substring(header.length()), firstProgram(),
                "README.md's first program and jdat-samples' Hello.java differ: keep them the same text");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mem", "shm", "tcp"})
    void theReadmeProgramCompilesAndRunsOnEveryProvider(String provider, @TempDir Path dir) throws Exception {
        String source = firstProgram();
        Path file = dir.resolve("src/Hello.java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        boolean ok = javac.getTask(diagnostics, null, null,
                List.of("-Xlint:all", "-Werror", "-d", classes.toString(), "-cp",
                        Child.location(io.jdat.InterfaceAdapter.class)),
                null, javac.getStandardFileManager(null, null, null).getJavaFileObjects(file)).call();
        assertTrue(ok, "README.md's first program does not compile cleanly:\n" + diagnostics);

        try (Child c = Child.start(classes, "Hello", provider)) {
            int exit = c.exit(120);
            String out = c.output();
            assertEquals(0, exit, out);
            assertTrue(out.startsWith("connected over " + provider + ", the client's buffer: RmrTriplet[rmrContext="), out);
            assertTrue(out.contains("send/recv \"hello from the client\": 64 bytes checked\n"), out);
            assertTrue(out.contains("rdma write: 1024 bytes checked\n"), out);
            assertTrue(out.contains("rdma read: 1024 bytes checked\n"), out);
            assertTrue(out.endsWith("disconnected\n"), out);
        }
    }
}
