package io.jdat.testing.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link ChildJvm} running {@link EchoMain}. */
class ChildJvmTest {
    /** Generous: a JVM start on a loaded machine. Only a broken child makes a test wait this long. */
    private static final Duration START = Duration.ofSeconds(20);
    private static final Duration EXIT = Duration.ofSeconds(10);
    private static final Pattern READY = Pattern.compile("^READY pid=(\\d+) args=(.*) greeting=(\\S+)$");

    @Test
    void startsMainFromTheTestClasspathWithArgumentsAndSystemProperties() throws Exception {
        try (ChildJvm child = ChildJvm.start("props", EchoMain.class, Map.of("echo.greeting", "hi"),
                List.of("a", "b c"))) {
            Matcher ready = child.awaitLine(READY, START);
            assertEquals(child.pid(), Long.parseLong(ready.group(1)));
            assertEquals("[a, b c]", ready.group(2));
            assertEquals("hi", ready.group(3));
            assertEquals("props", child.name());
        }
    }

    @Test
    void echoesStdinLinesInOrderAndReturnsTheExitCode() throws Exception {
        try (ChildJvm child = ChildJvm.start("echo", EchoMain.class)) {
            child.awaitLine(READY, START);
            child.writeLine("hello");
            child.writeLine("wörld ✓");
            child.writeLine("exit 7");
            assertEquals("ECHO hello", child.awaitLine(l -> l.startsWith("ECHO"), START));
            assertEquals("ECHO wörld ✓", child.awaitLine(l -> l.startsWith("ECHO"), START));
            assertEquals(7, child.waitFor(EXIT));
            assertFalse(child.isAlive());
        }
    }

    @Test
    void endOfStdinExitsNormallyAndRunsShutdownHooks() throws Exception {
        try (ChildJvm child = ChildJvm.start("eof", EchoMain.class)) {
            child.awaitLine(READY, START);
            child.closeStdin();
            child.awaitLine("SHUTDOWN HOOK"::equals, EXIT);
            assertEquals(0, child.waitFor(EXIT));
        }
    }

    @Test
    void killSendsSigkillMidRun() throws Exception {
        try (ChildJvm child = ChildJvm.start("victim", EchoMain.class)) {
            child.awaitLine(READY, START);
            child.kill();
            assertEquals(137, child.waitFor(EXIT), "128 + SIGKILL(9)");
            assertFalse(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive).orElse(false));
            AssertionError noHook = assertThrows(AssertionError.class,
                    () -> child.awaitLine("SHUTDOWN HOOK"::equals, EXIT), "SIGKILL runs no shutdown hook");
            assertTrue(noHook.getMessage().contains("stdout ended (exit code 137)"), noHook.getMessage());
        }
    }

    @Test
    void awaitLineTimeoutFailsWithAClearMessageInsteadOfHanging() throws Exception {
        try (ChildJvm child = ChildJvm.start("quiet", EchoMain.class)) {
            child.awaitLine(READY, START);
            child.writeLine("first");
            child.awaitLine("ECHO first"::equals, START);
            long start = System.nanoTime();
            AssertionError e = assertThrows(AssertionError.class,
                    () -> child.awaitLine(Pattern.compile("never"), Duration.ofMillis(300)));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMs >= 300 && tookMs < 5_000, "took " + tookMs + " ms");
            String m = e.getMessage();
            assertTrue(m.contains("'quiet'") && m.contains("/never/") && m.contains("300 ms")
                    && m.contains("ECHO first"), m);
            assertTrue(child.isAlive());
        }
    }

    @Test
    void awaitLineFailsAtOnceWhenTheChildExits() throws Exception {
        try (ChildJvm child = ChildJvm.start("leaver", EchoMain.class)) {
            child.awaitLine(READY, START);
            child.writeLine("exit 3");
            long start = System.nanoTime();
            AssertionError e = assertThrows(AssertionError.class,
                    () -> child.awaitLine("never"::equals, Duration.ofSeconds(60)));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "did not wait out the timeout");
            assertTrue(e.getMessage().contains("exit code 3"), e.getMessage());
        }
    }

    @Test
    void waitForFailsWhileTheChildRuns() throws Exception {
        try (ChildJvm child = ChildJvm.start("runner", EchoMain.class)) {
            child.awaitLine(READY, START);
            AssertionError e = assertThrows(AssertionError.class, () -> child.waitFor(Duration.ofMillis(100)));
            assertTrue(e.getMessage().contains("still running"), e.getMessage());
            assertTrue(child.isAlive());
        }
    }

    @Test
    void closeKillsARunningChild() throws Exception {
        ChildJvm child = ChildJvm.start("closed", EchoMain.class);
        child.awaitLine(READY, START);
        child.close();
        assertFalse(child.isAlive());
        assertFalse(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive).orElse(false));
        child.close(); // idempotent
    }

    @Test
    void stderrIsForwardedPrefixedWithTheChildName() throws Exception {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        PrintStream original = System.err;
        System.setErr(new PrintStream(new LineCollector(lines), true, StandardCharsets.UTF_8));
        try (ChildJvm child = ChildJvm.start("talker", EchoMain.class)) {
            child.awaitLine(READY, START);
            child.writeLine("err boom");
            long deadline = System.nanoTime() + START.toNanos();
            String line;
            do {
                line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            } while (line != null && !line.equals("[talker] boom"));
            assertEquals("[talker] boom", line);
        } finally {
            System.setErr(original);
        }
    }

    /** Collects the lines written to it into a queue. */
    private static final class LineCollector extends OutputStream {
        private final BlockingQueue<String> lines;
        private final ByteArrayOutputStream current = new ByteArrayOutputStream();

        LineCollector(BlockingQueue<String> lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                lines.add(current.toString(StandardCharsets.UTF_8));
                current.reset();
            } else {
                current.write(b);
            }
        }
    }
}
