package io.jdat.tools.perf;

import java.util.Locale;
import picocli.CommandLine;

/**
 * The kinds of measurement {@code jdat perf --test} selects: {@code latency} ({@code lat}) and {@code bandwidth}
 * ({@code bw}).
 */
enum PerfTest {
    /** Ping-pongs and RDMA Read latency: median, p99, p99.9 and max. */
    LATENCY("latency"),
    /** Streams with a window of outstanding transfers: MB/s. */
    BANDWIDTH("bandwidth");

    /** The option value. */
    final String label;

    PerfTest(String label) {
        this.label = label;
    }

    /**
     * Parses a test name or alias, ignoring case.
     *
     * @param text the name
     * @return the test
     * @throws CommandLine.TypeConversionException for an unknown name
     */
    static PerfTest parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "latency", "lat" -> LATENCY;
            case "bandwidth", "bw" -> BANDWIDTH;
            default -> throw new CommandLine.TypeConversionException("'" + text + "' is not a test: use latency or "
                    + "bandwidth");
        };
    }

    /** The picocli converter. */
    static final class Converter implements CommandLine.ITypeConverter<PerfTest> {
        @Override
        public PerfTest convert(String value) {
            return parse(value);
        }
    }
}
