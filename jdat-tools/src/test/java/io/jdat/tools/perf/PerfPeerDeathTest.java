package io.jdat.tools.perf;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.tools.cli.ErrorHandler;
import io.jdat.tools.cli.Main;
import io.jdat.tools.cli.ToolRun;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A two-process perf run whose peer process dies (moved here from ErrorMessagesTest with the split by command). */
class PerfPeerDeathTest {
    /**
     * A two-process perf run over shm whose client process is killed in the middle: the server says that the
     * client process went away, not {@code Aborted: aborted because the peer failed} nor a flushed completion.
     */
    @Test
    void anShmPeerProcessThatDiesIsReportedInWords() throws Exception {
        long qual = Long.parseLong(ToolRun.qual("shm"));
        CompletableFuture<java.net.SocketAddress> listening = new CompletableFuture<>();
        CompletableFuture<PerfConfig> server = CompletableFuture.supplyAsync(() -> PerfRun.runServer("shm", qual, 10,
                60, listening::complete));
        String dir = ((java.net.UnixDomainSocketAddress) listening.get(60, TimeUnit.SECONDS)).getPath().toString();
        Process client = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "perf", "--ia", "shm", "--client", dir + ":" + qual, "--duration", "30")
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            do {
                line = out.readLine(); // until the table starts: the measurements run
            } while (line != null && !line.startsWith("operation"));
            assertTrue(line != null, "the client ended before measuring");
            Thread.sleep(300);
            client.destroyForcibly();
            assertTrue(client.waitFor(30, TimeUnit.SECONDS));
        } finally {
            client.destroyForcibly();
        }
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> server.get(60, TimeUnit.SECONDS));
        String said = ErrorHandler.describe(e.getCause());
        assertTrue(said.startsWith("server: the client process went away (it failed or was stopped: its own output "
                + "says why;"), said);
        assertFalse(said.contains("Aborted") || said.contains("FLUSHED"), said);
    }
}
