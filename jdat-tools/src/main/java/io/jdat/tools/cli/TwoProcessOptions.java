package io.jdat.tools.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --server | --client ADDR} and {@code --accept-timeout SECONDS} of {@code perf} and {@code tx}, as a
 * picocli mixin: both sides in one process by default, or one side of a two-process run.
 */
public final class TwoProcessOptions {
    // Plain options, not an exclusive @ArgGroup: picocli 4.7 lists the options of a group in a mixin twice in the
    // usage help. client(spec, ...) checks that they exclude each other.
    @Option(names = "--server", description = "Be the server of a two-process run: listen on --conn-qual (perf: and "
            + "the next qualifier, for the measured connection), take the client's settings, serve one run, exit 0 "
            + "on success.")
    private boolean server;

    @Option(names = "--client", paramLabel = "ADDR", converter = PeerAddress.Converter.class,
            description = "Be the client of a two-process run, connecting to ADDR: HOST[:QUALIFIER] (tcp: "
                    + "QUALIFIER is the port; perf's measured connection uses QUALIFIER + 1), [IPv6]:QUALIFIER, "
                    + "mem:NAME, or for shm the server IA's directory /PATH[:QUALIFIER] or shm:NAME[:QUALIFIER].")
    private PeerAddress client;

    @Option(names = "--accept-timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "--server: give up when no client connects within this time (default: 0, wait forever).")
    private int acceptTimeout;

    /** Creates the options (picocli fills them in). */
    public TwoProcessOptions() {
    }

    /** @return whether {@code --server} was given */
    public boolean server() {
        return server;
    }

    /** @return the {@code --client} address, or {@code null} */
    public PeerAddress client() {
        return client;
    }

    /**
     * The {@code --client} address, checked: a usage error when {@code --server} is given too, or when the IA
     * cannot reach an address of that kind ({@link IaNames#requireAddressFits}).
     *
     * @param spec   the command
     * @param iaName the IA this side opens
     * @return the address, or {@code null} without {@code --client}
     */
    public PeerAddress client(CommandSpec spec, String iaName) {
        PeerAddress c = client();
        if (c != null && server) {
            throw new ParameterException(spec.commandLine(), "--server and --client exclude each other: pick one");
        }
        if (c != null) {
            IaNames.requireAddressFits(spec, iaName, c.address(), PeerAddress.display(c.address()));
        }
        return c;
    }

    /** @return whether both sides run in this process (neither {@code --server} nor {@code --client}) */
    public boolean oneProcess() {
        return !server && client == null;
    }

    /** @return {@code --accept-timeout} in seconds (0: wait forever) */
    public int acceptTimeout() {
        return acceptTimeout;
    }
}
