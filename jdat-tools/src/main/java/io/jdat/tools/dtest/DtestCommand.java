package io.jdat.tools.dtest;

import io.jdat.tools.cli.ConnQualOption;
import io.jdat.tools.cli.TcpIaOptions;
import io.jdat.tools.cli.TimeoutOption;
import io.jdat.tools.cli.VersionProvider;
import io.jdat.tools.session.SampleFailure;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jdat dtest}: DAPL's {@code dtest} over DAT ({@link Dtest}), with dtest's options, so that it runs against
 * the real dtest of uDAPL 2.1 on a kernel RDMA device: {@code jdat dtest -s} or {@code jdat dtest -h HOST -b 4096
 * -B 100}. The IA is {@code tcp} unless {@code --ia} names another; {@code --ia-params} opens a {@code tcp} IA with
 * those dat.conf parameters. Prints each phase and {@code PASSED}; exit code 0 when every phase verified, 1
 * otherwise.
 */
@Command(name = "dtest", versionProvider = VersionProvider.class,
        description = "DAPL's dtest over DAT: connect with private data, exchange RMR triplets, RDMA Write, RDMA "
                + "Read and a message ping-pong, every byte verified; compatible with uDAPL 2.1's dtest.",
        sortOptions = false)
public final class DtestCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit (-h is dtest's host).")
    private boolean help;

    @Option(names = "--version", versionHelp = true, description = "Print version information and exit.")
    private boolean version;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Role role;

    static final class Role {
        @Option(names = "-s", description = "Server: hand out the server info, take one client.")
        boolean server;
        @Option(names = "-h", paramLabel = "HOST", description = "Client of the server on HOST.")
        String host;
    }

    @Option(names = "-b", paramLabel = "BYTES", description = "Buffer size (RDMA and messages), 1.."
            + Dtest.MAX_SIZE + ". Default: 4096 (dtest's is 4 MiB; use the same -b on both sides).")
    private int size = 4096;

    @Option(names = "-B", paramLabel = "COUNT", description = "RDMA Writes per side. Default: 1000, as dtest.")
    private int burst = 1000;

    @Option(names = "-S", paramLabel = "RATE", description = "Signal one RDMA Write completion in RATE. Default: 10.")
    private int signalRate = 10;

    @Option(names = "-p", description = "Poll with dat_evd_dequeue instead of waiting.")
    private boolean polling;

    @Option(names = "-v", description = "Print every step.")
    private boolean verbose;

    @Mixin
    private TcpIaOptions ia = new TcpIaOptions();

    @Mixin
    private ConnQualOption connQual = new ConnQualOption(Dtest.DEFAULT_CONN_QUAL); // dtest's

    @Option(names = "--info-port", paramLabel = "PORT", description = "The TCP port of the server info. Default: "
            + Dtest.DEFAULT_INFO_PORT + ", as dtest.")
    private int infoPort = Dtest.DEFAULT_INFO_PORT;

    @Option(names = "--provider", paramLabel = "NAME", description = "Server: the provider name handed to the "
            + "client (the dat.conf entry dtest's client opens). Default: " + Dtest.DEFAULT_PROVIDER + ".")
    private String provider = Dtest.DEFAULT_PROVIDER;

    @Option(names = "--advertise", paramLabel = "IPV4", description = "Server: the address handed to the client. "
            + "Default: the IA's.")
    private String advertise;

    @Option(names = "--settle", paramLabel = "MS", description = "Pause before the ping-pong, once its receives are "
            + "posted. Default: 1000, as dtest.")
    private long settleMillis = 1000;

    @Mixin
    private TimeoutOption timeout = new TimeoutOption("30s");

    @Option(names = "--connect-timeout", paramLabel = "MS", description = "Client: how long to try again while "
            + "nothing listens on the server info port before failing (at most --timeout). Default: "
            + Dtest.DEFAULT_CONNECT_MILLIS + ".")
    private long connectMillis = Dtest.DEFAULT_CONNECT_MILLIS;

    /** Creates the command (picocli instantiates it). */
    public DtestCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        String iaName = ia.iaName(spec, "dtest-tcp");
        long timeoutMillis = timeout.millis(spec);
        Dtest.Config cfg;
        try {
            cfg = new Dtest.Config(iaName, role.host, null, (int) connQual.value(), infoPort, size, burst, signalRate,
                    polling, verbose, timeoutMillis, provider, advertise, settleMillis, connectMillis);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        String side = role.server ? "server" : "client";
        try {
            Dtest d = new Dtest(cfg, out);
            if (role.server) {
                d.server();
            } else {
                d.client();
            }
            out.println("jdat dtest " + side + ": PASSED");
            out.flush();
            return 0;
        } catch (SampleFailure e) {
            out.flush();
            spec.commandLine().getErr().println("jdat dtest " + side + ": FAILED: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
    }
}
