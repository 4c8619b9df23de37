package io.jdat.tools.tx;

import io.jdat.tools.cli.ConnQualOption;
import io.jdat.tools.cli.IaOption;
import io.jdat.tools.cli.PeerAddress;
import io.jdat.tools.cli.TimeoutOption;
import io.jdat.tools.cli.TwoProcessOptions;
import io.jdat.tools.cli.VersionProvider;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jdat tx} ({@code ./jdat.sh tx}): a transaction test in the manner of dapltest's {@code -T T}.
 * {@code threads} client threads each connect {@code eps} endpoints to a server, which runs as many threads;
 * every iteration, each endpoint runs the op list (Sends, RDMA Writes and RDMA Reads, each posted by the client
 * or the server, with a gather/scatter list), and every byte that arrives is checked against a pattern unique to
 * the run, endpoint, iteration and operation; every completion is checked for status, cookie, length and
 * duplication. Prints a pass/fail summary with the counts; exit code 0 on PASS, 1 on FAIL. Its former name,
 * {@code jdat test}, still works ({@link OldName}) and says so.
 */
@Command(name = "tx", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Transaction test (dapltest -T T): threads x endpoints run an op list of Sends, RDMA Writes "
                + "and RDMA Reads for some iterations, every byte validated. Both sides in this JVM by default; "
                + "--server and --client ADDR for two processes.",
            "Exit code 0: PASS; 1: FAIL (wrong data, a failed or missing completion, a DAT error); 2: usage error."},
        sortOptions = false)
public class TxCommand implements Callable<Integer> {
    private static final List<String> DEFAULT_OPS = List.of("client:send:2x1024", "server:send:1x4096",
            "client:rdma-write:1x4096", "server:rdma-write:4x2048", "client:rdma-read:2x1024", "server:rdma-read:1x4096");

    @Spec
    private CommandSpec spec;

    @Mixin
    private IaOption iaOption = new IaOption("mem");

    @Option(names = {"-t", "--threads"}, paramLabel = "N", defaultValue = "1",
            description = "Client threads; the server runs as many (default: ${DEFAULT-VALUE}).")
    private int threads;

    @Option(names = {"-w", "--eps"}, paramLabel = "N", defaultValue = "1",
            description = "Endpoints per thread; threads x endpoints at most " + TxConfig.MAX_ENDPOINTS
                    + " (default: ${DEFAULT-VALUE}).")
    private int eps;

    @Option(names = {"-i", "--iterations"}, paramLabel = "N", defaultValue = "100",
            description = "Iterations of the op list on every endpoint (default: ${DEFAULT-VALUE}).")
    private long iterations;

    @Option(names = "--op", paramLabel = "OP", converter = TxOp.Converter.class,
            description = {"An operation of the list, repeatable, in order: [client:|server:]KIND[:SEGMENTSxSIZE]; "
                    + "KIND is send (sr), rdma-write (rw) or rdma-read (rr); the poster defaults to the client, "
                    + "the geometry to 1x4096. E.g. --op send:3x4096 --op server:rdma-write:1x64K.",
                "Default: " + "client:send:2x1024 server:send:1x4096 client:rdma-write:1x4096 "
                    + "server:rdma-write:4x2048 client:rdma-read:2x1024 server:rdma-read:1x4096."})
    private List<TxOp> ops;

    @Mixin
    private TwoProcessOptions twoProcess = new TwoProcessOptions();

    @Mixin
    private ConnQualOption connQualOption = new ConnQualOption(18516);

    @Option(names = {"-P", "--poll"}, description = "Busy-poll with dat_evd_dequeue instead of waiting in dat_evd_wait.")
    private boolean poll;

    @Option(names = "--wait", description = "Wait for completions in dat_evd_wait (spins briefly, then parks; the "
            + "default).")
    private boolean waitMode;

    @Mixin
    private TimeoutOption timeoutOption = new TimeoutOption("10s");

    @Option(names = "--json", description = "Print the summary as one JSON object.")
    private boolean json;

    /** Creates the command (picocli instantiates it). */
    public TxCommand() {
    }

    /**
     * {@code jdat test}, the former name of {@code jdat tx}: hidden from the command list, runs {@code jdat tx}
     * after one line on standard error naming the new name ({@code ./jdat.sh test} is the Maven suite).
     */
    @Command(name = "test", hidden = true)
    public static final class OldName extends TxCommand {
        /** Creates the command (picocli instantiates it). */
        OldName() {
        }

        @Override
        public Integer call() {
            CommandLine cl = spec().commandLine();
            cl.getErr().println("jdat test: this is now jdat tx (./jdat.sh tx; ./jdat.sh test runs the unit tests): "
                    + "running jdat tx");
            cl.getErr().flush();
            return super.call();
        }
    }

    /** The command's model (for {@link OldName}). */
    CommandSpec spec() {
        return spec;
    }

    @Override
    public Integer call() {
        String ia = iaOption.name(spec);
        long connQual = connQualOption.value();
        PeerAddress client = twoProcess.client(spec, ia);
        require(threads >= 1 && threads <= TxConfig.MAX_THREADS, "--threads must be 1.." + TxConfig.MAX_THREADS);
        require(eps >= 1 && eps <= TxConfig.MAX_EPS, "--eps must be 1.." + TxConfig.MAX_EPS);
        require((long) threads * eps <= TxConfig.MAX_ENDPOINTS, "--threads x --eps must be at most "
                + TxConfig.MAX_ENDPOINTS + " endpoints");
        require(iterations >= 1 && iterations < (1L << 48), "--iterations must be at least 1");
        int timeout = timeoutOption.seconds(spec);
        int acceptTimeout = twoProcess.acceptTimeout();
        require(acceptTimeout >= 0, "--accept-timeout must not be negative");
        require(!(poll && waitMode), "--poll and --wait exclude each other: pick one (waiting is the default)");
        require(acceptTimeout == 0 || twoProcess.server(),
                "--accept-timeout applies to --server only: drop it or add --server");
        List<TxOp> list = ops == null || ops.isEmpty() ? DEFAULT_OPS.stream().map(TxOp::parse).toList() : ops;
        require(list.size() <= TxConfig.MAX_OPS, "at most " + TxConfig.MAX_OPS + " --op");
        long perEp = 0;
        for (TxOp op : list) {
            perEp += op.segments() * (op.size() + 320);
        }
        require(perEp * threads * eps <= 2L << 30, "the op list needs more than 2 GiB of memory per side "
                + "(segment sizes x threads x endpoints): make them smaller");
        PrintWriter out = spec.commandLine().getOut();
        TxResult r;
        String role;
        if (twoProcess.server()) {
            role = "server";
            r = TxRun.server(ia, connQual, poll, timeout, acceptTimeout, spec.commandLine().getErr(), a -> {
                if (!json) {
                    spec.commandLine().getErr().println("jdat tx server: IA \"" + ia + "\" listening at " + PeerAddress.display(a)
                            + " qualifier " + connQual);
                    spec.commandLine().getErr().flush();
                }
            });
        } else {
            long qual = connQual;
            if (client != null && client.connQual() >= 0) {
                qual = client.connQual();
            }
            TxConfig c = new TxConfig(ia, qual, threads, eps, iterations, list, poll, timeout,
                    ThreadLocalRandom.current().nextLong());
            if (client != null) {
                role = "client";
                r = TxRun.client(c, client.address());
            } else {
                role = "both sides";
                r = TxRun.oneProcess(c, TxHooks.NONE);
            }
        }
        if (json) {
            TxReport.json(out, r, role);
        } else {
            TxReport.text(out, r, role);
        }
        return r.passed() ? 0 : 1;
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
