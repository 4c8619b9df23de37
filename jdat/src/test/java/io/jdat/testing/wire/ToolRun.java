package io.jdat.testing.wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The result of running an external tool to completion.
 *
 * @param command the command line that ran
 * @param exitCode its exit status
 * @param stdout its standard output
 * @param stderr its standard error
 */
record ToolRun(List<String> command, int exitCode, String stdout, String stderr) {
    /**
     * Runs a command with an empty standard input and waits for it.
     *
     * @param command the program and its arguments
     * @param environment variables to add to the inherited environment
     * @param timeout how long to wait before killing it
     * @return the outcome
     * @throws IOException if the program cannot be started or does not end in time
     */
    static ToolRun run(List<String> command, Map<String, String> environment, Duration timeout) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread errReader = Thread.ofVirtual().start(() -> copy(process.getErrorStream(), err));
        Thread outReader = Thread.ofVirtual().start(() -> copy(process.getInputStream(), out));
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("timed out after " + timeout + ": " + String.join(" ", command));
            }
            outReader.join(timeout.toMillis());
            errReader.join(timeout.toMillis());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        return new ToolRun(command, process.exitValue(), out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8));
    }

    /**
     * The standard error without tshark's "Running as user root" notice, trimmed.
     *
     * @return the interesting part of {@link #stderr()}
     */
    String errors() {
        return stderr.lines().filter(l -> !l.startsWith("Running as user")).reduce((a, b) -> a + "\n" + b)
                .orElse("").strip();
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        try (in) {
            in.transferTo(out);
        } catch (IOException e) {
            // the process went away; what was read so far is all there is
        }
    }
}
