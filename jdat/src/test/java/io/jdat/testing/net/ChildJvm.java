package io.jdat.testing.net;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A second JVM running a main class from the current test classpath, for tests that need a peer in another
 * process (or one that can be killed).
 *
 * <p>The child is started with the same {@code java} as this JVM ({@code java.home}), the classpath of this
 * JVM ({@link #classPath()}), {@code --enable-native-access=ALL-UNNAMED}, UTF-8 stdout and stderr, and the
 * given system properties and arguments. Its stdout lines are queued for {@link #awaitLine}; its stderr lines
 * are copied to this JVM's {@code System.err}, each prefixed with {@code [name] }. Its stdin is open for
 * {@link #writeLine}.
 *
 * <p>Always close it (try-with-resources): {@link #close()} kills the child if it still runs. A shutdown
 * hook also kills it when this JVM exits normally; nothing can reap it if this JVM is itself SIGKILLed.
 */
public final class ChildJvm implements AutoCloseable {
    /** The longest {@link #close()} waits for a killed child to be reaped. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    /** How long a failure message waits for the exit code of a child whose stdout has ended. */
    private static final Duration EXIT_CODE_WAIT = Duration.ofSeconds(1);
    /** How many recent stdout lines a failure message quotes. */
    private static final int RECENT_LINES = 20;
    /** Queued after the child's last stdout line; compared by identity. */
    private static final String END_OF_OUTPUT = new String("<end of output>");

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
    private final ArrayDeque<String> recent = new ArrayDeque<>();
    private final List<Thread> readers = new ArrayList<>();
    private final Thread killOnExit;

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        readers.add(startReader("stdout", process.getInputStream(), this::queueLine,
                () -> stdout.add(END_OF_OUTPUT)));
        readers.add(startReader("stderr", process.getErrorStream(),
                line -> System.err.println("[" + name + "] " + line), () -> { }));
        killOnExit = new Thread(process::destroyForcibly, "child-jvm-" + name + "-kill-on-exit");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts {@code mainClass} in a child JVM with {@code args} and no extra system properties.
     *
     * @param name names the child in stderr prefixes, thread names and failure messages
     * @throws IOException if the process cannot be started
     */
    public static ChildJvm start(String name, Class<?> mainClass, String... args) throws IOException {
        return start(name, mainClass, Map.of(), List.of(args));
    }

    /**
     * Starts {@code mainClass} in a child JVM with {@code args}, each entry of {@code systemProperties} passed
     * as {@code -Dkey=value}.
     *
     * @param name names the child in stderr prefixes, thread names and failure messages
     * @throws IOException if the process cannot be started
     */
    public static ChildJvm start(String name, Class<?> mainClass, Map<String, String> systemProperties,
            List<String> args) throws IOException {
        Objects.requireNonNull(name, "name");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-Dstdout.encoding=UTF-8");
        command.add("-Dstderr.encoding=UTF-8");
        systemProperties.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-cp");
        command.add(classPath());
        command.add(mainClass.getName());
        command.addAll(args);
        return new ChildJvm(name, new ProcessBuilder(command).start());
    }

    /**
     * The child's class path: this JVM's test classes and jdat's classes, then its class path and module path.
     * Under Surefire jdat runs as the named module {@code io.jdat} with the test classes patched into it, so
     * neither is on {@code java.class.path}; the child runs them all on the class path (the unnamed module,
     * docs/module.md), which is why it gets {@code --enable-native-access=ALL-UNNAMED}.
     */
    public static String classPath() {
        Set<String> parts = new LinkedHashSet<>();
        parts.add(location(ChildJvm.class));
        parts.add(location(io.jdat.Dat.class));
        for (String key : new String[] {"java.class.path", "jdk.module.path"}) {
            String value = System.getProperty(key, "");
            for (String part : value.split(File.pathSeparator)) {
                if (!part.isEmpty()) {
                    parts.add(part);
                }
            }
        }
        return String.join(File.pathSeparator, parts);
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the location of " + c, e);
        }
    }

    /** The name given at start. */
    public String name() {
        return name;
    }

    /** The child's process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the child is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Takes stdout lines, in order, until one satisfies {@code matcher}, and returns it; the lines before it
     * are consumed. Fails with an {@link AssertionError} naming the child, the wait and its recent output if
     * no such line comes within {@code timeout}, or at once if the child's stdout ends first (with its exit
     * code when known).
     */
    public String awaitLine(Predicate<String> matcher, Duration timeout) {
        return awaitLine(matcher, "line satisfying the predicate", timeout);
    }

    /**
     * Like {@link #awaitLine(Predicate, Duration)} for the first line in which {@code pattern} is found
     * ({@link Matcher#find()}); returns the matcher positioned on that match, so its groups can be read
     * (e.g. {@code READY port=(\d+)}).
     */
    public Matcher awaitLine(Pattern pattern, Duration timeout) {
        String line = awaitLine(l -> pattern.matcher(l).find(), "line matching /" + pattern + "/", timeout);
        Matcher m = pattern.matcher(line);
        if (!m.find()) {
            throw new IllegalStateException("pattern no longer matches " + line);
        }
        return m;
    }

    private String awaitLine(Predicate<String> matcher, String wanted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                String line = stdout.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError(this + ": no " + wanted + " within " + timeout.toMillis() + " ms"
                            + (isAlive() ? "" : "; the child has exited") + recentOutput());
                }
                if (line == END_OF_OUTPUT) {
                    stdout.add(END_OF_OUTPUT); // later waits must fail at once too
                    throw new AssertionError(this + ": stdout ended (" + exitDescription() + ") before a " + wanted
                            + recentOutput());
                }
                if (matcher.test(line)) {
                    return line;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(this + ": interrupted while waiting for " + wanted, e);
        }
    }

    /** Writes {@code line} and a newline (UTF-8) to the child's stdin and flushes. */
    public void writeLine(String line) throws IOException {
        stdin.write(line);
        stdin.write('\n');
        stdin.flush();
    }

    /** Closes the child's stdin, so its reads there see end of input. */
    public void closeStdin() throws IOException {
        stdin.close();
    }

    /**
     * Kills the child with SIGKILL and returns without waiting: on Linux {@link Process#destroyForcibly()}
     * sends SIGKILL, so the child gets no chance to run shutdown hooks or flush anything, and
     * {@link #waitFor} then reports exit code 137 (128 + 9). No-op if it has exited.
     */
    public void kill() {
        process.destroyForcibly();
    }

    /**
     * Waits for the child to exit and returns its exit code (128 + n when killed by signal n).
     *
     * @throws AssertionError if it is still running after {@code timeout} (it is left running)
     */
    public int waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new AssertionError(this + ": still running after " + timeout.toMillis() + " ms"
                        + recentOutput());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(this + ": interrupted while waiting for exit", e);
        }
    }

    /**
     * Kills the child (SIGKILL) if it still runs, waits (at most about five seconds) for it to be reaped and
     * for its output to be drained, and closes its stdin. Idempotent.
     */
    @Override
    public void close() {
        process.destroyForcibly();
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        try {
            process.waitFor(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
            for (Thread t : readers) {
                t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            stdin.close();
        } catch (IOException ignored) {
            // the child is gone; its stdin pipe may be broken
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    @Override
    public String toString() {
        return "child JVM '" + name + "' (pid " + process.pid() + ")";
    }

    /** Starts a daemon thread passing each line of {@code in} to {@code sink}, then running {@code atEnd}. */
    private Thread startReader(String stream, InputStream in, Consumer<String> sink, Runnable atEnd) {
        return Thread.ofPlatform().name("child-jvm-" + name + "-" + stream).daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    sink.accept(line);
                }
            } catch (IOException e) {
                // the pipe broke: the child is gone
            } finally {
                atEnd.run();
            }
        });
    }

    private void queueLine(String line) {
        synchronized (recent) {
            if (recent.size() == RECENT_LINES) {
                recent.removeFirst();
            }
            recent.addLast(line);
        }
        stdout.add(line);
    }

    private String exitDescription() {
        try {
            return process.waitFor(EXIT_CODE_WAIT.toNanos(), TimeUnit.NANOSECONDS)
                    ? "exit code " + process.exitValue()
                    : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "exit code unknown";
        }
    }

    private String recentOutput() {
        synchronized (recent) {
            return recent.isEmpty() ? "; no stdout so far"
                    : "; last stdout lines:\n  " + String.join("\n  ", recent);
        }
    }
}
