package io.jdat.tools.cli;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import picocli.CommandLine;

/**
 * A duration on the command line, in nanoseconds: seconds by default ({@code 2}, {@code 1.5}), or with a
 * unit: {@code 500ms}, {@code 2s}, {@code 1m}.
 */
public final class Seconds implements CommandLine.ITypeConverter<Long> {
    private static final java.util.regex.Pattern DURATION =
            java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m)?");

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    /**
     * Parses a duration.
     *
     * @param text a decimal number with an optional unit ({@code ms}, {@code s}, {@code m})
     * @return nanoseconds
     * @throws CommandLine.TypeConversionException when it is not a duration
     */
    public static long parse(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a duration (e.g. 2, 1.5s, 500ms)");
        }
        long unit = switch (m.group(2) == null ? "s" : m.group(2)) {
            case "ms" -> 1_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 1_000_000_000L;
        };
        BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit));
        if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new CommandLine.TypeConversionException("'" + text + "' is too long");
        }
        return nanos.longValue();
    }

    /**
     * Formats nanoseconds as seconds for a header, e.g. {@code 2 s}, {@code 0.5 s}.
     *
     * @param nanos the duration
     * @return the text
     */
    public static String format(long nanos) {
        return BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString() + " s";
    }
}
