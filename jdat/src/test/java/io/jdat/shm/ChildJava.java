package io.jdat.shm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM for the {@code shm} tests that need what {@link io.jdat.testing.net.ChildJvm} does not give: a
 * command in front of {@code java} (to run it as another user with {@code setpriv}, under {@code ulimit}, or
 * with SIGINT and SIGTERM reset to their defaults), JVM options of the test's choosing (no native access, or
 * {@code --illegal-native-access=deny}), another classpath and environment.
 *
 * <p>stdout and stderr are merged; every line is kept (for failure messages) and queued for
 * {@link #awaitLine}. Close it (try-with-resources): {@link #close()} kills the child if it still runs.
 */
final class ChildJava implements AutoCloseable {
    private static final String END = new String("<end>");

    private final String name;
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer output = new StringBuffer();
    private final Thread reader;

    private ChildJava(String name, Process process) {
        this.name = name;
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("child-java-" + name).start(this::read);
    }

    /**
     * Starts {@code prefix... java jvmOptions... -cp classpath mainClass args...}.
     *
     * @param prefix     commands in front of {@code java} (may be empty), e.g. {@code setpriv --reuid=...}
     * @param jvmOptions options of the child JVM; nothing is added but UTF-8 output
     * @param classpath  the child's classpath
     * @param env        variables added to (or, with a null value, removed from) this JVM's environment
     */
    static ChildJava start(String name, List<String> prefix, List<String> jvmOptions, String classpath,
            Map<String, String> env, String mainClass, List<String> args) throws IOException {
        return start(name, null, prefix, jvmOptions, classpath, env, mainClass, args);
    }

    /** Like {@link #start(String, List, List, String, Map, String, List)} in the working directory {@code cwd}. */
    static ChildJava start(String name, Path cwd, List<String> prefix, List<String> jvmOptions, String classpath,
            Map<String, String> env, String mainClass, List<String> args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Dstdout.encoding=UTF-8");
        command.add("-Dstderr.encoding=UTF-8");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (cwd != null) {
            pb.directory(cwd.toFile());
        }
        env.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        return new ChildJava(name, pb.start());
    }

    /**
     * The prefix {@code env --default-signal=INT,TERM} (GNU coreutils 8.31+): a JVM started from a shell that
     * ignores SIGINT (a background job without job control, as in many CI runners) inherits the ignored
     * disposition and then installs no handler for it; this resets both signals so the child's JVM handles them.
     * Empty where {@code env} lacks the option (then the test checks the child's disposition itself).
     */
    static List<String> defaultSignals() {
        try {
            Process p = new ProcessBuilder("env", "--default-signal=INT,TERM", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                return List.of("env", "--default-signal=INT,TERM");
            }
            p.destroyForcibly();
        } catch (IOException e) {
            // no env
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return List.of();
    }

    /** The child's process id. */
    long pid() {
        return process.pid();
    }

    /** Waits for the first line starting with {@code prefix} and returns it; fails on timeout or end of output. */
    String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError(this + ": no line '" + prefix + "...' within " + timeout.toMillis()
                        + " ms; output:\n" + output());
            }
            if (line == END) {
                lines.add(END);
                throw new AssertionError(this + ": output ended before a line '" + prefix + "...'; output:\n"
                        + output());
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /** Sends {@code signal} (a name such as {@code TERM} or {@code INT}) to the child with {@code kill}. */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -s " + signal + " " + pid() + " failed");
        }
    }

    /**
     * Waits for the child to exit and for its output to end; returns the exit code.
     *
     * @throws AssertionError if it still runs after {@code timeout} (it is then killed)
     */
    int waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(this + ": still running after " + timeout.toMillis() + " ms (killed); output:\n"
                    + output());
        }
        reader.join(Duration.ofSeconds(5));
        return process.exitValue();
    }

    /** Everything the child printed so far (stdout and stderr). */
    String output() {
        return output.toString();
    }

    /** Kills the child if it still runs and waits a little for it. */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
    }

    @Override
    public String toString() {
        return "child JVM '" + name + "' (pid " + process.pid() + ")";
    }

    private void read() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.append(line).append('\n');
                lines.add(line);
                System.err.println("[" + name + "] " + line);
            }
        } catch (IOException e) {
            // the child is gone
        } finally {
            lines.add(END);
        }
    }
}
