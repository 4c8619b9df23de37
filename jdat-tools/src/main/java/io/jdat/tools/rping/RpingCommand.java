package io.jdat.tools.rping;

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
import picocli.CommandLine.Spec;

/**
 * {@code jdat rping}: librdmacm's {@code rping} over DAT ({@link Rping}), with rping's options, so that it
 * runs against the real rping on a kernel RDMA device: {@code jdat rping -s -p 7174 -V} or
 * {@code jdat rping -c -a HOST -p 7174 -C 10 -S 4096 -V -v}. The IA is {@code tcp} unless {@code --ia} names
 * another; {@code --ia-params} opens a {@code tcp} IA with those dat.conf parameters (e.g.
 * {@code "crc=on"}). Prints one summary line; exit code 0 when every ping verified, 1 otherwise.
 */
@Command(name = "rping", versionProvider = VersionProvider.class,
        description = "rping over DAT: ping-pong with RDMA Read and Write, compatible with librdmacm's rping.",
        sortOptions = false)
public final class RpingCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    // Not mixinStandardHelpOptions: its -V (version) clashes with rping's -V (verify), and picocli then drops
    // the whole mixin, --help included.
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    private boolean help;

    @Option(names = "--version", versionHelp = true, description = "Print version information and exit.")
    private boolean version;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Role role;

    static final class Role {
        @Option(names = "-s", description = "Server: take one client and serve its pings.")
        boolean server;
        @Option(names = "-c", description = "Client.")
        boolean client;
    }

    @Option(names = "-a", paramLabel = "ADDR", description = "The server's address (client). Default: 127.0.0.1.")
    private String address = "127.0.0.1";

    @Option(names = "-p", paramLabel = "PORT", description = "The port (connection qualifier). Default: 7174.")
    private int port = 7174;

    @Option(names = "-C", paramLabel = "COUNT", description = "Pings (client; the server then expects exactly "
            + "this many). Default: 1 for the client, any for the server.")
    private int count = -1;

    @Option(names = "-S", paramLabel = "SIZE", description = "Buffer size, 23..65536. Default: 64.")
    private int size = 64;

    @Option(names = "-v", description = "Print each ping's data, as rping -v.")
    private boolean verbose;

    @Option(names = "-V", description = "Verify the data (the server checks rping's pattern).")
    private boolean validate;

    @Mixin
    private TcpIaOptions ia = new TcpIaOptions();

    @Mixin
    private TimeoutOption timeout = new TimeoutOption("10s");

    /** Creates the command (picocli instantiates it). */
    public RpingCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        String iaName = ia.iaName(spec, "rping-tcp");
        long timeoutMillis = timeout.millis(spec);
        int n = role.client ? Math.max(count, 1) : Math.max(count, 0);
        Rping r = new Rping(new Rping.Config(iaName, address, port, n, size, verbose, validate, timeoutMillis), out);
        String side = role.client ? "client" : "server";
        try {
            int done = role.client ? r.client() : r.server();
            out.println("rping " + side + ": " + done + " pings of " + size + " bytes "
                    + (validate ? "verified" : "done"));
            out.flush();
            return 0;
        } catch (SampleFailure e) {
            out.flush();
            spec.commandLine().getErr().println("rping " + side + ": FAILED: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        }
    }
}
