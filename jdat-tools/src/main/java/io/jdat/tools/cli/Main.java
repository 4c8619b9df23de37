package io.jdat.tools.cli;

import io.jdat.tools.dtest.DtestCommand;
import io.jdat.tools.info.InfoCommand;
import io.jdat.tools.perf.PerfCommand;
import io.jdat.tools.rping.RpingCommand;
import io.jdat.tools.tx.TxCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code jdat} command: the entry point of the tools jar, with the subcommands {@code perf},
 * {@code tx}, {@code info}, {@code rping} and {@code dtest} (and {@code test}, the former name of {@code tx},
 * hidden). Every command answers {@code --help}. Exit code 0 on success, 1 on a failure (one readable line on
 * standard error), 2 on a usage error.
 */
@Command(name = "jdat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Tools for jdat, the DAT (uDAPL 1.2) RDMA consumer API for Java.",
        subcommands = {PerfCommand.class, TxCommand.class, TxCommand.OldName.class, InfoCommand.class,
                RpingCommand.class, DtestCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the top command (picocli instantiates it). */
    public Main() {
    }

    /** Without a subcommand: prints the usage and fails with a usage error. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "missing subcommand (perf, tx, info, rping, dtest; see jdat --help)");
    }

    /**
     * The configured command line: subcommands, the one-line error handler. Tests call
     * {@link CommandLine#execute} on it after redirecting {@link CommandLine#setOut}/{@link CommandLine#setErr}.
     *
     * @return a new command line for {@code jdat}
     */
    public static CommandLine newCommandLine() {
        CommandLine cl = new CommandLine(new Main());
        ErrorHandler handler = new ErrorHandler();
        cl.setExecutionExceptionHandler(handler);
        cl.setParameterExceptionHandler(handler);
        return cl;
    }

    /**
     * Runs {@code jdat} and exits with its exit code.
     *
     * @param args the command-line arguments
     */
    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }
}
