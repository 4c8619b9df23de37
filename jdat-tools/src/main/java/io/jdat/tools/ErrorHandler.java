package io.jdat.tools;

import io.jdat.DatException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;
import picocli.CommandLine.ParseResult;

/**
 * Turns a failure of a subcommand into one readable line on standard error and exit code 1: the
 * {@link DatException} or {@link PerfFailure} message as is, anything else with its class name. Set the
 * environment variable {@code JDAT_DEBUG} to also get the stack trace. A usage error prints its message and
 * a pointer to {@code --help} (exit code 2).
 */
final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(prefix(cmd) + ": " + ex.getMessage());
        if (!UnmatchedArgumentException.printSuggestions(ex, err)) {
            err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        }
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        cmd.getErr().println(prefix(cmd) + ": error: " + describe(ex));
        if (System.getenv("JDAT_DEBUG") != null) {
            ex.printStackTrace(cmd.getErr());
        }
        cmd.getErr().flush();
        return 1;
    }

    private static String prefix(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName();
    }

    /**
     * One line for a failure.
     *
     * @param t the failure
     * @return its message, prefixed with the class for unexpected exceptions
     */
    static String describe(Throwable t) {
        if (t instanceof DatException d && d.subtype() == io.jdat.DatReturnSubtype.NAME_NOT_REGISTERED) {
            // Say which providers are here (e.g. before shm lands) and where to look.
            java.util.List<String> names = io.jdat.Registry.entries().stream().map(io.jdat.RegistryEntry::iaName)
                    .toList();
            return t.getMessage() + "; registered IA names: " + String.join(", ", names) + " (jdat info)";
        }
        if (t instanceof DatException || t instanceof PerfFailure) {
            return t.getMessage();
        }
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
