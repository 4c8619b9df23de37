package io.jdat.tools.perf;

import static io.jdat.tools.cli.ToolRun.jdat;
import static io.jdat.tools.perf.PerfCommandTest.assertRow;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.tools.cli.Main;
import io.jdat.tools.cli.ToolRun;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 15 items 12 and 13: the columns RDMA users compare (min, average, standard deviation, message rate), the
 * perftest-style sweep {@code --sizes all}, {@code --csv}, {@code --hgrm DIR} and {@code --plot FILE}.
 */
class PerfOutputsTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void csvHasAHeaderAndOneConsistentLinePerRow() {
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "-n", "300", "--warmup", "20",
                "--sizes", "64,1K", "--bw-size", "64K", "--bw-bytes", "2M", "--window", "4", "--conn-qual",
                ToolRun.qual("mem"), "--csv"));
        assertEquals(0, r.exitCode(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals("operation,size_bytes,count,min_us,median_us,mean_us,stdev_us,p99_us,p999_us,max_us,mb_per_s,"
                + "msg_per_s,cpu_us_per_msg,completions,buffers", lines.getFirst());
        assertEquals(1 + 6 + 3, lines.size(), r.out());
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(15, f.length, line);
            assertTrue(d(f[12]) > 0, "CPU per message: " + line);
            assertEquals("poll", f[13], line);
            assertEquals("one", f[14], line);
            long size = Long.parseLong(f[1]);
            if (f[0].endsWith("stream")) {
                assertTrue(Stream.of(f).skip(3).limit(7).allMatch(String::isEmpty), line);
                double mbs = Double.parseDouble(f[10]);
                double rate = Double.parseDouble(f[11]);
                assertEquals(mbs * 1e6 / size, rate, rate * 0.01, line);
            } else {
                assertEquals(300, Long.parseLong(f[2]), line);
                double min = d(f[3]);
                double median = d(f[4]);
                double mean = d(f[5]);
                double stdev = d(f[6]);
                double p99 = d(f[7]);
                double p999 = d(f[8]);
                double max = d(f[9]);
                assertTrue(0 < min && min <= median && median <= p99 && p99 <= p999 && p999 <= max, line);
                assertTrue(min <= mean && mean <= max && stdev >= 0, line);
                assertEquals("", f[10], line);
                assertEquals(1e6 / mean, d(f[11]), 1e6 / mean * 0.01, "msg/s = 1/avg: " + line);
            }
        }
        assertEquals("", r.err());
    }

    @Test
    void theTableHasTheNewColumnsAndExplainsThem() {
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "-n", "200", "--warmup", "0",
                "--sizes", "64", "--bw-size", "64K", "--bw-bytes", "1M", "--window", "4", "--conn-qual",
                ToolRun.qual("mem")));
        assertEquals(0, r.exitCode(), r.err());
        String header = r.out().lines().filter(l -> l.startsWith("operation")).findFirst().orElseThrow();
        assertTrue(header.matches("operation\\s+size\\s+min (µ|u)s\\s+median (µ|u)s\\s+avg (µ|u)s\\s+stdev (µ|u)s\\s+"
                + "p99 (µ|u)s\\s+p99\\.9 (µ|u)s\\s+max (µ|u)s\\s+MB/s\\s+msg/s\\s+CPU (µ|u)s/msg"), header);
        PerfCommandTest.assertRow(r.out(), "RDMA read", "64 B", false);
        PerfCommandTest.assertRow(r.out(), "send stream", "64 KiB", true);
        assertTrue(r.out().contains("msg/s: messages per second, 1/avg for latency rows"), r.out());
        assertTrue(r.out().contains("CPU time of both sides' processes (every thread) per message"), r.out());
        // The clock's cost per reading, which each latency sample holds about once, and the kernel's clock source.
        String source = ClockCost.source(Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
        assertTrue(r.out().lines().anyMatch(l -> l.matches("JDK .*; latency: 200 iterations \\+ 0 warm-up; clock: "
                + "\\d+\\.\\d\\d (µ|u)s a reading"
                + (source == null ? "" : " \\(clock source " + java.util.regex.Pattern.quote(source) + "\\)")
                + "; bandwidth: .*")), r.out());
    }

    @Test
    void hgrmWritesOnePercentileDistributionPerLatencyRow() throws Exception {
        Path h = dir.resolve("new/hgrm");
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "-n", "500", "--warmup", "0",
                "--sizes", "64,4K", "--test", "latency", "--conn-qual", ToolRun.qual("mem"), "--hgrm",
                h.toString()));
        assertEquals(0, r.exitCode(), r.err());
        List<String> names;
        try (Stream<Path> files = Files.list(h)) {
            names = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertEquals(List.of("rdma-read-4096B.hgrm", "rdma-read-64B.hgrm", "rdma-write-ping-pong-4096B.hgrm",
                "rdma-write-ping-pong-64B.hgrm", "send-recv-ping-pong-4096B.hgrm", "send-recv-ping-pong-64B.hgrm"),
                names);
        String text = Files.readString(h.resolve("rdma-write-ping-pong-64B.hgrm"));
        assertTrue(text.lines().findFirst().orElse("").matches("\\s*Value\\s+Percentile\\s+TotalCount\\s+"
                + "1/\\(1-Percentile\\)"), text);
        assertTrue(text.matches("(?s).*Total count\\s+=\\s+500\\].*"), text);
        assertTrue(r.out().contains("Percentile distributions (HdrHistogram .hgrm"), r.out());
        // the median of the file is the table's: both one-way microseconds
        String row = r.out().lines().filter(l -> l.startsWith("RDMA write ping-pong       64 B")).findFirst()
                .orElseThrow();
        double tableMedian = Double.parseDouble(row.trim().split("\\s+")[6].replace(",", ""));
        double fileMedian = text.lines().filter(l -> l.trim().matches("[0-9.]+\\s+0\\.5000+\\s+.*")).findFirst()
                .map(l -> Double.parseDouble(l.trim().split("\\s+")[0])).orElseThrow();
        assertEquals(tableMedian, fileMedian, Math.max(0.02, tableMedian * 0.01), row + "\n" + text);
    }

    @Test
    void sizesAllIsPerftestsSweepFrom8BytesTo8MiB() {
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "--sizes", "all", "--test",
                "latency", "--op", "rdma-read", "-n", "2", "--conn-qual", ToolRun.qual("mem"), "--csv"));
        assertEquals(0, r.exitCode(), r.err());
        List<Long> sizes = r.out().lines().skip(1).map(l -> Long.parseLong(l.split(",")[1])).toList();
        List<Long> expected = new ArrayList<>();
        for (long s = 8; s <= 8 << 20; s *= 2) {
            expected.add(s);
        }
        assertEquals(expected, sizes);
    }

    @Test
    void sizesAllDefaultsToShortTimedTestsAndSweepsTheBandwidthToo() {
        PerfCommand cmd = new PerfCommand();
        CommandLine cl = new CommandLine(cmd);
        cl.parseArgs("--sizes", "all");
        PerfConfig c = cmd.config();
        assertEquals(PerfCommand.ALL_DURATION, c.durationNanos());
        assertEquals(PerfCommand.ALL_WARMUP, c.warmup());
        assertEquals(21, c.sizes().size());
        assertEquals(8L, c.sizes().getFirst());
        assertEquals(8L << 20, c.sizes().getLast());
        assertEquals(20, c.bwSizes().size());
        assertEquals(16L, c.bwSizes().getFirst());
        assertEquals(8L << 20, c.bwSizes().getLast());
        PerfCommand counted = new PerfCommand();
        new CommandLine(counted).parseArgs("--sizes", "all", "-n", "1000", "--bw-size", "1M");
        PerfConfig n = counted.config();
        assertEquals(0, n.durationNanos());
        assertEquals(1000, n.iterations());
        assertEquals(List.of(1L << 20), n.bwSizes());
    }

    @Test
    void plotWritesAReadablePngOfThePercentiles() throws Exception {
        Path png = dir.resolve("perf.png");
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "-n", "2000", "--warmup", "100",
                "--sizes", "64", "--test", "latency", "--conn-qual", ToolRun.qual("mem"), "--plot",
                png.toString()));
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("Chart: " + png), r.out());
        assertPng(png);
    }

    @Test
    void plotOfASweepDrawsLatencyAndBandwidthAgainstTheSize() throws Exception {
        Path png = dir.resolve("sub/sweep.png");
        Files.createDirectories(png.getParent());
        ToolRun.Run r = assertTimeoutPreemptively(LIMIT, () -> jdat("perf", "-n", "200", "--warmup", "0",
                "--sizes", "64..4K", "--bw-size", "1K..64K", "--bw-bytes", "1M", "--window", "4", "--op", "rdma-write",
                "--conn-qual", ToolRun.qual("mem"), "--plot", png.toString(), "--json"));
        assertEquals(0, r.exitCode(), r.err());
        BufferedImage img = assertPng(png);
        assertEquals(120 + 2 * PerfPlot.PANEL_HEIGHT, img.getHeight(), "two panels: latency and bandwidth");
    }

    @Test
    void outputOptionsThatContradictAreUsageErrors() {
        for (String[] args : List.of(new String[] {"--csv", "--json"}, new String[] {"--csv", "--counters"},
                new String[] {"--plot", dir.resolve("x.svg").toString()},
                new String[] {"--plot", dir.toString()},
                new String[] {"--hgrm", dir.toString(), "--test", "bandwidth"},
                new String[] {"--server", "--csv"}, new String[] {"--sizes", "all,64"})) {
            List<String> full = new ArrayList<>(List.of("perf"));
            full.addAll(Arrays.asList(args));
            ToolRun.Run r = jdat(full.toArray(String[]::new));
            assertEquals(2, r.exitCode(), () -> full + ": " + r.out() + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("jdat perf: "), r.err());
        }
    }

    /**
     * Under a file size limit of 0 (a child JVM, {@code ulimit -f 0}) the files cannot be written: one line naming
     * the file and the reason, exit code 1, no stack trace (PrintStream swallowed the error before).
     */
    @Test
    void filesThatCannotBeWrittenAreOneLineUnderAFileSizeLimitOfZero() throws Exception {
        Path h = dir.resolve("limited");
        String err = underNoFileSize("--hgrm", h.toString());
        assertTrue(err.startsWith("jdat perf: error: --hgrm: cannot write " + h.resolve("rdma-read-64B.hgrm")), err);
        assertTrue(err.contains("File too large"), err);
        Path png = dir.resolve("limited.png");
        String plotErr = underNoFileSize("--plot", png.toString());
        assertTrue(plotErr.startsWith("jdat perf: error: --plot: cannot write " + png), plotErr);
    }

    /** Runs a short perf in a child JVM under {@code ulimit -f 0}; expects exit code 1 and one line: returns it. */
    private static String underNoFileSize(String... output) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cmd = "ulimit -f 0 && exec \"$0\" -XX:-UsePerfData -Xshare:off --enable-native-access=ALL-UNNAMED"
                + " -cp \"$1\" " + Main.class.getName() + " perf --test latency --op rdma-read -n 100 --warmup 0"
                + " --conn-qual " + ToolRun.qual("mem") + " \"$2\" \"$3\"";
        Process p = new ProcessBuilder("bash", "-c", cmd, javaBin, System.getProperty("java.class.path"), output[0],
                output[1]).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), () -> new String(out) + err);
        assertEquals(1, err.lines().count(), err);
        assertTrue(!err.contains("Exception") && !err.contains("\tat "), err);
        return err;
    }

    private static BufferedImage assertPng(Path png) throws Exception {
        byte[] bytes = Files.readAllBytes(png);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, Arrays.copyOf(bytes, 8));
        assertTrue(bytes.length > 20_000, "a chart, not an empty picture: " + bytes.length + " bytes");
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(PerfPlot.WIDTH, img.getWidth());
        // lines, text and grid in several colours, not a blank picture
        java.util.Set<Integer> colours = new java.util.HashSet<>();
        for (int y = 0; y < img.getHeight(); y += 2) {
            for (int x = 0; x < img.getWidth(); x += 2) {
                colours.add(img.getRGB(x, y));
            }
        }
        assertTrue(colours.size() > 20, "colours: " + colours.size());
        return img;
    }

    private static double d(String s) {
        return Double.parseDouble(s);
    }
}
