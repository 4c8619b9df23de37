package io.jdat.tools.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import picocli.CommandLine;

/**
 * Byte sizes on the command line and in output: {@code 64}, {@code 4K}, {@code 1MiB}, {@code 2G} (binary
 * multiples; {@code K}, {@code KB} and {@code KiB} all mean 1024), and lists of them with sweeps
 * ({@code 64,4K}, {@code 64..64K}).
 */
public final class Sizes implements CommandLine.ITypeConverter<Long> {
    private static final java.util.regex.Pattern SIZE =
            java.util.regex.Pattern.compile("(\\d+)\\s*([kKmMgGtT]?)(?:[iI]?[bB])?");

    /** Creates the converter (picocli instantiates it). */
    public Sizes() {
    }

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    /**
     * Parses a size.
     *
     * @param text a number with an optional binary suffix
     * @return the number of bytes
     * @throws CommandLine.TypeConversionException when it is not a size
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new CommandLine.TypeConversionException("'" + text + "' is not a byte size (e.g. 64, 4K, 1MiB)");
        }
        int shift = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + text + "' is too large");
        }
    }

    /**
     * Parses size lists: each item is a size or a sweep {@code FROM..TO} (FROM, 2 x FROM, 4 x FROM, ... up
     * to TO). Duplicates are dropped; the order is kept.
     *
     * @param items the items, e.g. {@code ["64", "1K..8K"]}
     * @return the sizes
     * @throws CommandLine.TypeConversionException when an item is neither a size nor a sweep
     */
    public static java.util.List<Long> parseList(java.util.List<String> items) {
        java.util.LinkedHashSet<Long> sizes = new java.util.LinkedHashSet<>();
        for (String item : items) {
            int dots = item.indexOf("..");
            if (dots < 0) {
                sizes.add(parse(item));
                continue;
            }
            long from = parseOrExplain(item.substring(0, dots), item);
            long to = parseOrExplain(item.substring(dots + 2), item);
            if (from < 1 || from > to) {
                throw new CommandLine.TypeConversionException("'" + item + "' is not a sweep: FROM..TO needs "
                        + "1 <= FROM <= TO (e.g. 64..64K)");
            }
            for (long s = from; s <= to; s *= 2) {
                sizes.add(s);
                if (s > Long.MAX_VALUE / 2) {
                    break;
                }
            }
        }
        return java.util.List.copyOf(sizes);
    }

    private static long parseOrExplain(String part, String item) {
        try {
            return parse(part);
        } catch (CommandLine.TypeConversionException e) {
            throw new CommandLine.TypeConversionException("'" + item + "' is not a sweep FROM..TO of sizes "
                    + "(e.g. 64..64K)");
        }
    }

    /**
     * Formats a size for a table: {@code 64 B}, {@code 4 KiB}, {@code 1 MiB}, or bytes when not a whole multiple.
     *
     * @param bytes the size
     * @return the text
     */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return v + " " + units[u];
    }
}
