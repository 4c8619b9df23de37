package io.jdat;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.LimitedChild;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A stream transport starts the JDK's virtual-thread poller before its first listener, so that running out of
 * file descriptors later does not break every virtual thread's socket I/O for the rest of the JVM's life
 * ({@code io.jdat.transport.VirtualThreadPoller}; the race {@link ListenerFailureTest} met when its backlog
 * filled before the accept thread first blocked). In a child JVM under {@code ulimit -n 128}, as {@code nobody}
 * when the tests run as root: {@link PollerExhaustionMain}.
 */
final class PollerExhaustionTest {
    private static final int NOFILE = 128;

    @Test
    @DisplayName("tcp, ulimit -n 128: a virtual thread blocks on a socket with no fd free, and the IA connects after")
    void socketIoSurvivesFdExhaustionAfterAListenerStarted() throws Exception {
        List<String> c = LimitedChild.command(NOFILE, true, jar().toString(), PollerExhaustionMain.class.getName());
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out;
        try {
            boolean ended = p.waitFor(60, TimeUnit.SECONDS);
            if (!ended) {
                p.destroyForcibly();
            }
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(ended, "the child ended within 60 s:\n" + out);
        } finally {
            p.destroyForcibly();
        }
        assertTrue(out.contains("READ ok"), "a virtual thread's socket read with no fd free:\n" + out);
        assertTrue(out.contains("CONNECTED"), "the IA connects once fds are free again:\n" + out);
        assertTrue(out.contains("DONE"), out);
    }

    /**
     * jdat's classes and the child's main in one jar, readable by every user: a class loaded while no fd is free
     * comes from the open jar, as in a user's application (from class directories every class load opens a file).
     */
    private static Path jar() throws Exception {
        Path dir = Files.createTempDirectory("jdat-poller-");
        dir.toFile().setReadable(true, false);
        dir.toFile().setExecutable(true, false);
        Path jar = dir.resolve("child.jar");
        Path main = Path.of(InterfaceAdapter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path test = Path.of(PollerExhaustionMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ToolProvider tool = ToolProvider.findFirst("jar").orElseThrow();
        int rc = tool.run(System.out, System.err, "--create", "--file", jar.toString(), "-C", main.toString(), ".",
                "-C", test.toString(), PollerExhaustionMain.class.getName().replace('.', '/') + ".class");
        assertTrue(rc == 0, "jar exit status " + rc);
        jar.toFile().setReadable(true, false);
        jar.toFile().deleteOnExit();
        dir.toFile().deleteOnExit();
        return jar;
    }

}
