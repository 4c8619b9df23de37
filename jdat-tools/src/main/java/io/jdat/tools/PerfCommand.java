package io.jdat.tools;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jdat perf}: a real transfer on a DAT provider (default: the embedded {@code mem} provider), both sides
 * in this JVM, or in two processes with {@code --server} / {@code --client ADDR} (a second DAT connection
 * carries the settings and the phase barriers). The server and the client each open the IA, connect with
 * private data, and measure send/recv, RDMA Write and RDMA Read latency and RDMA Write, RDMA Read and send
 * bandwidth, verifying every transfer. Prints one table (or {@code --json}); exit code 1 on any DAT error or
 * wrong data.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Measures latency and bandwidth between two IAs, in this JVM (a server and a client "
                + "thread) or in two processes (--server, --client ADDR), verifying every transfer.",
        sortOptions = false)
public final class PerfCommand implements Callable<Integer> {
    /** The most memory one side registers: {@code 2 * window + 1} bulk buffers must fit. */
    private static final long MAX_REGION = 1L << 30;

    @Spec
    private CommandSpec spec;

    @Option(names = "--ia", paramLabel = "NAME", defaultValue = "mem",
            description = "IA name to open on both sides (default: ${DEFAULT-VALUE}).")
    private String ia;

    @Option(names = "--sizes", paramLabel = "SIZE", split = ",", defaultValue = "64", converter = Sizes.class,
            description = "Message sizes of the latency tests, multiples of 8 (default: ${DEFAULT-VALUE}), "
                    + "e.g. 64,4K,64K.")
    private List<Long> sizes;

    @Option(names = {"-n", "--iterations"}, paramLabel = "N", defaultValue = "100000",
            description = "Timed iterations per latency test (default: ${DEFAULT-VALUE}).")
    private int iterations;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "20000",
            description = "Untimed warm-up iterations per latency test (default: ${DEFAULT-VALUE}).")
    private int warmup;

    @Option(names = "--bw-size", paramLabel = "SIZE", defaultValue = "1MiB", converter = Sizes.class,
            description = "Transfer size of the bandwidth tests (default: ${DEFAULT-VALUE}).")
    private long bwSize;

    @Option(names = "--bw-bytes", paramLabel = "SIZE", defaultValue = "2GiB", converter = Sizes.class,
            description = "Bytes moved per bandwidth test (default: ${DEFAULT-VALUE}).")
    private long bwBytes;

    @Option(names = "--window", paramLabel = "N", defaultValue = "16",
            description = "Outstanding transfers in the bandwidth tests (default: ${DEFAULT-VALUE}).")
    private int window;

    @Option(names = "--conn-qual", paramLabel = "QUAL", defaultValue = "18515",
            description = "Connection qualifier the server listens on (default: ${DEFAULT-VALUE}).")
    private long connQual;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Fail when any wait makes no progress for this long (default: ${DEFAULT-VALUE}).")
    private int timeout;

    @Option(names = "--counters", description = "After the table, print each IA's DTO counters (posted, completed, "
            + "flushed, errors, bytes: InterfaceAdapter.counters()).")
    private boolean counters;

    @picocli.CommandLine.ArgGroup(exclusive = true)
    private Mode mode;

    /** One process (default), the server, or the client. */
    static final class Mode {
        @Option(names = "--server", required = true, description = "Be the server of a two-process run: listen "
                + "on --conn-qual (control) and the next qualifier (measured connection), take the client's "
                + "settings, serve one run, exit 0.")
        boolean server;

        @Option(names = "--client", paramLabel = "ADDR", required = true, converter = TxAddress.Converter.class,
                description = "Be the client of a two-process run, connecting to ADDR: HOST[:QUALIFIER] (tcp: "
                        + "QUALIFIER is the port; the measured connection uses QUALIFIER + 1), or for shm the server "
                        + "IA's directory /PATH[:QUALIFIER] or shm:NAME[:QUALIFIER].")
        TxAddress client;
    }

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "0",
            description = "--server: give up when no client connects within this time (default: 0, wait forever).")
    private int wait;

    @Option(names = "--json", description = "Print the results as one JSON object (operation, size, median_us, "
            + "p99_us, mb_per_s per row) instead of the table.")
    private boolean json;

    /** Creates the command (picocli instantiates it). */
    public PerfCommand() {
    }

    @Override
    public Integer call() {
        if (mode != null && mode.server) {
            require(timeout >= 1 && timeout <= 2000, "--timeout must be 1..2000 seconds");
            require(wait >= 0, "--wait must not be negative");
            java.io.PrintWriter err = spec.commandLine().getErr();
            PerfConfig served = PerfRun.runServer(ia, connQual, timeout, wait, address -> {
                err.println("jdat perf server: IA \"" + ia + "\" listening at " + TxClient.display(address)
                        + " on qualifiers " + connQual + " and " + (connQual + 1));
                err.flush();
            });
            err.println("jdat perf server: served a run (" + served.sizes().size() + " size(s), "
                    + served.iterations() + " iterations)");
            err.flush();
            return 0;
        }
        PerfConfig config = config();
        if (mode != null) {
            PerfConfig c = mode.client.connQual() < 0 ? config : new PerfConfig(config.iaName(),
                    mode.client.connQual(), config.sizes(), config.warmup(), config.iterations(), config.bwSize(),
                    config.bwBytes(), config.window(), config.timeoutSeconds());
            PerfRun.runClient(c, mode.client.address(),
                    new ResultTable(spec.commandLine().getOut(), c, counters, json));
        } else {
            PerfRun.run(config, new ResultTable(spec.commandLine().getOut(), config, counters, json));
        }
        return 0;
    }

    /** Validates the options into a configuration. */
    private PerfConfig config() {
        for (long s : sizes) {
            require(s >= 8 && s % 8 == 0, "--sizes: " + s + " is not a positive multiple of 8");
        }
        require(iterations >= 1, "--iterations must be at least 1");
        require(warmup >= 0, "--warmup must not be negative");
        require(bwSize >= 16 && bwSize % 8 == 0, "--bw-size must be a multiple of 8, at least 16");
        require(bwBytes >= 1, "--bw-bytes must be positive");
        require(window >= 1 && window <= 1024, "--window must be 1..1024");
        require((2L * window + 1) * bwSize <= MAX_REGION, "--window " + window + " x --bw-size " + Sizes.format(bwSize)
                + " needs more than " + Sizes.format(MAX_REGION) + " of memory per side");
        require(timeout >= 1 && timeout <= 2000, "--timeout must be 1..2000 seconds");
        require((long) iterations + warmup <= Integer.MAX_VALUE, "too many iterations");
        return new PerfConfig(ia, connQual, sizes, warmup, iterations, bwSize, bwBytes, window, timeout);
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
