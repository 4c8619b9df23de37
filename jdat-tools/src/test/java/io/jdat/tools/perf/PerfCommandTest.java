package io.jdat.tools.perf;

import static io.jdat.tools.cli.ToolRun.jdat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.Registry;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.cli.ToolRun;
import io.jdat.tools.cli.ToolRun.Run;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PerfCommandTest {
    private static final AtomicLong QUALS = new AtomicLong(31_000);

    private static String qual() {
        return Long.toString(QUALS.getAndAdd(2)); // a run listens on Q and Q + 1
    }

    @Test
    void perfPrintsEveryOperationRowAndClosesItsIas() {
        int openBefore = Registry.openCount("mem");
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> jdat("perf", "-n", "300", "--warmup", "50",
                "--sizes", "64,4K", "--bw-size", "64K", "--bw-bytes", "4M", "--window", "4", "--conn-qual", qual()));
        assertEquals(0, r.exitCode(), () -> "stdout:\n" + r.out() + "\nstderr:\n" + r.err());
        assertTrue(r.out().contains("provider jdat-mem"), r.out());
        assertTrue(r.out().contains("IA \"mem\""), r.out());
        for (String size : List.of("64 B", "4 KiB")) {
            assertRow(r.out(), "send/recv ping-pong", size, false);
            assertRow(r.out(), "RDMA write ping-pong", size, false);
            assertRow(r.out(), "RDMA read", size, false);
        }
        assertRow(r.out(), "RDMA write stream", "64 KiB", true);
        assertRow(r.out(), "RDMA read stream", "64 KiB", true);
        assertRow(r.out(), "send stream", "64 KiB", true);
        assertEquals("", r.err());
        assertEquals(openBefore, Registry.openCount("mem"), "perf left IAs open");
    }

    /**
     * A row: operation, size, then seven latencies (min, median, avg, stdev, p99, p99.9, max), "-" and a message
     * rate, or seven "-", a bandwidth and a message rate.
     */
    static void assertRow(String out, String op, String size, boolean bandwidth) {
        String num = "[0-9][0-9,]*(\\.[0-9]+)?";
        // the last column, CPU µs per message, is "-" when unknown
        String tail = (bandwidth ? "-\\s+".repeat(7) + num + "\\s+" + num
                : (num + "\\s+").repeat(7) + "-\\s+" + num) + "\\s+(" + num + "|-)";
        String regex = "(?m)^" + Pattern.quote(op) + "\\s+" + Pattern.quote(size) + "\\s+" + tail + "\\s*$";
        assertTrue(Pattern.compile(regex).matcher(out).find(), "no row '" + op + " " + size + "' in:\n" + out);
    }

    /**
     * The warm-up records its samples with the same code as the measured rounds (Rounds: one compiled loop body for
     * both) and drops them when the measured rounds begin: every latency row counts the measured iterations only.
     */
    @Test
    void latencyRowsCountOnlyTheMeasuredIterations() {
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> jdat("perf", "-n", "100", "--warmup", "300",
                "--test", "lat", "--conn-qual", qual(), "--json"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        String json = r.out().strip();
        for (String op : List.of("send/recv ping-pong", "RDMA write ping-pong", "RDMA read")) {
            assertTrue(json.contains("{\"operation\":\"" + op + "\",\"size\":64,\"count\":100,"), op + ": " + json);
        }
        assertEquals(3, json.split("\"operation\"", -1).length - 1, json);
    }

    @Test
    void countersOptionPrintsBothIasCounters() {
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> jdat("perf", "-n", "100", "--warmup", "0",
                "--bw-size", "64K", "--bw-bytes", "1M", "--window", "4", "--conn-qual", qual(), "--counters"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        for (String side : List.of("client", "server")) {
            // every number has its label (issue 15 item 11: "requests 502/502/0/0" had none)
            java.util.regex.Matcher m = Pattern.compile("(?m)^" + side + " IA: +posted ([0-9,]+), completed ([0-9,]+), "
                    + "flushed 0, failed 0, bytes [0-9,]+; requests posted ([0-9,]+), completed ([0-9,]+), flushed 0, "
                    + "failed 0; receives posted ([0-9,]+), completed ([0-9,]+), flushed 0, failed 0$").matcher(r.out());
            assertTrue(m.find(), r.out());
            assertEquals(m.group(1), m.group(2), "everything posted completed: " + m.group());
            assertEquals(m.group(3), m.group(4), m.group());
            assertEquals(m.group(5), m.group(6), m.group());
        }
    }

    @Test
    void jsonPrintsOneObjectWithEveryRow() {
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> jdat("perf", "-n", "100", "--warmup", "0",
                "--sizes", "64,4K", "--bw-size", "64K", "--bw-bytes", "1M", "--window", "4", "--conn-qual", qual(),
                "--json", "--counters"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        String json = r.out().strip();
        assertEquals(1, json.lines().count(), json);
        assertTrue(json.startsWith("{\"provider\":\"jdat-mem 1.0\",\"ia\":\"mem\""), json);
        assertTrue(Pattern.compile("\\{\"operation\":\"send/recv ping-pong\",\"size\":4096,\"count\":100,"
                + "\"min_us\":[0-9.]+,\"median_us\":[0-9.]+,\"mean_us\":[0-9.]+,\"stdev_us\":[0-9.]+,\"p99_us\":[0-9.]+,"
                + "\"p999_us\":[0-9.]+,\"max_us\":[0-9.]+,\"mb_per_s\":null,\"msg_per_s\":[0-9.]+,\"cpu_us_per_msg\":[0-9.]+}")
                .matcher(json).find(), json);
        assertTrue(Pattern.compile("\\{\"operation\":\"RDMA write stream\",\"size\":65536,\"count\":16,"
                + "\"min_us\":null,\"median_us\":null,\"mean_us\":null,\"stdev_us\":null,\"p99_us\":null,\"p999_us\":null,"
                + "\"max_us\":null,\"mb_per_s\":[0-9.]+,\"msg_per_s\":[0-9.]+,\"cpu_us_per_msg\":[0-9.]+}")
                .matcher(json).find(), json);
        assertTrue(json.contains("\"counters\":{\"client IA\":{\"requests_posted\":"), json);
        assertEquals(9, json.split("\"operation\"", -1).length - 1, json);
    }

    /** A {@code jdat perf --server} on tcp in this JVM, listening on {@code port} when this returns. */
    private static java.util.concurrent.CompletableFuture<PerfConfig> tcpServer(String port) throws Exception {
        java.util.concurrent.CountDownLatch listening = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CompletableFuture<PerfConfig> server = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> PerfRun.runServer("tcp", Long.parseLong(port), 10, 30, a -> listening.countDown()));
        assertTrue(listening.await(30, java.util.concurrent.TimeUnit.SECONDS), "the server did not listen");
        return server;
    }

    @Test
    void serverAndClientInTwoRolesOverTcp() throws Exception {
        String port = ToolRun.qual("tcp");
        java.util.concurrent.CompletableFuture<PerfConfig> server = tcpServer(port);
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> jdat("perf", "--ia", "tcp", "--client",
                "127.0.0.1:" + port, "-n", "200", "--warmup", "20", "--sizes", "64,1K", "--bw-size", "64K",
                "--bw-bytes", "1M", "--window", "4", "--counters"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        assertTrue(r.out().contains("provider jdat-tcp"), r.out());
        // the header names the qualifier the client connected to, not the default 18515 (issue 15 item 11)
        assertTrue(r.out().lines().findFirst().orElse("").endsWith("connection qualifier " + port), r.out());
        assertRow(r.out(), "send/recv ping-pong", "1 KiB", false);
        assertRow(r.out(), "RDMA read", "64 B", false);
        assertRow(r.out(), "send stream", "64 KiB", true);
        assertTrue(r.out().contains("client IA: posted"), r.out());
        PerfConfig served = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> server.get());
        assertEquals(List.of(64L, 1024L), served.sizes(), "the server ran the client's settings");
        assertEquals(200, served.iterations());
        assertEquals(0, Registry.openCount("tcp"));
    }

    /** Issue 17: {@code --server-idle} is the client's setting and reaches the server with the others. */
    @Test
    void serverIdleTravelsToTheServer() throws Exception {
        String port = ToolRun.qual("tcp");
        java.util.concurrent.CompletableFuture<PerfConfig> server = tcpServer(port);
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> jdat("perf", "--ia", "tcp", "--client",
                "127.0.0.1:" + port, "-n", "200", "--warmup", "20", "--op", "read,write", "--sizes", "64",
                "--bw-size", "64K", "--bw-bytes", "1M", "--window", "4", "--server-idle", "park"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        assertRow(r.out(), "RDMA read", "64 B", false);
        assertRow(r.out(), "RDMA write stream", "64 KiB", true);
        PerfConfig served = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> server.get());
        assertTrue(served.serverParks(), "the server parks as the client asked");
        Run refused = jdat("perf", "--ia", "tcp", "--server", "--server-idle", "park");
        assertEquals(2, refused.exitCode(), refused.out() + refused.err());
        assertTrue(refused.err().contains("--server takes its settings from the client: drop --server-idle"),
                refused.err());
    }

    @Test
    void serverAndClientInTwoRolesOverShm() throws Exception {
        long qual = 31000 + (ProcessHandle.current().pid() % 1000);
        java.util.concurrent.CompletableFuture<java.net.SocketAddress> address = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<PerfConfig> server = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> PerfRun.runServer("shm", qual, 10, 30, address::complete));
        java.net.SocketAddress a = address.get(30, java.util.concurrent.TimeUnit.SECONDS);
        String path = ((java.net.UnixDomainSocketAddress) a).getPath().toString();
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> jdat("perf", "--ia", "shm", "--client",
                path + ":" + qual, "-n", "200", "--warmup", "20", "--sizes", "64,1K", "--bw-size", "64K",
                "--bw-bytes", "1M", "--window", "4"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        assertTrue(r.out().contains("provider jdat-shm"), r.out());
        assertRow(r.out(), "RDMA write ping-pong", "64 B", false);
        assertRow(r.out(), "RDMA read stream", "64 KiB", true);
        PerfConfig served = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> server.get());
        assertEquals(200, served.iterations());
        assertEquals(0, Registry.openCount("shm"));
    }

    @Test
    void clientWithoutServerIsOneLineAndExitCode1() {
        Run r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> jdat("perf", "--ia", "tcp", "--client",
                "127.0.0.1:" + ToolRun.qual("tcp"), "--timeout", "3"));
        assertEquals(1, r.exitCode(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("NON_PEER_REJECTED (is 'jdat perf --server' running there"), r.err());
    }

    @Test
    void badOptionIsAUsageError() {
        Run r = jdat("perf", "--sizes", "12");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().contains("multiple of 8"), r.err());
    }

    @Test
    void qualifierInUseIsReported() {
        String q = qual();
        PerfConfig c = config(q);
        // Occupy the qualifier with a first listener: the run's PSP creation fails with DAT_CONN_QUAL_IN_USE.
        try (PerfSide other = new PerfSide("server", c, BufferLayout.of(c))) {
            io.jdat.PublicServicePoint.create(other.ia, Long.parseLong(q), other.crEvd, io.jdat.PspFlags.CONSUMER);
            Run r = jdat("perf", "-n", "10", "--warmup", "0", "--conn-qual", q, "--timeout", "2");
            assertEquals(1, r.exitCode(), r.out() + r.err());
            assertTrue(r.err().contains("DAT_CONN_QUAL_IN_USE"), r.err());
            assertTrue(r.err().contains("; pick a free one with --conn-qual Q (perf listens on Q and Q + 1)"), r.err());
        }
    }

    @Test
    void corruptedEchoIsDetectedAndBothSidesStop() {
        PerfConfig c = config(qual());
        int openBefore = Registry.openCount("mem");
        StringWriter out = new StringWriter();
        ToolFailure f = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThrows(ToolFailure.class,
                () -> PerfRun.run(c, new ResultTable(new PrintWriter(out), c), List.of(new CorruptingEcho()))));
        assertTrue(f.getMessage().startsWith("data verification failed: client: RDMA write ping-pong 64 B echo"),
                f.getMessage());
        assertEquals(openBefore, Registry.openCount("mem"), "IAs left open after a failure");
    }

    @Test
    void serverFailureAbortsTheWaitingClient() {
        PerfConfig c = config(qual());
        SendPingPong real = new SendPingPong(64);
        Measurement failing = new Measurement() {
            @Override
            public String operation() {
                return real.operation();
            }

            @Override
            public long size() {
                return 64;
            }

            @Override
            public void server(PerfSession s) {
                throw new ToolFailure("injected server failure");
            }

            @Override
            public PerfResult client(PerfSession s) {
                return real.client(s);
            }
        };
        StringWriter out = new StringWriter();
        long t0 = System.nanoTime();
        ToolFailure f = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThrows(ToolFailure.class,
                () -> PerfRun.run(c, new ResultTable(new PrintWriter(out), c), List.of(failing))));
        assertEquals("injected server failure", f.getMessage());
        assertTrue(System.nanoTime() - t0 < 4_000_000_000L, "the client waited for its timeout instead of aborting");
    }

    private static PerfConfig config(String qual) {
        return new PerfConfig("mem", Long.parseLong(qual), List.of(64L), 10, 100, 64 * 1024, 1 << 20, 4, 5);
    }

    /** The server of an RDMA write ping-pong that echoes the first payload with one wrong word. */
    static final class CorruptingEcho implements Measurement {
        private final WritePingPong real = new WritePingPong(64);

        @Override
        public String operation() {
            return real.operation();
        }

        @Override
        public long size() {
            return 64;
        }

        @Override
        public void server(PerfSession s) {
            MemorySegment m = s.mem();
            long off = s.layout.small(1);
            m.asSlice(off, 64).fill((byte) 0);
            s.sync.await("ready");
            s.poller.awaitWord(m, off + 56, 1, "first write");
            m.set(ValueLayout.JAVA_LONG, off + 16, 0xBADL);
            s.ep().postRdmaWrite(1, s.iov(off, 64), 0, s.remote(off, 64), CompletionFlags.SUPPRESS);
            s.sync.await("done");
        }

        @Override
        public PerfResult client(PerfSession s) {
            return real.client(s);
        }
    }
}
