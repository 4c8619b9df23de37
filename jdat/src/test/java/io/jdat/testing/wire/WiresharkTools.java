package io.jdat.testing.wire;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds Wireshark's command-line tools (on {@code PATH}, then in the usual system directories) and checks,
 * once per JVM, that they run here. The fields are set while the class initializes and never change after.
 */
final class WiresharkTools {
    /** The tshark executable. */
    static String tshark = "tshark";
    /** The dumpcap executable. */
    static String dumpcap = "dumpcap";
    /** The first line of {@code tshark --version}, or empty. */
    static String version = "";
    /** An empty Wireshark configuration directory, so that no personal preference changes a decoding. */
    private static Path configDir;
    /** Why tshark cannot decode here, or empty. */
    static final Optional<String> DECODER = probeDecoder();
    /** Why dumpcap cannot capture on {@code lo} here (or tshark cannot decode), or empty. */
    static final Optional<String> CAPTURE = probeCapture();

    private WiresharkTools() {}

    /**
     * The environment variables every tshark run gets.
     *
     * @return {@code WIRESHARK_CONFIG_DIR} pointing at an empty directory
     */
    static Map<String, String> environment() {
        return configDir == null ? Map.of() : Map.of("WIRESHARK_CONFIG_DIR", configDir.toString());
    }

    private static Optional<String> probeDecoder() {
        Optional<Path> path = executable("tshark");
        if (path.isEmpty()) {
            return Optional.of("tshark is not installed (not on PATH; Debian: apt-get install tshark)");
        }
        tshark = path.get().toString();
        try {
            configDir = Files.createTempDirectory("jdat-wireshark-config");
            configDir.toFile().deleteOnExit();
            ToolRun run = ToolRun.run(List.of(tshark, "--version"), environment(), Duration.ofSeconds(30));
            if (run.exitCode() != 0) {
                return Optional.of("tshark --version failed (exit " + run.exitCode() + "): " + run.errors());
            }
            version = run.stdout().lines().findFirst().orElse("").strip();
            return Optional.empty();
        } catch (IOException | UncheckedIOException e) {
            return Optional.of("tshark does not run: " + e.getMessage());
        }
    }

    private static Optional<String> probeCapture() {
        if (DECODER.isPresent()) {
            return DECODER;
        }
        Optional<Path> path = executable("dumpcap");
        if (path.isEmpty()) {
            return Optional.of("dumpcap is not installed (not on PATH; Debian: apt-get install tshark)");
        }
        dumpcap = path.get().toString();
        try {
            ToolRun run = ToolRun.run(List.of(dumpcap, "-i", "lo", "-L"), Map.of(), Duration.ofSeconds(30));
            if (run.exitCode() != 0) {
                String why = run.errors().lines().findFirst().orElse("exit " + run.exitCode());
                return Optional.of("capture on lo is not permitted: " + why);
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("dumpcap does not run: " + e.getMessage());
        }
    }

    private static Optional<Path> executable(String name) {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(Arrays.asList(path.split(File.pathSeparator)));
        }
        dirs.addAll(List.of("/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin", "/sbin"));
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
