package io.jdat.tools.perf;

import io.jdat.tools.cli.ConnQualOption;
import io.jdat.tools.cli.IaOption;
import io.jdat.tools.cli.PeerAddress;
import io.jdat.tools.cli.Seconds;
import io.jdat.tools.cli.Sizes;
import io.jdat.tools.cli.TimeoutOption;
import io.jdat.tools.cli.TwoProcessOptions;
import io.jdat.tools.cli.VersionProvider;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jdat perf}: a real transfer on a DAT provider (default: the embedded {@code mem} provider), both sides
 * in this JVM, or in two processes with {@code --server} / {@code --client ADDR} (a second DAT connection
 * carries the settings and the phase barriers). The server and the client each open the IA, connect with
 * private data, and measure the selected operations ({@code --op}: send/recv, RDMA Write, RDMA Read) and
 * tests ({@code --test}: latency, bandwidth) at the selected sizes, for a count or a {@code --duration},
 * polling or waiting for completions, verifying every transfer unless {@code --no-verify}. Prints one table
 * (or {@code --json}); exit code 1 on any DAT error or wrong data, 2 on a usage error.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Measures latency (min, median, avg, stdev, p99, p99.9, max) and bandwidth (MB/s, msg/s) "
                + "between two IAs, in this JVM (a server and a client thread) or in two processes (--server, "
                + "--client ADDR), verifying every transfer; prints a table, --json or --csv, and can write .hgrm "
                + "files (--hgrm DIR) and a chart (--plot FILE).",
            "Default: every operation (send, rdma-write, rdma-read), latency at 64 B and bandwidth at 1 MiB; "
                + "e.g. --op rdma-write --test latency --sizes 8..64K --duration 1, or --sizes all --plot perf.png.",
            "Exit code 0: success; 1: a failure (a DAT error, wrong data, a timeout; one line on stderr); "
                + "2: usage error."},
        sortOptions = false)
public final class PerfCommand implements Callable<Integer> {
    /** The most memory one side registers for the bulk or the small buffers. */
    private static final long MAX_REGION = 1L << 30;
    /** The latency size when none is given. */
    private static final long DEFAULT_SIZE = 64;
    /** The bandwidth size when none is given. */
    private static final long DEFAULT_BW_SIZE = 1L << 20;
    /** The longest {@code --duration}. */
    private static final long MAX_DURATION = 24 * 3600 * 1_000_000_000L;
    /** The largest size of {@code --sizes all}: perftest's {@code -a} goes to 2^23 bytes. */
    static final long ALL_MAX = 8L << 20;
    /** How long each test of {@code --sizes all} runs unless a count or a duration is given. */
    static final long ALL_DURATION = 100_000_000L;
    /** The warm-up iterations of each latency test of {@code --sizes all} unless given. */
    static final int ALL_WARMUP = 100;

    @Spec
    private CommandSpec spec;

    @Mixin
    private IaOption iaOption = new IaOption("mem");

    @Option(names = "--op", paramLabel = "OP", split = ",", converter = PerfOp.Converter.class,
            description = "Operations to measure, repeatable or a comma list: send (sr), rdma-write (write, rw), "
                    + "rdma-read (read, rr) (default: all three).")
    private List<PerfOp> ops;

    @Option(names = "--test", paramLabel = "TEST", split = ",", converter = PerfTest.Converter.class,
            description = "What to measure: latency (lat: ping-pongs, RDMA read round trips) or bandwidth (bw: "
                    + "streams) (default: both).")
    private List<PerfTest> tests;

    @Option(names = "--sizes", paramLabel = "SIZES", split = ",",
            description = "Message sizes of the latency tests (and of the bandwidth tests when they run alone): "
                    + "a size, a comma list or a sweep FROM..TO that doubles from FROM up to TO; multiples of 8, "
                    + "suffixes K, M, G (default: 64), e.g. 4K or 64,4K or 8..1M; or all: perftest -a's sweep "
                    + "up to 8 MiB, from 8 B (bandwidth: 16 B), for the bandwidth tests too unless --bw-size is "
                    + "given, each test 100 ms after 100 warm-up iterations unless -n, --duration or --bw-bytes "
                    + "is given.")
    private List<String> sizes;

    @Option(names = {"-n", "--iterations"}, paramLabel = "N", defaultValue = "100000",
            description = "Timed iterations per latency test (default: ${DEFAULT-VALUE}).")
    private int iterations;

    @Option(names = "--duration", paramLabel = "TIME", converter = Seconds.class,
            description = "Measure each test for about this long instead of --iterations and --bw-bytes: seconds, "
                    + "or with a unit: 500ms, 2s, 1m.")
    private Long durationNanos;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "20000",
            description = "Untimed warm-up iterations per latency test (default: ${DEFAULT-VALUE}); a warm-up goes "
                    + "on, a round of its size at a time (at most 3 s more), while the JIT still compiles.")
    private int warmup;

    @Option(names = "--bw-size", paramLabel = "SIZES", split = ",",
            description = "Transfer sizes of the bandwidth tests, like --sizes; multiples of 8, at least 16 "
                    + "(default: 1MiB, or --sizes with --test bandwidth).")
    private List<String> bwSizes;

    @Option(names = "--bw-bytes", paramLabel = "SIZE", defaultValue = "2GiB", converter = Sizes.class,
            description = "Bytes moved per bandwidth test (default: ${DEFAULT-VALUE}).")
    private long bwBytes;

    @Option(names = "--bw-warmup", paramLabel = "N",
            description = "Untimed transfers before each bandwidth test (default: an eighth of the count, at least "
                    + "two windows; with --duration a tenth of it); it goes on while the JIT compiles, as --warmup "
                    + "does. A JIT that compiles late (C2 under emulation) needs a long one.")
    private Long bwWarmup;

    @Option(names = "--window", paramLabel = "N", defaultValue = "16",
            description = "Outstanding transfers in the bandwidth tests (default: ${DEFAULT-VALUE}).")
    private int window;

    @Option(names = "--signal-every", paramLabel = "N", defaultValue = "0",
            description = "A stream asks for the completion of every N-th transfer and posts the others with "
                    + "DAT_COMPLETION_SUPPRESS_FLAG (default 1: every transfer completes with an event; ib_write_bw -t W "
                    + "signals one in min(100, W), its cq_mod).")
    private int signalEvery;

    @Option(names = {"-P", "--poll"}, description = "Busy-poll completions with dat_evd_dequeue (the default).")
    private boolean poll;

    @Option(names = "--wait", description = "Wait for completions in dat_evd_wait (spins briefly, then parks) "
            + "instead of busy-polling. The RDMA write ping-pong watches memory either way.")
    private boolean waitMode;

    @Option(names = "--server-idle", paramLabel = "MODE", defaultValue = "spin",
            description = "How the server waits in the one-sided tests (RDMA Read latency, RDMA Write and Read "
                    + "streams), where it has nothing to do until the client's end mark: spin (dequeue its request EVD "
                    + "without pause, as ucx_perftest's responder and perftest's servers with -R do; a software transport "
                    + "may place the transfers on that thread: the default) or park (look about every millisecond: a "
                    + "passive target, as perftest's servers without -R, which block in a socket read). On two cores a "
                    + "spinning server takes CPU from the client and from a software RDMA device (rxe, siw).")
    private String serverIdle;

    @Option(names = "--cpu", paramLabel = "CPU", split = ",",
            description = "Pin the measuring thread to a CPU once connected, as ucx_perftest -c and taskset do "
                    + "(Linux): one CPU with --server or --client, two (server, client) when both sides run in this "
                    + "JVM, e.g. --cpu 0,1. The JIT, the garbage collector and the DAT library's threads keep every "
                    + "CPU. Default: unpinned.")
    private List<Integer> cpus;

    @Option(names = "--no-verify", description = "Do not write or check data patterns (verification is on by "
            + "default: sequence stamps and payload patterns of every transfer).")
    private boolean noVerify;

    @Option(names = "--buffers", paramLabel = "LAYOUT", defaultValue = "one",
            description = "The streams' buffers: one (a pair, which every transfer reuses, as ucx_perftest and "
                    + "fi_pingpong do: the default) or per-op (a buffer per outstanding transfer: 2 x --window + 1 "
                    + "per side, out of cache). A two-process server follows the client.")
    private String buffers;

    @Option(names = "--memory", paramLabel = "KIND",
            description = "The buffers: shared (DAT shared memory, io.jdat.shm.ShmMemory: the shm peer maps it and "
                    + "copies once, as ucx_perftest's buffers with UCX_TLS=posix, which UCX allocates in shared memory "
                    + "and the peer maps: the default on an shm IA) or native (an Arena's memory: an shm peer reaches "
                    + "it with cross-memory attach, process_vm_readv/writev; the default on other IAs). A two-process "
                    + "server follows the client.")
    private String memory;

    @Mixin
    private ConnQualOption connQualOption = new ConnQualOption(18515);

    @Mixin
    private TimeoutOption timeoutOption = new TimeoutOption("10s");

    @Option(names = "--counters", description = "After the table, print each IA's DTO counters (posted, completed, "
            + "flushed, errors, bytes: InterfaceAdapter.counters()).")
    private boolean counters;

    @Mixin
    private TwoProcessOptions twoProcess = new TwoProcessOptions();

    @Option(names = "--json", description = "Print the results as one JSON object (settings; operation, size, count, "
            + "min_us, median_us, mean_us, stdev_us, p99_us, p999_us, max_us, mb_per_s, msg_per_s per row) instead "
            + "of the table.")
    private boolean json;

    @Option(names = "--csv", description = "Print the rows as comma-separated values instead of the table: a header "
            + "line (" + ResultTable.CSV_HEADER + "), then one line per row as it completes.")
    private boolean csv;

    @Option(names = "--hgrm", paramLabel = "DIR", description = "Also write the percentile distribution of each "
            + "latency row into DIR, in HdrHistogram's .hgrm format (microseconds), one file a row, e.g. "
            + "DIR/rdma-write-ping-pong-64B.hgrm.")
    private java.nio.file.Path hgrmDir;

    @Option(names = "--plot", paramLabel = "FILE", description = "Also draw the run into FILE (PNG): the latency "
            + "percentile distribution of each operation; for a sweep of sizes, latency and bandwidth against "
            + "the size.")
    private java.nio.file.Path plotFile;

    /** Creates the command (picocli instantiates it). */
    public PerfCommand() {
    }

    @Override
    public Integer call() {
        String ia = iaOption.name(spec);
        long connQual = connQualOption.value();
        PeerAddress client = twoProcess.client(spec, ia);
        require(!(poll && waitMode), "--poll and --wait exclude each other: pick one (polling is the default)");
        int timeout = timeoutOption.seconds(spec);
        int acceptTimeout = twoProcess.acceptTimeout();
        require(acceptTimeout >= 0, "--accept-timeout must not be negative");
        int[] pins = pins(twoProcess.server() || client != null);
        if (twoProcess.server()) {
            List<String> settings = given("--op", "--test", "--sizes", "--iterations", "--duration", "--warmup",
                    "--bw-size", "--bw-bytes", "--window", "--poll", "--wait", "--no-verify", "--memory", "--buffers",
                    "--signal-every", "--bw-warmup", "--server-idle");
            require(settings.isEmpty(), "--server takes its settings from the client: drop "
                    + String.join(", ", settings) + " here and give them to the --client");
            List<String> outputs = given("--csv", "--hgrm", "--plot");
            require(outputs.isEmpty(), "--server prints no results (the client does): drop "
                    + String.join(", ", outputs) + " here and give " + (outputs.size() > 1 ? "them" : "it")
                    + " to the --client");
            java.io.PrintWriter err = spec.commandLine().getErr();
            PerfConfig served = PerfRun.runServer(ia, connQual, timeout, acceptTimeout, pins[0], address -> {
                err.println("jdat perf server: IA \"" + ia + "\" listening at " + PeerAddress.display(address)
                        + " on qualifiers " + connQual + " and " + (connQual + 1));
                err.flush();
            });
            err.println("jdat perf server: served a run (" + PerfRun.plan(served).size() + " measurement(s))"
                    + (pins[0] >= 0 ? ", its measuring thread on CPU " + pins[0] : ""));
            err.flush();
            return 0;
        }
        require(!matched("--accept-timeout"), "--accept-timeout applies to --server only: drop it or add --server");
        PerfConfig given = config();
        // the client connects to the qualifier of its address when it names one: the header says which
        PerfConfig config = client != null && client.connQual() >= 0 ? given.withConnQual(client.connQual()) : given;
        ResultTable.Outputs outputs = outputs(config);
        ResultTable table = new ResultTable(spec.commandLine().getOut(), config, outputs,
                Progress.forTerminal(spec.commandLine().getErr()));
        if (client != null) {
            table.pinned(-1, pins[0]);
            PerfRun.runClient(config, client.address(), table, pins[0]);
        } else {
            table.pinned(pins[0], pins[1]);
            PerfRun.run(config, table, PerfRun.plan(config), pins[0], pins[1]);
        }
        return 0;
    }

    /**
     * Validates {@code --cpu}: one CPU in a two-process run, two (server, client) in one JVM, each one this
     * process may run on.
     *
     * @param oneSide whether this process runs one side ({@code --server} or {@code --client})
     * @return {server or this side's CPU, client's CPU}, -1 where unpinned
     */
    private int[] pins(boolean oneSide) {
        if (cpus == null || cpus.isEmpty()) {
            return new int[] {-1, -1};
        }
        require(cpus.size() == (oneSide ? 1 : 2), oneSide ? "--cpu takes one CPU with --server or --client (this "
                + "side's measuring thread), e.g. --cpu 1" : "--cpu takes two CPUs when both sides run in this JVM "
                + "(the server's thread, then the client's), e.g. --cpu 0,1");
        require(CpuAffinity.available(), "--cpu: " + CpuAffinity.unavailableReason());
        List<Integer> allowed = CpuAffinity.allowed();
        for (int cpu : cpus) {
            require(allowed.contains(cpu), "--cpu " + cpu + ": not a CPU this process may run on (it may run on "
                    + ranges(allowed) + ")");
        }
        return oneSide ? new int[] {cpus.getFirst(), -1} : new int[] {cpus.get(0), cpus.get(1)};
    }

    /** {@return CPU numbers as ranges, e.g. {@code 0-3,6}} */
    static String ranges(List<Integer> cpus) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cpus.size(); i++) {
            int from = cpus.get(i);
            while (i + 1 < cpus.size() && cpus.get(i + 1) == cpus.get(i) + 1) {
                i++;
            }
            b.append(b.isEmpty() ? "" : ",").append(from).append(from == cpus.get(i) ? "" : "-" + cpus.get(i));
        }
        return b.isEmpty() ? "none" : b.toString();
    }

    /** Validates the output options. */
    private ResultTable.Outputs outputs(PerfConfig config) {
        require(!(csv && json), "--csv and --json exclude each other: pick one");
        require(!(csv && counters), "--counters prints no CSV: drop --counters, or --csv for the table");
        require(hgrmDir == null || config.latency(), "--hgrm writes the distributions of the latency tests, which "
                + "--test bandwidth leaves out: drop --hgrm or add --test latency");
        if (hgrmDir != null) {
            try {
                java.nio.file.Files.createDirectories(hgrmDir);
            } catch (java.io.IOException | RuntimeException e) {
                throw new ParameterException(spec.commandLine(), "--hgrm " + hgrmDir + ": cannot create that "
                        + "directory (" + e.getMessage() + "): name another");
            }
            require(java.nio.file.Files.isWritable(hgrmDir), "--hgrm " + hgrmDir + ": not writable: name another "
                    + "directory");
        }
        if (plotFile != null) {
            String name = plotFile.getFileName() == null ? "" : plotFile.getFileName().toString();
            require(!name.toLowerCase(java.util.Locale.ROOT).endsWith(".svg"), "--plot writes PNG: name the file "
                    + "FILE.png");
            require(!java.nio.file.Files.isDirectory(plotFile), "--plot " + plotFile + " is a directory: name a file, "
                    + "e.g. " + plotFile.resolve("perf.png"));
            java.nio.file.Path parent = plotFile.toAbsolutePath().getParent();
            require(parent == null || java.nio.file.Files.isDirectory(parent) && java.nio.file.Files.isWritable(parent),
                    "--plot " + plotFile + ": " + parent + " is not a writable directory: name another file");
        }
        ResultTable.Format format = json ? ResultTable.Format.JSON : csv ? ResultTable.Format.CSV
                : ResultTable.Format.TABLE;
        return new ResultTable.Outputs(format, counters, hgrmDir, plotFile);
    }

    /** Validates the options into a configuration. */
    PerfConfig config() {
        boolean allSizes = isAll(sizes, "--sizes");
        boolean allBw = isAll(bwSizes, "--bw-size");
        if ((allSizes || allBw) && given("--iterations", "--duration", "--bw-bytes").isEmpty()) {
            durationNanos = ALL_DURATION;
        }
        if ((allSizes || allBw) && !matched("--warmup")) {
            warmup = ALL_WARMUP;
        }
        boolean timed = durationNanos != null;
        if (timed) {
            require(!matched("--iterations"), "--duration and --iterations exclude each other: drop one");
            require(!matched("--bw-bytes"), "--duration and --bw-bytes exclude each other: drop one");
            require(durationNanos >= 1_000_000 && durationNanos <= MAX_DURATION,
                    "--duration must be from 1ms to 24h, e.g. --duration 2 or --duration 500ms");
        }
        EnumSet<PerfOp> opSet = ops == null || ops.isEmpty() ? EnumSet.allOf(PerfOp.class) : EnumSet.copyOf(ops);
        EnumSet<PerfTest> testSet = tests == null || tests.isEmpty() ? EnumSet.allOf(PerfTest.class)
                : EnumSet.copyOf(tests);
        boolean latency = testSet.contains(PerfTest.LATENCY);
        boolean bandwidth = testSet.contains(PerfTest.BANDWIDTH);
        if (!latency) {
            List<String> unused = given("--iterations", "--warmup");
            require(unused.isEmpty(), String.join(" and ", unused) + verb(unused) + " the latency tests, which "
                    + "--test bandwidth leaves out: drop " + (unused.size() > 1 ? "them" : "it")
                    + " or add --test latency");
        }
        if (!bandwidth) {
            List<String> unused = given("--bw-size", "--bw-bytes", "--window", "--buffers", "--signal-every",
                    "--bw-warmup");
            require(unused.isEmpty(), String.join(" and ", unused) + verb(unused) + " the bandwidth tests, which "
                    + "--test latency leaves out: drop " + (unused.size() > 1 ? "them" : "it")
                    + " or add --test bandwidth");
        }
        require(latency || sizes == null || bwSizes == null, "--sizes and --bw-size both set the bandwidth sizes "
                + "under --test bandwidth: drop one");
        List<Long> latSizes = sizes == null ? List.of(DEFAULT_SIZE) : allSizes ? sweep(8)
                : parseSizes("--sizes", sizes);
        String bwOption = bwSizes != null ? "--bw-size" : sizes != null && !latency ? "--sizes" : null;
        List<Long> bw = allBw || bwSizes == null && allSizes ? sweep(16)
                : bwSizes != null ? parseSizes("--bw-size", bwSizes)
                : sizes != null && !latency ? latSizes : List.of(DEFAULT_BW_SIZE);
        if (latency) {
            for (long s : latSizes) {
                require(s >= 8 && s % 8 == 0, "--sizes: " + s + " is not a positive multiple of 8 (perf moves whole "
                        + "64-bit words): use e.g. " + Math.max(8, (s + 7) / 8 * 8));
                require(4 * s <= MAX_REGION, "--sizes: " + Sizes.format(s) + " needs 4 x that of memory per side, "
                        + "more than " + Sizes.format(MAX_REGION) + ": use a smaller size");
            }
        }
        if (bandwidth) {
            String option = bwOption == null ? "--bw-size" : bwOption;
            for (long s : bw) {
                require(s >= 16 && s % 8 == 0, option + ": " + s + " is not a multiple of 8 of at least 16 (a "
                        + "bandwidth transfer carries two 8-byte stamps): use e.g. " + Math.max(16, (s + 7) / 8 * 8));
            }
            require(window >= 1 && window <= 1024, "--window must be 1..1024");
            require(signalEvery >= 0 && signalEvery <= 1024, "--signal-every must be 1..1024 (0: the default)");
            long max = bw.stream().mapToLong(Long::longValue).max().orElse(0);
            require((perOp() ? 2L * window + 1 : 1) * max <= MAX_REGION, "--window " + window + " x " + option + " "
                    + Sizes.format(max) + " needs more than " + Sizes.format(MAX_REGION) + " of memory per side: "
                    + "use a smaller --window or size");
        }
        require(latSizes.size() + bw.size() <= PerfControl.MAX_SIZES, "too many sizes (" + (latSizes.size()
                + bw.size()) + "): at most " + PerfControl.MAX_SIZES + " in all");
        require(iterations >= 1, "--iterations must be at least 1");
        require(warmup >= 0, "--warmup must not be negative");
        require(bwBytes >= 1, "--bw-bytes must be positive");
        require(bwWarmup == null || bwWarmup >= 0, "--bw-warmup must not be negative");
        String ia = iaOption.name();
        String kind = memory != null ? memory : PerfSide.isShm(ia) ? "shared" : "native";
        require(kind.equals("native") || kind.equals("shared"), "--memory is native or shared, not " + kind);
        require(buffers.equals("one") || buffers.equals("per-op"), "--buffers is one (a buffer pair, the default) "
                + "or per-op (a buffer per outstanding transfer), not " + buffers);
        boolean shared = kind.equals("shared");
        require(serverIdle.equals("spin") || serverIdle.equals("park"), "--server-idle is spin (the default) or park,"
                + " not " + serverIdle);
        require(!shared || PerfSide.isShm(ia), "--memory shared is DAT shared memory of the shm provider: use it "
                + "with an shm IA (--ia shm)");
        return new PerfConfig(ia, connQualOption.value(), latSizes, warmup, iterations, bw, bwBytes, window,
                timeoutOption.seconds(spec), opSet, testSet,
                timed ? durationNanos : 0, waitMode, !noVerify, shared, perOp(), signalEvery,
                bwWarmup == null ? -1 : bwWarmup, serverIdle.equals("park"));
    }

    /** Whether {@code --buffers per-op} was asked for. */
    private boolean perOp() {
        return "per-op".equals(buffers);
    }

    /** Whether a size option says {@code all} (alone: anything else with it is a usage error). */
    private boolean isAll(List<String> items, String option) {
        if (items == null || items.stream().noneMatch(i -> i.equalsIgnoreCase("all"))) {
            return false;
        }
        require(items.size() == 1, option + " all is every size already: drop the others");
        return true;
    }

    /** Every power of two from {@code from} to {@link #ALL_MAX}. */
    private static List<Long> sweep(long from) {
        List<Long> l = new ArrayList<>();
        for (long s = from; s <= ALL_MAX; s *= 2) {
            l.add(s);
        }
        return l;
    }

    /** Parses a size list option, turning a bad item into a usage error that names the option. */
    private List<Long> parseSizes(String option, List<String> items) {
        try {
            return Sizes.parseList(items);
        } catch (CommandLine.TypeConversionException e) {
            throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
        }
    }

    private static String verb(List<String> subjects) {
        return subjects.size() > 1 ? " set" : " sets";
    }

    /** The options of {@code names} given on the command line. */
    private List<String> given(String... names) {
        List<String> found = new ArrayList<>();
        for (String n : names) {
            if (matched(n)) {
                found.add(n);
            }
        }
        return found;
    }

    private boolean matched(String name) {
        return spec.commandLine().getParseResult().hasMatchedOption(name);
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
