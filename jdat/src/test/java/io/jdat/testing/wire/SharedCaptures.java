package io.jdat.testing.wire;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Locates the golden soft-iWARP captures of {@code shared/interop/captures}, which live beside the repository
 * (CI clones the repository with {@code ../shared} next to it), not inside it.
 */
public final class SharedCaptures {
    /** The captures directory, relative to the directory that holds {@code shared/}. */
    public static final Path RELATIVE = Path.of("shared", "interop", "captures");

    private SharedCaptures() {}

    /**
     * Finds the captures directory: the first {@code shared/interop/captures} met walking up from the current
     * working directory (Maven runs the tests in {@code jdat/}).
     *
     * @return the directory, or empty when no ancestor has one
     */
    public static Optional<Path> directory() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(RELATIVE);
            if (Files.isDirectory(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * The captures directory, or a skipped test.
     *
     * @return the directory
     * @throws org.opentest4j.TestAbortedException (via {@link Assumptions}) when there is none
     */
    public static Path requireDirectory() {
        Optional<Path> dir = directory();
        Assumptions.assumeTrue(dir.isPresent(), () -> "no " + RELATIVE + " in any parent of "
                + Path.of("").toAbsolutePath() + ": skipping the capture tests");
        return dir.get();
    }

    /**
     * One capture file, or a skipped test.
     *
     * @param name the file name, e.g. {@code siw-rping-veth.pcap}
     * @return its path
     * @throws org.opentest4j.TestAbortedException (via {@link Assumptions}) when the directory or the file is
     *     missing
     */
    public static Path require(String name) {
        Path file = requireDirectory().resolve(name);
        Assumptions.assumeTrue(Files.isRegularFile(file), () -> "capture " + file + " is missing: skipping");
        return file;
    }

    /**
     * Every {@code .pcap} file of the directory, or a skipped test.
     *
     * @return the files sorted by name (at least one)
     * @throws UncheckedIOException if the directory cannot be listed
     * @throws org.opentest4j.TestAbortedException (via {@link Assumptions}) when there is none
     */
    public static List<Path> requireAll() {
        Path dir = requireDirectory();
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".pcap")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Assumptions.assumeFalse(files.isEmpty(), () -> "no .pcap file in " + dir + ": skipping");
        return files;
    }
}
