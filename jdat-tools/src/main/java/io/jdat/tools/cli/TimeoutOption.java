package io.jdat.tools.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --timeout TIME}, how long any one wait may make no progress, as a picocli mixin: in one unit in every
 * command, seconds ({@code 10}, {@code 1.5}), or with a unit ({@code 500ms}, {@code 2s}, {@code 1m}); at most
 * {@value #MAX_SECONDS} s. {@code rping} and {@code dtest} took milliseconds before: a value over the limit is
 * answered with the form to write instead.
 */
public final class TimeoutOption {
    /** The longest timeout, in seconds. */
    public static final long MAX_SECONDS = 2000;

    @Option(names = "--timeout", paramLabel = "TIME",
            description = "Fail when a wait makes no progress for this long: seconds, or with a unit (500ms, 2s, "
                    + "1m) (default: ${DEFAULT-VALUE}).")
    private String text;

    /**
     * Creates the option.
     *
     * @param defaultText the timeout without {@code --timeout}, e.g. {@code "10s"}
     */
    public TimeoutOption(String defaultText) {
        this.text = defaultText;
    }

    /**
     * The timeout, checked.
     *
     * @param spec the command, for usage errors
     * @return nanoseconds, at least one millisecond
     * @throws ParameterException when it is not a duration, or out of range
     */
    public long nanos(CommandSpec spec) {
        long nanos;
        try {
            nanos = Seconds.parse(text);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new ParameterException(spec.commandLine(), "--timeout: " + e.getMessage());
        }
        if (nanos > MAX_SECONDS * 1_000_000_000L) {
            throw new ParameterException(spec.commandLine(), "--timeout " + text + " is over " + MAX_SECONDS
                    + " s: it is in seconds (write " + shorter(text) + "s, or " + text + "ms for milliseconds)");
        }
        if (nanos < 1_000_000L) {
            throw new ParameterException(spec.commandLine(), "--timeout must be at least 1ms");
        }
        return nanos;
    }

    /**
     * The timeout in whole seconds, rounded up (what {@code perf} and {@code tx} carry to the peer).
     *
     * @param spec the command, for usage errors
     * @return seconds, 1 to {@value #MAX_SECONDS}
     */
    public int seconds(CommandSpec spec) {
        return (int) Math.max(1, (nanos(spec) + 999_999_999L) / 1_000_000_000L);
    }

    /**
     * The timeout in milliseconds.
     *
     * @param spec the command, for usage errors
     * @return milliseconds, at least 1
     */
    public long millis(CommandSpec spec) {
        return nanos(spec) / 1_000_000L;
    }

    /** An old millisecond count as seconds, for the message: {@code 15000} reads {@code 15}. */
    private static String shorter(String text) {
        try {
            return java.math.BigDecimal.valueOf(Long.parseLong(text.strip()), 3).stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return "N";
        }
    }
}
