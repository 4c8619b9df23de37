package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The published Javadoc (packages io.jdat and io.jdat.spi) has no doclint warning under {@code -Xdoclint:all}:
 * the javadoc tool runs over the main sources as the release profile's javadoc jar does, and any warning or
 * error fails the test with its file and line. The internal packages are left out of the published Javadoc.
 */
class JavadocLintTest {
    static final List<String> PUBLISHED = List.of("io.jdat", "io.jdat.spi");

    @Test
    void publishedPackagesHaveNoDoclintWarnings(@TempDir Path out) throws IOException {
        Path src = Path.of("src/main/java").toAbsolutePath();
        assertTrue(Files.isDirectory(src), "run from the jdat module: " + src);
        DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<Path> files = new ArrayList<>();
        for (String p : PUBLISHED) {
            try (Stream<Path> s = Files.list(src.resolve(p.replace('.', '/')))) {
                s.filter(f -> f.toString().endsWith(".java") && !f.endsWith("module-info.java")).forEach(files::add);
            }
        }
        try (StandardJavaFileManager fm = javadoc.getStandardFileManager(diagnostics, null, null)) {
            List<String> options = List.of("-Xdoclint:all", "-Xmaxwarns", "10000", "-quiet", "-d", out.toString(),
                    "--source-path", src.toString(), "-notimestamp");
            boolean ok = javadoc.getTask(null, fm, diagnostics, null, options, fm.getJavaFileObjectsFromPaths(files))
                    .call();
            List<String> problems = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.WARNING || d.getKind() == Diagnostic.Kind.MANDATORY_WARNING
                        || d.getKind() == Diagnostic.Kind.ERROR) {
                    problems.add((d.getSource() == null ? "" : src.relativize(Path.of(d.getSource().toUri())) + ":"
                            + d.getLineNumber() + ": ") + d.getMessage(null));
                }
            }
            assertEquals(List.of(), problems, problems.size() + " doclint problems in the published Javadoc");
            assertTrue(ok, "javadoc failed");
        }
        // With module-info.java on the source path javadoc writes the module layout (io.jdat/io/jdat/...).
        Path root = Files.isDirectory(out.resolve("io.jdat")) ? out.resolve("io.jdat") : out;
        assertTrue(Files.exists(root.resolve("io/jdat/package-summary.html")), "no package summary under " + out);
        assertTrue(Files.notExists(root.resolve("io/jdat/core")), "the core is internal: not in the published Javadoc");
    }
}
