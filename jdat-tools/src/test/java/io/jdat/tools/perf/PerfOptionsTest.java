package io.jdat.tools.perf;

import static io.jdat.tools.cli.ToolRun.jdat;
import static io.jdat.tools.perf.PerfCommandTest.assertRow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.DatException;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.InterfaceAdapter;
import io.jdat.Registry;
import io.jdat.tools.cli.Seconds;
import io.jdat.tools.cli.Sizes;
import io.jdat.tools.cli.ToolFailure;
import io.jdat.tools.cli.ToolRun;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** {@code jdat perf}'s selection, size, duration, waiting, verification and output options. */
class PerfOptionsTest {
    /**
     * Qualifiers (tcp ports) for the runs: below Linux's ephemeral range (32768-60999), where an outgoing connection
     * of any process may hold one, and two apart, since a run listens on Q and Q + 1.
     */
    private static final AtomicLong QUALS = new AtomicLong(26_000);
    private static final Duration LIMIT = Duration.ofSeconds(60);
    /** Short latency and bandwidth settings. */
    private static final List<String> SHORT = List.of("-n", "200", "--warmup", "20", "--bw-bytes", "1M", "--window", "4");

    private static String qual() {
        return Long.toString(QUALS.getAndAdd(2));
    }

    /** Runs {@code jdat perf} with {@code args} on a fresh qualifier and expects success. */
    private static ToolRun.Run perf(String... args) {
        List<String> all = new ArrayList<>(List.of("perf", "--conn-qual", qual()));
        all.addAll(List.of(args));
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat(all.toArray(String[]::new)));
        assertEquals(0, r.exitCode(), () -> String.join(" ", all) + "\nstdout:\n" + r.out() + "\nstderr:\n" + r.err());
        return r;
    }

    private static List<String> with(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }

    /** The table rows (operation and size) in output order. */
    private static List<String> rows(String out) {
        List<String> rows = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^((?:send|RDMA)[a-zA-Z/ -]+?)\\s{2,}([0-9]+ [KMG]?i?B)\\s").matcher(out);
        while (m.find()) {
            rows.add(m.group(1).strip() + " " + m.group(2));
        }
        return rows;
    }

    private static double field(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\":([0-9.]+)").matcher(json);
        assertTrue(m.find(), name + " in " + json);
        return Double.parseDouble(m.group(1));
    }

    // ------------------------------------------------------------------------------------------ parsing

    @Test
    void sizesTakeOneSizeListsSuffixesAndSweeps() {
        assertEquals(List.of(4096L), Sizes.parseList(List.of("4K")));
        assertEquals(List.of(64L, 4096L, 1L << 20, 1L << 30), Sizes.parseList(List.of("64", "4KiB", "1M", "1G")));
        assertEquals(List.of(8L, 16L, 32L, 64L), Sizes.parseList(List.of("8..64")));
        assertEquals(List.of(1024L, 2048L, 4096L, 64L), Sizes.parseList(List.of("1K..4K", "64", "2K")),
                "sweeps and sizes mix; duplicates are dropped, the order is kept");
        assertEquals(List.of(64L, 128L, 256L, 512L), Sizes.parseList(List.of("64..1000")), "doubles up to TO");
        assertEquals(List.of(64L), Sizes.parseList(List.of("64..64")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"4X|not a byte size", "64..8|1 <= FROM <= TO", "0..8|1 <= FROM <= TO",
            "8..1Q|not a sweep", "..64|not a sweep"})
    void badSizeItemsAreRejectedWithTheReason(String item, String reason) {
        CommandLine.TypeConversionException e = assertThrows(CommandLine.TypeConversionException.class,
                () -> Sizes.parseList(List.of(item)));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void durationsTakeSecondsAndUnits() {
        assertEquals(2_000_000_000L, Seconds.parse("2"));
        assertEquals(1_500_000_000L, Seconds.parse("1.5s"));
        assertEquals(500_000_000L, Seconds.parse("500ms"));
        assertEquals(60_000_000_000L, Seconds.parse("1m"));
        assertThrows(CommandLine.TypeConversionException.class, () -> Seconds.parse("2h"));
        assertEquals("0.25 s", Seconds.format(250_000_000L));
    }

    @Test
    void opAndTestNamesTakeTheAliasesOfJdatTest() {
        assertEquals(PerfOp.SEND, PerfOp.parse("sr"));
        assertEquals(PerfOp.RDMA_WRITE, PerfOp.parse("Write"));
        assertEquals(PerfOp.RDMA_WRITE, PerfOp.parse("rw"));
        assertEquals(PerfOp.RDMA_READ, PerfOp.parse("rdma-read"));
        assertEquals(PerfTest.BANDWIDTH, PerfTest.parse("bw"));
        assertEquals(PerfTest.LATENCY, PerfTest.parse("LATENCY"));
    }

    /**
     * The warm-up goes on, a round of its size at a time, while the JIT compiles (issue 18), at most
     * {@link Rounds#MAX_EXTRA_WARMUP_MILLIS} more; a warm-up of 0 is not extended.
     */
    @Test
    void warmUpGoesOnWhileTheJitCompiles() {
        long[] jit = {100};
        Rounds r = new Rounds(20, 0, 1000, 0, 256, () -> jit[0]);
        assertEquals(20, r.next(0));
        jit[0] += 5; // compiled during the planned warm-up
        assertEquals(20, r.next(1_000_000));
        assertFalse(r.measuring());
        jit[0] += 1; // and during the extra round
        assertEquals(20, r.next(1_000_000));
        assertFalse(r.measuring());
        assertEquals(1000, r.next(1_000_000)); // quiet: the measured part
        assertTrue(r.measuring());
        assertEquals(0, r.next(1));

        Rounds capped = new Rounds(20, 0, 1000, 0, 256, () -> jit[0]++);
        int extra = -1;
        for (long n = capped.next(0); !capped.measuring(); n = capped.next(1_000_000_000L)) {
            extra++;
        }
        assertEquals(Rounds.MAX_EXTRA_WARMUP_MILLIS / 1000, extra, "extra rounds of 1 s");

        Rounds none = new Rounds(0, 0, 1000, 0, 256, () -> jit[0]++);
        assertEquals(1000, none.next(0));
        assertTrue(none.measuring());
    }

    /** Only the first measured round is marked as such (the warm-up's samples are dropped there). */
    @Test
    void firstMeasuredIsTheFirstRoundAfterTheWarmUp() {
        Rounds counted = new Rounds(20, 0, 1000, 0, 256, () -> -1);
        counted.next(0);
        assertFalse(counted.firstMeasured());
        counted.next(1);
        assertTrue(counted.measuring() && counted.firstMeasured());
        Rounds timed = new Rounds(20, 0, 0, 1_000_000_000L, 256, () -> -1);
        timed.next(0);
        assertFalse(timed.firstMeasured());
        int first = 0;
        int measured = 0;
        for (long n = timed.next(1000); n > 0; n = timed.next(n * 1000)) {
            measured++;
            first += timed.firstMeasured() ? 1 : 0;
        }
        assertTrue(measured > 1, measured + " rounds");
        assertEquals(1, first);
    }

    /** A round runs in consecutive chunks of at most Rounds.CHUNK iterations that cover it exactly, in order. */
    @Test
    void roundsRunInChunksThatCoverTheRound() {
        List<long[]> calls = new ArrayList<>();
        assertEquals(45, Rounds.run(5, 45, (from, to, end) -> calls.add(new long[] {from, to, end})));
        long next = 5;
        for (long[] c : calls) {
            assertEquals(next, c[0]);
            assertTrue(c[1] > c[0] && c[1] - c[0] <= Rounds.CHUNK, c[0] + ".." + c[1]);
            assertEquals(45, c[2]);
            next = c[1];
        }
        assertEquals(45, next);
        assertEquals((40 + Rounds.CHUNK - 1) / Rounds.CHUNK, calls.size());
        calls.clear();
        assertEquals(7, Rounds.run(7, 7, (from, to, end) -> calls.add(new long[] {from, to, end})));
        assertTrue(calls.isEmpty());
    }

    /** A timed schedule ends at the budget; a counted one is warm-up, count, end. */
    @Test
    void roundsFollowTheCountOrFillTheDuration() {
        Rounds counted = new Rounds(20, 0, 1000, 0, 256, () -> -1);
        assertEquals(20, counted.next(0));
        assertFalse(counted.measuring());
        assertEquals(1000, counted.next(123));
        assertTrue(counted.measuring());
        assertEquals(0, counted.next(456));

        long budget = 1_000_000_000L;
        Rounds timed = new Rounds(0, 0, 0, budget, 256, () -> -1);
        long measured = 0;
        int rounds = 0;
        for (long n = timed.next(0); n > 0; n = timed.next(n * 1000)) { // 1 µs per iteration
            assertTrue(timed.measuring());
            assertTrue(n * 1000 <= Rounds.TARGET_MILLIS * 1_000_000L + 1000, "round of " + n);
            measured += n * 1000;
            rounds++;
        }
        assertTrue(measured >= budget && measured < budget + 10_000_000L, measured + " ns in " + rounds + " rounds");
    }

    /**
     * A stream warms up with an eighth of its count (at least two windows) unless {@code --bw-warmup} names the
     * count, 0 included; with a duration the given count replaces the tenth of the time.
     */
    @Test
    void bandwidthWarmUpIsAnEighthUnlessGiven() {
        PerfConfig eighth = bwConfig(1 << 20, 0, -1); // 1 MiB of 64 B: 16,384 transfers
        assertEquals(List.of(2048L, 16384L), schedule(Rounds.bandwidth(eighth, 64)));
        assertEquals(List.of(5000L, 16384L), schedule(Rounds.bandwidth(bwConfig(1 << 20, 0, 5000), 64)));
        assertEquals(List.of(16384L), schedule(Rounds.bandwidth(bwConfig(1 << 20, 0, 0), 64)));
        Rounds timed = Rounds.bandwidth(bwConfig(1 << 20, 1_000_000_000L, 300), 64);
        assertEquals(300, timed.next(0));
        assertFalse(timed.measuring());
    }

    private static PerfConfig bwConfig(long bwBytes, long durationNanos, long bwWarmup) {
        return new PerfConfig("mem", 1, List.of(64L), 10, 100, List.of(64L), bwBytes, 4, 5,
                java.util.EnumSet.of(PerfOp.RDMA_WRITE), java.util.EnumSet.of(PerfTest.BANDWIDTH), durationNanos,
                false, true, false, false, 0, bwWarmup, false);
    }

    /**
     * The rounds of a counted schedule: the warm-up as one entry (its rounds summed; the JIT may extend it by
     * rounds of its size), then the measured rounds.
     */
    private static List<Long> schedule(Rounds r) {
        List<Long> out = new ArrayList<>();
        long warm = 0;
        for (long n = r.next(0); n > 0; n = r.next(1)) {
            if (r.measuring()) {
                out.add(n);
            } else {
                warm = warm == 0 ? n : warm; // a JIT extension repeats the planned size
            }
        }
        if (warm > 0) {
            out.addFirst(warm);
        }
        return out;
    }

    @Test
    void bandwidthWarmUpIsInTheHeaderAndTheJson() {
        ToolRun.Run r = perf("--op", "rdma-write", "--test", "bandwidth", "--bw-size", "16K", "--bw-bytes", "1M",
                "--window", "4", "--bw-warmup", "1000");
        assertTrue(r.out().contains("4 outstanding, an event every 1 + 1,000 warm-up transfers"), r.out());
        ToolRun.Run j = perf("--op", "rdma-write", "--test", "bandwidth", "--bw-size", "16K", "--bw-bytes", "1M",
                "--window", "4", "--bw-warmup", "0", "--json");
        assertTrue(j.out().contains("\"bw_warmup\":0,"), j.out());
        ToolRun.Run d = perf("--op", "rdma-write", "--test", "bandwidth", "--bw-size", "16K", "--bw-bytes", "1M",
                "--window", "4", "--json");
        assertTrue(d.out().contains("\"bw_warmup\":null,"), d.out());
    }

    // ------------------------------------------------------------------------------------------ usage errors

    static List<List<String>> usageErrors() {
        return List.of(
                List.of("--sizes", "12", "multiple of 8"),
                List.of("--sizes", "4X", "--sizes: '4X' is not a byte size"),
                List.of("--sizes", "64..8", "not a sweep"),
                List.of("--op", "fly", "use send, rdma-write or rdma-read"),
                List.of("--test", "speed", "use latency or bandwidth"),
                List.of("--duration", "1", "-n", "10", "--duration and --iterations exclude each other"),
                List.of("--duration", "1", "--bw-bytes", "1M", "--duration and --bw-bytes exclude each other"),
                List.of("--duration", "2h", "not a duration"),
                List.of("--poll", "--wait", "--poll and --wait exclude each other"),
                List.of("--server", "--sizes", "64", "--server takes its settings from the client: drop --sizes"),
                List.of("--accept-timeout", "5", "--accept-timeout applies to --server only"),
                List.of("--test", "latency", "--bw-size", "64K", "--bw-size sets the bandwidth tests"),
                List.of("--test", "bandwidth", "-n", "10", "--iterations sets the latency tests"),
                List.of("--test", "bandwidth", "--sizes", "64", "--bw-size", "64", "drop one"),
                List.of("--test", "bandwidth", "--sizes", "8", "--sizes: 8 is not a multiple of 8 of at least 16"),
                List.of("--bw-size", "64K", "--window", "2000", "--window must be 1..1024"),
                List.of("--server", "--wait", "30", "use --accept-timeout 30"),
                List.of("--memory", "shared", "use it with an shm IA (--ia shm)"),
                List.of("--ia", "shm", "--memory", "huge", "--memory is native or shared, not huge"),
                List.of("--server", "--ia", "shm", "--memory", "shared", "drop --memory here"),
                List.of("--buffers", "many", "--buffers is one (a buffer pair, the default) or per-op"),
                List.of("--test", "latency", "--buffers", "per-op", "--buffers sets the bandwidth tests"),
                List.of("--server", "--buffers", "per-op", "drop --buffers here"),
                List.of("--buffers", "per-op", "--window", "1024", "needs more than 1 GiB of memory per side"),
                List.of("--signal-every", "2000", "--signal-every must be 1..1024"),
                List.of("--test", "latency", "--signal-every", "4", "--signal-every sets the bandwidth tests"),
                List.of("--server", "--signal-every", "4", "drop --signal-every here"),
                List.of("--bw-warmup", "-1", "--bw-warmup must not be negative"),
                List.of("--test", "latency", "--bw-warmup", "100", "--bw-warmup sets the bandwidth tests"),
                List.of("--server", "--bw-warmup", "100", "drop --bw-warmup here"),
                List.of("--cpu", "0", "--cpu takes two CPUs when both sides run in this JVM"),
                List.of("--server", "--cpu", "0,1", "--cpu takes one CPU with --server or --client"),
                List.of("--cpu", "1023,0", "--cpu 1023: not a CPU this process may run on (it may run on "));
    }

    /** Each user error: exit code 2, one line on stderr that names the problem, no stack trace, no output. */
    @ParameterizedTest
    @MethodSource("usageErrors")
    void userErrorsAreOneLineAndExitCode2(List<String> argsAndMessage) {
        List<String> args = new ArrayList<>(List.of("perf"));
        args.addAll(argsAndMessage.subList(0, argsAndMessage.size() - 1));
        String message = argsAndMessage.getLast();
        ToolRun.Run r = jdat(args.toArray(String[]::new));
        assertEquals(2, r.exitCode(), () -> args + ": " + r.err());
        assertEquals(1, r.err().lines().count(), () -> args + ": " + r.err());
        assertTrue(r.err().startsWith("jdat perf: "), r.err());
        assertTrue(r.err().contains(message), () -> args + ": " + r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        assertEquals("", r.out());
    }

    @Test
    void jdatTxUsesTheSameNamesAcceptTimeoutAndWait() {
        ToolRun.Run old = jdat("tx", "--server", "--wait", "30");
        assertEquals(2, old.exitCode(), old.err());
        assertEquals(1, old.err().lines().count(), old.err());
        assertTrue(old.err().contains("use --accept-timeout 30"), old.err());
        ToolRun.Run both = jdat("tx", "--poll", "--wait");
        assertEquals(2, both.exitCode(), both.err());
        assertTrue(both.err().contains("--poll and --wait exclude each other"), both.err());
        ToolRun.Run run = assertTimeoutPreemptively(LIMIT, () -> jdat("tx", "--wait", "-i", "3",
                "--op", "send:1x64", "--conn-qual", qual()));
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("waiting (dat_evd_wait)"), run.out());
        ToolRun.Run help = jdat("tx", "--help");
        assertTrue(help.out().contains("--accept-timeout=SECONDS"), help.out());
        assertTrue(help.out().contains("--wait "), help.out());
    }

    @Test
    void helpDescribesTheOptions() {
        ToolRun.Run r = jdat("perf", "--help");
        assertEquals(0, r.exitCode());
        for (String s : List.of("--op=OP", "--test=TEST", "--sizes=SIZES", "FROM..TO", "--duration=TIME", "--wait",
                "--poll", "--no-verify", "--accept-timeout=SECONDS", "p99.9", "Exit code 0")) {
            assertTrue(r.out().contains(s), s + " in\n" + r.out());
        }
    }

    // ------------------------------------------------------------------------------------------ runs

    /** Every operation alone, as latency and as bandwidth: exactly its row, its data verified. */
    @ParameterizedTest(name = "--op {0} --test {1}")
    @CsvSource({"send, latency, send/recv ping-pong, 64 B", "rdma-write, latency, RDMA write ping-pong, 64 B",
            "rdma-read, latency, RDMA read, 64 B", "send, bandwidth, send stream, 64 KiB",
            "rdma-write, bandwidth, RDMA write stream, 64 KiB", "rdma-read, bandwidth, RDMA read stream, 64 KiB"})
    void eachOperationAndTestRunsAlone(String op, String test, String operation, String size) {
        boolean bandwidth = test.equals("bandwidth");
        List<String> args = new ArrayList<>(List.of("--op", op, "--test", test));
        args.addAll(bandwidth ? List.of("--bw-size", "64K", "--bw-bytes", "1M", "--window", "4")
                : List.of("-n", "200", "--warmup", "20"));
        ToolRun.Run r = perf(args.toArray(String[]::new));
        assertEquals(List.of(operation + " " + size), rows(r.out()), r.out());
        assertRow(r.out(), operation, size, bandwidth);
        assertTrue(r.out().contains("polling (dat_evd_dequeue); data verified"), r.out());
        assertTrue(r.out().contains("Every transfer was verified"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void aSweepRunsEverySizeAndOpsCombine() {
        ToolRun.Run r = perf("-n", "200", "--warmup", "20", "--op", "send,rr", "--test", "lat", "--sizes",
                "8..64");
        assertEquals(List.of("send/recv ping-pong 8 B", "send/recv ping-pong 16 B", "send/recv ping-pong 32 B",
                "send/recv ping-pong 64 B", "RDMA read 8 B", "RDMA read 16 B", "RDMA read 32 B", "RDMA read 64 B"),
                rows(r.out()), r.out());
    }

    @Test
    void bandwidthAloneTakesTheSizesOfSizes() {
        ToolRun.Run r = perf("--test", "bandwidth", "--op", "rdma-write", "--sizes", "16K,64K", "--bw-bytes",
                "1M", "--window", "4");
        assertEquals(List.of("RDMA write stream 16 KiB", "RDMA write stream 64 KiB"), rows(r.out()), r.out());
        assertFalse(r.out().contains("latency:"), r.out());
        assertTrue(r.out().contains("bandwidth: 1 MiB per test, 4 outstanding"), r.out());
    }

    @Test
    void durationMeasuresLatencyForAboutThatLong() {
        long t0 = System.nanoTime();
        ToolRun.Run r = perf("--op", "rdma-read", "--test", "latency", "--duration", "300ms", "--warmup", "100",
                "--json");
        long took = System.nanoTime() - t0;
        String json = r.out().strip();
        assertTrue(json.contains("\"duration_s\":0.300"), json);
        assertTrue(field(json, "count") >= 100, json);
        assertTrue(took >= 300_000_000L, "the run took " + took + " ns");
    }

    @Test
    void durationMeasuresBandwidthForAboutThatLong() {
        long t0 = System.nanoTime();
        ToolRun.Run r = perf("--op", "send", "--test", "bandwidth", "--bw-size", "4K", "--window", "4",
                "--duration", "0.3", "--json");
        long took = System.nanoTime() - t0;
        String json = r.out().strip();
        // a tenth of the time warms up, then the measured rounds fill the duration
        assertTrue(took >= 330_000_000L, "the run took " + took + " ns");
        assertTrue(field(json, "count") > 4, json);
        assertTrue(field(json, "mb_per_s") > 0, json);
    }

    @Test
    void waitModeReapsWithEvdWaitAndSaysSo() {
        ToolRun.Run r = perf(with(SHORT, "--wait", "--sizes", "64", "--bw-size", "16K").toArray(String[]::new));
        assertTrue(r.out().contains("waiting (dat_evd_wait); data verified"), r.out());
        assertEquals(6, rows(r.out()).size(), r.out());
        ToolRun.Run j = perf("--wait", "--op", "send", "--test", "latency", "-n", "100", "--json");
        assertTrue(j.out().contains("\"completions\":\"wait\""), j.out());
    }

    /** In wait mode the poller blocks in dat_evd_wait: the EVD has a waiter, so a dequeue elsewhere is refused. */
    @Test
    void waitModePollerOwnsTheEvdWhileWaiting() throws Exception {
        try (InterfaceAdapter ia = InterfaceAdapter.open("mem", 16, null)) {
            EventDispatcher evd = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            Poller poller = new Poller("client", new Sync(), 2_000_000_000L, true);
            CompletableFuture<Throwable> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    poller.dto(evd, 0, 8, "nothing");
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            boolean refused = false;
            long deadline = System.nanoTime() + 1_500_000_000L;
            while (!refused && System.nanoTime() < deadline) {
                try {
                    evd.dequeue(new io.jdat.DatEvent());
                    Thread.sleep(5);
                } catch (DatException e) {
                    refused = e.getMessage().contains("waits on this EVD");
                }
            }
            assertTrue(refused, "no dat_evd_wait waiter was seen");
            Throwable t = waiting.get(10, TimeUnit.SECONDS);
            assertTrue(t instanceof ToolFailure && t.getMessage().contains("nothing arrived within 2 s"), "" + t);
        }
    }

    @Test
    void jsonCarriesP999MaxAndTheSettings() {
        ToolRun.Run r = perf("--op", "send", "--test", "latency", "-n", "2000", "--warmup", "100", "--json");
        String json = r.out().strip();
        assertEquals(1, json.lines().count(), json);
        assertTrue(json.contains("\"tests\":[\"latency\"],\"ops\":[\"send\"],\"completions\":\"poll\","
                + "\"verified\":true"), json);
        assertTrue(json.contains("\"count\":2000,"), json);
        double median = field(json, "median_us");
        double p99 = field(json, "p99_us");
        double p999 = field(json, "p999_us");
        double max = field(json, "max_us");
        assertTrue(median > 0 && median <= p99 && p99 <= p999 && p999 <= max, json);
    }

    @Test
    void tableHasP999AndMaxColumnsInOrder() {
        ToolRun.Run r = perf("--op", "rdma-write", "--test", "latency", "-n", "2000", "--warmup", "100");
        assertTrue(Pattern.compile("(?m)^operation\\s+size\\s+min \\S+\\s+median \\S+\\s+avg \\S+\\s+stdev \\S+\\s+"
                + "p99 \\S+\\s+p99\\.9 \\S+\\s+max \\S+\\s+MB/s\\s+msg/s\\s+CPU \\S+/msg$").matcher(r.out()).find(),
                r.out());
        String num = "([0-9.,]+)\\s+";
        Matcher m = Pattern.compile("(?m)^RDMA write ping-pong\\s+64 B\\s+" + num.repeat(7) + "-\\s+[0-9.,]+\\s+[0-9.,]+$")
                .matcher(r.out());
        assertTrue(m.find(), r.out());
        double[] v = new double[7];
        for (int i = 0; i < 7; i++) {
            v[i] = Double.parseDouble(m.group(i + 1).replace(",", ""));
        }
        // min <= median <= p99 <= p99.9 <= max; min <= avg <= max
        assertTrue(v[0] <= v[1] && v[1] <= v[4] && v[4] <= v[5] && v[5] <= v[6], m.group());
        assertTrue(v[0] <= v[2] && v[2] <= v[6], m.group());
        assertTrue(r.out().contains("min/median/avg/stdev/p99/p99.9/max: one-way latency"), r.out());
    }

    @Test
    void noVerifyRunsAndSaysTheDataWasNotChecked() {
        ToolRun.Run r = perf(with(SHORT, "--no-verify", "--bw-size", "16K").toArray(String[]::new));
        assertEquals(6, rows(r.out()).size(), r.out());
        assertTrue(r.out().contains("data not verified (--no-verify)"), r.out());
        assertTrue(r.out().contains("Data was not verified (--no-verify)."), r.out());
        ToolRun.Run j = perf("--no-verify", "--op", "read", "--test", "bw", "--bw-size", "16K", "--bw-bytes",
                "1M", "--json");
        assertTrue(j.out().contains("\"verified\":false"), j.out());
    }

    /** Without verification a corrupted echo goes unnoticed; with it (the default) the run fails. */
    @Test
    void noVerifyReallySkipsTheChecks() {
        PerfConfig verified = new PerfConfig("mem", QUALS.getAndAdd(2), List.of(64L), 10, 100, 64 * 1024, 1 << 20,
                4, 5);
        PerfConfig unverified = new PerfConfig("mem", QUALS.getAndAdd(2), List.of(64L), 10, 100,
                List.of(64 * 1024L), 1 << 20, 4, 5, EnumSet.allOf(PerfOp.class), EnumSet.allOf(PerfTest.class), 0,
                false, false, false, false, 0, -1, false);
        StringWriter out = new StringWriter();
        ToolFailure f = assertThrows(ToolFailure.class, () -> assertTimeoutPreemptively(LIMIT, () -> PerfRun.run(
                verified, new ResultTable(new PrintWriter(out), verified), List.of(new CorruptEveryEcho()))));
        assertTrue(f.getMessage().startsWith("data verification failed: client: RDMA write ping-pong 64 B echo"),
                f.getMessage());
        assertTimeoutPreemptively(LIMIT, () -> PerfRun.run(unverified, new ResultTable(new PrintWriter(out),
                unverified), List.of(new CorruptEveryEcho())));
    }

    /** The server of an RDMA write ping-pong that echoes every payload with one wrong word. */
    static final class CorruptEveryEcho implements Measurement {
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
            long[] off = {s.layout.small(1), s.layout.small(2)};
            m.asSlice(off[0], 2 * s.layout.smallSlot()).fill((byte) 0);
            long i = 0;
            for (long n = s.sync.learn("ready"); n > 0; n = s.sync.learn("round")) {
                for (long end = i + n; i < end; i++) {
                    int j = (int) (i & 1);
                    s.poller.awaitWord(m, off[j] + 56, i + 1, "write", s.side.reqEvd);
                    m.set(ValueLayout.JAVA_LONG, off[j] + 16, 0xBADL);
                    s.ep().postRdmaWrite(1, s.iov(off[j], 64), i, s.remote(off[j], 64), CompletionFlags.SUPPRESS);
                }
            }
            s.sync.await("done");
        }

        @Override
        public PerfResult client(PerfSession s) {
            return real.client(s);
        }
    }

    // ------------------------------------------------------------------------------------------ buffers, CPU

    /**
     * Issue 18: the streams use one buffer pair unless {@code --buffers per-op} asks for a buffer per outstanding
     * transfer, as the peers' tools do; the large window that per-op cannot fit in 1 GiB runs with one pair.
     */
    @Test
    void buffersDefaultToOnePairLikeThePeers() {
        PerfCommand one = parse("--bw-size", "1M", "--window", "1024");
        assertFalse(one.config().perOpBuffers());
        assertEquals(new BufferLayout(256, 1 << 20, 1), BufferLayout.of(one.config()));
        PerfConfig perOp = parse("--buffers", "per-op", "--bw-size", "64K", "--window", "8").config();
        assertTrue(perOp.perOpBuffers());
        assertEquals(17, BufferLayout.of(perOp).bulkSlots());
        assertEquals(0, BufferLayout.of(parse("--test", "latency").config()).bulkSlots());
        // four latency slots and the control slot come before the bulk slots
        assertEquals(5 * 256, BufferLayout.of(perOp).bulk(0));
    }

    private static PerfCommand parse(String... args) {
        PerfCommand c = new PerfCommand();
        new CommandLine(c).parseArgs(args);
        return c;
    }

    /**
     * Every stream runs verified with one buffer pair (the default) and with a buffer per transfer, on mem (in one
     * JVM: the serving thread polls until the client's end mark) and shm; the table, CSV and JSON say which.
     */
    @ParameterizedTest
    @CsvSource({"mem,one", "mem,per-op", "shm,one", "shm,per-op"})
    void streamsRunVerifiedWithEitherBufferLayout(String ia, String buffers) {
        List<String> bw = List.of("--bw-bytes", "1M", "--window", "4");
        ToolRun.Run r = perf(with(bw, "--ia", ia, "--buffers", buffers, "--test", "bandwidth", "--bw-size", "16K,64K")
                .toArray(String[]::new));
        assertEquals(List.of("RDMA write stream 16 KiB", "RDMA write stream 64 KiB", "RDMA read stream 16 KiB",
                "RDMA read stream 64 KiB", "send stream 16 KiB", "send stream 64 KiB"), rows(r.out()), r.out());
        assertTrue(r.out().contains(buffers.equals("one")
                ? "streams: one buffer pair, reused by every transfer (as ucx_perftest and fi_pingpong"
                : "streams: a buffer per outstanding transfer (--buffers per-op, out of cache)"), r.out());
        assertTrue(r.out().contains("the serving side polls"), r.out());
        ToolRun.Run j = perf(with(bw, "--ia", ia, "--buffers", buffers, "--op", "write", "--test", "bw",
                "--bw-size", "64K", "--json").toArray(String[]::new));
        assertTrue(j.out().contains("\"buffers\":\"" + buffers + "\",\"serving_side\":\"polls\""), j.out());
        ToolRun.Run c = perf(with(SHORT, "--ia", ia, "--buffers", buffers, "--op", "read", "--bw-size", "64K",
                "--csv").toArray(String[]::new));
        assertTrue(c.out().lines().skip(1).allMatch(l -> l.endsWith(",poll," + buffers)), c.out());
    }

    /**
     * Issue 17: the streams post every n-th transfer with an event and the others SUPPRESSed (as ib_write_bw's
     * cq_mod); with an interval that divides the window, one that does not, and 1 (every transfer an event), every
     * stream still completes verified on mem, shm and tcp, with each buffer layout; the settings say the interval,
     * and by default it is 1 (an event per transfer).
     */
    @ParameterizedTest(name = "--ia {0} --signal-every {1} --buffers {2}")
    @CsvSource({"mem,3,one", "mem,4,per-op", "mem,1,per-op", "shm,3,per-op", "shm,8,one", "tcp,3,per-op", "tcp,4,one"})
    void streamsWithSelectiveSignallingRunVerified(String ia, int every, String buffers) {
        ToolRun.Run r = perf("--ia", ia, "--test", "bandwidth", "--bw-size", "16K", "--bw-bytes", "1M", "--window",
                "8", "--buffers", buffers, "--signal-every", Integer.toString(every));
        assertEquals(List.of("RDMA write stream 16 KiB", "RDMA read stream 16 KiB", "send stream 16 KiB"),
                rows(r.out()), r.out());
        assertTrue(r.out().contains("8 outstanding, an event every " + every), r.out());
        assertTrue(r.out().contains("Every transfer was verified"), r.out());
        assertEquals("", r.err());
        assertTrue(perf("--ia", ia, "--op", "write", "--test", "bw", "--bw-size", "16K", "--bw-bytes", "256K",
                "--window", "8").out().contains("8 outstanding, an event every 1"), "the default: every transfer");
    }

    /** A 64 KiB RDMA write stream whose server is the real one and whose client a test writes. */
    abstract static class ServedWriteStream implements Measurement {
        final Stream real = new Stream(Stream.Kind.WRITE, 64 * 1024);

        @Override
        public String operation() {
            return real.operation();
        }

        @Override
        public long size() {
            return real.size();
        }

        @Override
        public void server(PerfSession s) {
            real.server(s);
        }
    }

    /** A stream whose writes never reach the one target buffer fails verification (the server checks it). */
    @Test
    void onePairVerificationSeesAMissingWrite() {
        PerfConfig c = new PerfConfig("mem", QUALS.getAndAdd(2), List.of(64L), 10, 100, 64 * 1024, 1 << 20, 4, 5);
        StringWriter out = new StringWriter();
        ToolFailure f = assertThrows(ToolFailure.class, () -> assertTimeoutPreemptively(LIMIT, () -> PerfRun.run(c,
                new ResultTable(new PrintWriter(out), c), List.of(new WritesElsewhere()))));
        assertTrue(f.getMessage().startsWith("data verification failed: server: RDMA write stream 64 KiB (the buffer "
                + "after the round)"), f.getMessage());
    }

    /** An RDMA write stream whose client writes into the peer's control slot instead of its bulk buffer. */
    static final class WritesElsewhere extends ServedWriteStream {
        @Override
        public PerfResult client(PerfSession s) {
            long n = s.sync.decide("RDMA write stream 64 KiB round", 4);
            s.sync.await("RDMA write stream 64 KiB ready");
            for (long k = 0; k < n; k++) {
                s.ep().postRdmaWrite(1, s.iov(s.layout.bulk(0), 8), k, s.remote(s.layout.small(0), 8),
                        CompletionFlags.DEFAULT);
                s.poller.dto(s.side.reqEvd, k, 8, "write");
            }
            s.sendEndMark(s.nextMark());
            s.sync.await("RDMA write stream 64 KiB done");
            s.sync.await("RDMA write stream 64 KiB verified");
            s.sync.decide("RDMA write stream 64 KiB round", 0);
            return PerfResult.bandwidth(real.operation(), real.size(), n, 1);
        }
    }

    /**
     * The serving side polls for as long as a round takes, like the barrier it replaced: a round longer than the
     * timeout (a slow stream on a loaded machine) is no failure.
     */
    @Test
    void servingOutlastsTheTimeout() {
        PerfConfig c = new PerfConfig("mem", QUALS.getAndAdd(2), List.of(64L), 10, 100, List.of(64 * 1024L),
                1 << 20, 4, 1, EnumSet.of(PerfOp.RDMA_WRITE), EnumSet.of(PerfTest.BANDWIDTH), 0, false, false, false,
                false, 0, -1, false);
        StringWriter out = new StringWriter();
        assertTimeoutPreemptively(LIMIT, () -> PerfRun.run(c, new ResultTable(new PrintWriter(out), c),
                List.of(new SlowRound())));
    }

    /** An RDMA write stream whose one round takes 1.5 s, longer than a 1 s timeout. */
    static final class SlowRound extends ServedWriteStream {
        @Override
        public PerfResult client(PerfSession s) {
            s.sync.decide("round", 1);
            s.sync.await("ready");
            try {
                Thread.sleep(1500);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            s.ep().postRdmaWrite(1, s.iov(s.layout.bulk(0), 64 * 1024), 0, s.remote(s.layout.bulk(0), 64 * 1024),
                    CompletionFlags.DEFAULT);
            s.poller.dto(s.side.reqEvd, 0, 64 * 1024, "write");
            s.sendEndMark(s.nextMark());
            s.sync.await("done");
            s.sync.await("verified");
            s.sync.decide("round", 0);
            return PerfResult.bandwidth(real.operation(), real.size(), 1, 1);
        }
    }

    /**
     * Issue 17: {@code --server-idle park} makes the server of the one-sided tests (RDMA Read latency, RDMA Write and
     * Read streams) park between its looks (a passive target), and every row still completes verified (on
     * mem the client's transfers need no thread of the server's; on shm and tcp neither); the settings say so in
     * the table and the JSON. Anything but spin or park is a usage error.
     */
    @ParameterizedTest(name = "--ia {0}")
    @CsvSource({"mem", "shm", "tcp"})
    void serverIdleParkRunsTheOneSidedTestsVerified(String ia) {
        ToolRun.Run r = perf(with(SHORT, "--ia", ia, "--server-idle", "park", "--op", "write,read", "--sizes", "64",
                "--bw-size", "16K").toArray(String[]::new));
        assertEquals(List.of("RDMA write ping-pong 64 B", "RDMA read 64 B", "RDMA write stream 16 KiB",
                "RDMA read stream 16 KiB"), rows(r.out()), r.out());
        assertTrue(r.out().contains("the serving side parks in the one-sided tests (--server-idle park: a passive "
                + "target)"), r.out());
        assertTrue(r.out().contains("Every transfer was verified"), r.out());
        ToolRun.Run j = perf("--ia", ia, "--server-idle", "park", "--op", "read", "--test", "bw", "--bw-size", "16K",
                "--bw-bytes", "256K", "--window", "4", "--json");
        assertTrue(j.out().contains("\"serving_side\":\"parks\""), j.out());
        assertTrue(j.out().matches("(?s).*\"clock_ns_per_reading\":\\d+\\.\\d{3},\"clock_source\":(null|\"[^\"]+\").*"),
                j.out());
        ToolRun.Run bad = jdat("perf", "--server-idle", "sleep");
        assertEquals(2, bad.exitCode(), bad.out() + bad.err());
        assertTrue(bad.err().contains("--server-idle is spin (the default) or park, not sleep"), bad.err());
    }

    /**
     * The parking server's wait ({@link Poller#serveUntil} with {@code park}) leaves the CPU: its thread is seen
     * parked while the word is not there, and it returns once the word is written; the spinning one is never seen
     * parked.
     */
    @ParameterizedTest(name = "park {0}")
    @CsvSource({"true", "false"})
    void parkingServerParksUntilTheMark(boolean park) throws Exception {
        try (InterfaceAdapter ia = InterfaceAdapter.open("mem", 16, null);
                java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            EventDispatcher evd = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            MemorySegment word = arena.allocate(8, 8);
            Poller poller = new Poller("server", new Sync(), 2_000_000_000L);
            Thread server = Thread.ofPlatform().start(() -> poller.serveUntil(word, 0, 7, "test", evd, park));
            boolean seenParked = false;
            long end = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < end && !(seenParked && park)) {
                seenParked |= server.getState() == Thread.State.TIMED_WAITING;
                Thread.sleep(1);
            }
            assertEquals(park, seenParked, "the serving thread parked");
            assertTrue(server.isAlive(), "it returned before the mark");
            word.set(ValueLayout.JAVA_LONG, 0, 7);
            server.join(10_000);
            assertFalse(server.isAlive(), "the mark did not end the wait");
        }
    }

    /**
     * Issue 18: the CPU time per message is in every output: polling keeps both sides' threads busy, so a polled
     * ping-pong costs at least one one-way time of CPU per message; the JSON has it per row.
     */
    @Test
    void cpuPerMessageIsMeasured() {
        ToolRun.Run j = perf("--op", "send", "--test", "latency", "-n", "20000", "--warmup", "2000", "--no-verify",
                "--json");
        double cpu = field(j.out(), "cpu_us_per_msg");
        double median = field(j.out(), "median_us");
        assertTrue(cpu > 0 && cpu < 1e6, "cpu " + cpu + " µs/msg, one-way median " + median + ": " + j.out());
        ToolRun.Run w = perf("--op", "send", "--test", "latency", "-n", "2000", "--warmup", "200", "--wait");
        assertTrue(w.out().contains("CPU "), w.out());
        assertTrue(Pattern.compile("(?m)^send/recv ping-pong\\s+64 B(\\s+\\S+){9}\\s+[0-9][0-9,.]*$").matcher(w.out())
                .find(), "the CPU column of the wait row: " + w.out());
    }

    /**
     * In two processes the server's CPU time travels with the round barriers ({@link Sync#learn} sends it, {@link
     * Sync#decide} keeps it) and the meter adds the server's share of the measured rounds to this process's; a
     * server that sends none (an older version) makes the figure unknown rather than half of it.
     */
    @Test
    void cpuMeterAddsTheServersShareInTwoProcesses() {
        List<String> sent = new ArrayList<>();
        long[] serverCpu = {1_000_000_000L};
        Sync client = new Sync((phase, note) -> Long.toString(serverCpu[0]));
        CpuMeter meter = new CpuMeter(client);
        client.decide("round", 10);
        meter.round(true);
        serverCpu[0] += 3_000_000L; // the server's CPU time during the measured round
        client.decide("round", 0);
        meter.round(false);
        long both = meter.nanos();
        assertTrue(both >= 3_000_000L && both < 3_000_000L + 5_000_000_000L, Long.toString(both));
        Sync server = new Sync((phase, note) -> {
            sent.add(note);
            return "10";
        });
        assertEquals(10, server.learn("round"));
        assertTrue(Long.parseLong(sent.getFirst()) > 0, "the server sends its CPU time: " + sent);
        Sync old = new Sync((phase, note) -> "");
        CpuMeter unknown = new CpuMeter(old);
        old.decide("round", 10);
        unknown.round(true);
        old.decide("round", 0);
        unknown.round(false);
        assertEquals(-1, unknown.nanos());
        assertTrue(Double.isNaN(PerfResult.bandwidth("send stream", 64, 10, 1000).withCpu(-1).cpuMicrosPerMessage()));
    }

    /** The process CPU clock advances with this thread's work (at most 10 s of wall time on a loaded machine). */
    @Test
    void processCpuAdvancesWithWork() {
        long a = ProcessCpu.nanos();
        long b = a;
        long x = 0;
        for (long end = System.nanoTime() + 10_000_000_000L; b - a < 20_000_000L && System.nanoTime() < end; ) {
            x += System.nanoTime() & 1;
            b = ProcessCpu.nanos();
        }
        assertTrue(a > 0 && b - a >= 20_000_000L, a + " -> " + b + " (" + x + ")");
    }

    // ------------------------------------------------------------------------------------------ progress

    @Test
    void progressLineNamesEachMeasurementAndIsErased() {
        PerfConfig c = new PerfConfig("mem", QUALS.getAndAdd(2), List.of(64L), 100, 50_000, 64 * 1024, 1 << 20,
                4, 5);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Progress progress = new Progress(new PrintWriter(err), 0, 2);
        List<Measurement> plan = List.of(new SendPingPong(64), new ReadLatency(64));
        assertTimeoutPreemptively(LIMIT, () -> PerfRun.run(c, new ResultTable(new PrintWriter(out), c, false, false,
                progress), plan));
        String e = err.toString();
        assertTrue(e.contains("\rjdat perf: 1/2 send/recv ping-pong 64 B, "), e);
        assertTrue(e.contains("\rjdat perf: 2/2 RDMA read 64 B, "), e);
        assertTrue(e.matches("(?s).*\r *\r$"), "the line is erased at the end: " + e.replace('\r', '|'));
        assertFalse(out.toString().contains("jdat perf: 1/2"), "the progress line stays off standard output");
    }

    @Test
    void noProgressLineForShortRunsOrWithoutATerminal() {
        PerfConfig c = new PerfConfig("mem", QUALS.getAndAdd(2), List.of(64L), 10, 100, 64 * 1024, 1 << 20, 4, 5);
        StringWriter err = new StringWriter();
        Progress progress = new Progress(new PrintWriter(err), 60_000_000_000L, 2);
        assertTimeoutPreemptively(LIMIT, () -> PerfRun.run(c, new ResultTable(new PrintWriter(new StringWriter()), c,
                false, false, progress), List.of(new SendPingPong(64))));
        assertEquals("", err.toString());
        // The test JVM's standard streams are pipes, not a terminal.
        assertEquals(Progress.NONE, Progress.forTerminal(new PrintWriter(err)));
    }

    /**
     * {@code --memory shared}: every operation and test runs verified with both sides' buffers in DAT shared
     * memory, which the shm peer maps (the path {@code ShmDataPathTest} and the shm benchmarks check byte by byte);
     * the table and the JSON say so. It is the default on an shm IA; {@code --memory native} picks native memory.
     */
    @Test
    void sharedMemoryOnShm() {
        ToolRun.Run r = perf(with(SHORT, "--ia", "shm", "--memory", "shared", "--sizes", "64,4K",
                "--bw-size", "64K", "--json").toArray(String[]::new));
        assertTrue(r.out().contains("\"memory\":\"shared\""), r.out());
        assertTrue(r.out().contains("\"verified\":true"), r.out());
        assertEquals(9, r.out().split("\"operation\":").length - 1, r.out()); // 3 ops x 2 sizes + 3 streams
        ToolRun.Run table = perf(with(SHORT, "--ia", "shm", "--memory", "shared", "--op", "rdma-read")
                .toArray(String[]::new));
        assertTrue(table.out().contains("buffers in DAT shared memory (--memory shared)"), table.out());
        // shared is the default on an shm IA (as ucx_perftest's buffers with UCX_TLS=posix); native when asked
        ToolRun.Run plain = perf(with(SHORT, "--ia", "shm", "--op", "rdma-read", "--json")
                .toArray(String[]::new));
        assertTrue(plain.out().contains("\"memory\":\"shared\""), plain.out());
        ToolRun.Run nativeMemory = perf(with(SHORT, "--ia", "shm", "--memory", "native", "--op", "rdma-read")
                .toArray(String[]::new));
        assertTrue(nativeMemory.out().contains("buffers in native memory (--memory native)"), nativeMemory.out());
    }

    // ------------------------------------------------------------------------------------------ two processes

    /** The client's selection, duration, wait mode and verification travel to a two-process server. */
    @Test
    void serverRunsTheClientsOptionsOverTcp() throws Exception {
        String port = ToolRun.qual("tcp");
        CountDownLatch listening = new CountDownLatch(1);
        CompletableFuture<PerfConfig> server = CompletableFuture.supplyAsync(
                () -> PerfRun.runServer("tcp", Long.parseLong(port), 10, 30, a -> listening.countDown()));
        assertTrue(listening.await(30, TimeUnit.SECONDS), "the server did not listen");
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "--ia", "tcp", "--client",
                "127.0.0.1:" + port, "--op", "rdma-write,send", "--test", "latency", "--sizes", "64,128", "--duration",
                "200ms", "--warmup", "50", "--wait", "--no-verify"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        assertEquals(List.of("send/recv ping-pong 64 B", "send/recv ping-pong 128 B", "RDMA write ping-pong 64 B",
                "RDMA write ping-pong 128 B"), rows(r.out()), r.out());
        PerfConfig served = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> server.get());
        assertEquals(EnumSet.of(PerfOp.SEND, PerfOp.RDMA_WRITE), served.ops());
        assertEquals(EnumSet.of(PerfTest.LATENCY), served.tests());
        assertEquals(List.of(64L, 128L), served.sizes());
        assertEquals(200_000_000L, served.durationNanos());
        assertTrue(served.waitMode());
        assertFalse(served.verify());
        assertFalse(served.sharedMemory());
        assertFalse(served.perOpBuffers());
        assertEquals(0, Registry.openCount("tcp"));
    }

    /** A two-process shm server allocates DAT shared memory and a buffer per transfer when the client asks. */
    @Test
    void serverFollowsTheClientsMemoryOverShm() throws Exception {
        long qual = QUALS.getAndAdd(2);
        CompletableFuture<java.net.SocketAddress> address = new CompletableFuture<>();
        CompletableFuture<PerfConfig> server = CompletableFuture.supplyAsync(
                () -> PerfRun.runServer("shm", qual, 10, 30, address::complete));
        String path = ((java.net.UnixDomainSocketAddress) address.get(30, TimeUnit.SECONDS)).getPath().toString();
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "--ia", "shm", "--client", path,
                "--conn-qual", Long.toString(qual), "--memory", "shared", "--buffers", "per-op", "--op", "rdma-read,send",
                "-n", "100",
                "--warmup", "10", "--bw-bytes", "1M", "--window", "4", "--bw-size", "64K"));
        assertEquals(0, r.exitCode(), () -> r.out() + r.err());
        PerfConfig served = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> server.get());
        assertTrue(served.sharedMemory());
        assertTrue(served.verify());
        assertTrue(served.perOpBuffers());
        assertEquals(0, Registry.openCount("shm"));
    }
}
