package io.jdat.samples;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A sample's main in a child JVM (the test class path, native access on), its output read line by line. */
final class Child implements AutoCloseable {
    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuilder all = new StringBuilder();
    private final Thread reader;

    private Child(Process process) {
        this.process = process;
        reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    synchronized (all) {
                        all.append(l).append('\n');
                    }
                    lines.add(l);
                }
            } catch (IOException e) {
                // the process ended
            }
        });
    }

    /**
     * Starts {@code mainClass} with {@code args}; {@code extraClassPath} (may be null) goes first.
     */
    static Child start(Path extraClassPath, String mainClass, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add((extraClassPath == null ? "" : extraClassPath + File.pathSeparator) + classPath());
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return new Child(new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }

    /** The test JVM's class path plus where the library's and the samples' classes are. */
    static String classPath() {
        return String.join(File.pathSeparator, System.getProperty("java.class.path"),
                location(io.jdat.InterfaceAdapter.class), location(io.jdat.samples.common.Peer.class));
    }

    static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The next line of output, or an AssertionError with the output so far after {@code seconds}. */
    String line(int seconds) throws InterruptedException {
        String l = lines.poll(seconds, TimeUnit.SECONDS);
        if (l == null) {
            throw new AssertionError("no output line within " + seconds + " s; output so far:\n" + output());
        }
        return l;
    }

    /** Waits for the exit (killing the process after {@code seconds}) and returns the exit code. */
    int exit(int seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("still running after " + seconds + " s; output:\n" + output());
        }
        reader.join(5000);
        return process.exitValue();
    }

    /** All output so far. */
    String output() {
        synchronized (all) {
            return all.toString();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor();
        }
    }
}
