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
 * environment variable {@code JDAT_DEBUG} to also get the stack trace. A usage error is one line too: its
 * message, naming the fix, or picocli's with a suggestion or a pointer to {@code --help} (exit code 2).
 */
final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(prefix(cmd) + ": " + usageMessage(ex, args).replace('\n', ' ').strip());
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * The one line for a usage error: the message, which names the fix when a command raised it; picocli's own
     * messages get the suggestions for a mistyped option or a pointer to {@code --help}. An old
     * {@code --wait SECONDS} (now {@code --accept-timeout}) is explained.
     */
    private static String usageMessage(ParameterException ex, String[] args) {
        String oldWait = oldWait(args);
        if (oldWait != null && (ex instanceof UnmatchedArgumentException || ex.getMessage().contains("--wait"))) {
            return "--wait takes no value (it waits for completions in dat_evd_wait); for how long the server waits "
                    + "for a client use --accept-timeout " + oldWait;
        }
        if (ex instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            return ex.getMessage() + "; did you mean " + String.join(" or ", u.getSuggestions()) + "?";
        }
        if (ex.getClass() == ParameterException.class) {
            return ex.getMessage();
        }
        return ex.getMessage() + " (see '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help')";
    }

    /** The SECONDS of an old-style {@code --wait SECONDS} or {@code --wait=SECONDS}, or {@code null}. */
    private static String oldWait(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String value = args[i].startsWith("--wait=") ? args[i].substring(7)
                    : args[i].equals("--wait") && i + 1 < args.length ? args[i + 1] : null;
            if (value != null && value.matches("\\d+")) {
                return value;
            }
        }
        return null;
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
