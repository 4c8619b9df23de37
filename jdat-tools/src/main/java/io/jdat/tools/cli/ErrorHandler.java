package io.jdat.tools.cli;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns a failure of a subcommand into one readable line on standard error and exit code 1: the
 * {@link DatException} or {@link ToolFailure} message as is, anything else with its class name. Set the
 * environment variable {@code JDAT_DEBUG} to also get the stack trace. A usage error is one line too: its
 * message, naming the fix, or picocli's with a suggestion or a pointer to {@code --help} (exit code 2).
 */
public final class ErrorHandler implements IExecutionExceptionHandler, IParameterExceptionHandler {
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
        cmd.getErr().println(prefix(cmd) + ": error: " + describe(ex) + hint(ex, cmd.getCommandSpec()));
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
     * What to do about a failure, where the command can say it: a connection qualifier in use names the option
     * that picks another.
     *
     * @param t    the failure
     * @param spec the command that failed
     * @return the hint, starting with {@code "; "}, or {@code ""}
     */
    public static String hint(Throwable t, CommandSpec spec) {
        if (t instanceof DatException d && d.type() == DatReturnType.CONN_QUAL_IN_USE) {
            if (spec.findOption("--conn-qual") != null) {
                return "; pick a free one with --conn-qual Q" + (spec.name().equals("perf")
                        ? " (perf listens on Q and Q + 1)" : "");
            }
            if (spec.findOption("-p") != null && spec.findOption("-p").paramLabel().equals("PORT")) {
                return "; pick a free one with -p PORT";
            }
        }
        return "";
    }

    /**
     * One line for a failure, for users: the message without the conformance statement IDs the library cites
     * (such as {@code (CON-12)}).
     *
     * @param t the failure
     * @return its message, prefixed with the class for unexpected exceptions
     */
    public static String describe(Throwable t) {
        if (t instanceof DatException d && d.subtype() == io.jdat.DatReturnSubtype.NAME_NOT_REGISTERED) {
            // Say which providers are here (e.g. before shm lands) and where to look.
            return withoutIds(t.getMessage()) + "; registered IA names: " + String.join(", ", IaNames.registered())
                    + " (jdat info)";
        }
        if (t instanceof Aborted) {
            return "stopped because the other side failed (its message says why)";
        }
        if (t instanceof DatException || t instanceof ToolFailure) {
            return withoutIds(t.getMessage());
        }
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + withoutIds(m));
    }

    /** Drops the IDs of CONFORMANCE.md statements, {@code " (CON-12)"} or {@code " (SRZ-03, AMB-25)"}. */
    public static String withoutIds(String message) {
        return message == null ? null : IDS.matcher(message).replaceAll("");
    }

    private static final java.util.regex.Pattern IDS = java.util.regex.Pattern.compile(
            " ?\\((?:see )?[A-Z]{2,4}-[0-9]{2,3}[a-z]?(?:/[0-9]{2,3})?(?:, ?[A-Z]{2,4}-[0-9]{2,3}[a-z]?)*\\)");
}
