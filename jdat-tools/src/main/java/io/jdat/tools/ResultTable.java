package io.jdat.tools;

import io.jdat.ProviderAttr;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Locale;

/**
 * The output of {@code jdat perf}: a header with the provider, IA, JDK and settings, then one row per
 * measurement as soon as it completes (median, p99, p99.9 and max latency, or MB/s), then a footer
 * explaining the columns; or, with {@code --json}, one object at the end. Also feeds the {@link Progress}
 * line.
 */
final class ResultTable {
    private static final String ROW = "%-21s %9s %10s %10s %10s %10s %15s%n";

    private final PrintWriter out;
    private final PerfConfig config;
    private final String micro;
    private final boolean counters;
    private final boolean json;
    private final Progress progress;
    private final java.util.List<PerfResult> rows = new java.util.ArrayList<>();
    private final java.util.List<String> countLines = new java.util.ArrayList<>();
    private String provider = "";
    private String address = "";

    /**
     * Creates the table.
     *
     * @param out    where to print
     * @param config the run settings, for the header
     */
    ResultTable(PrintWriter out, PerfConfig config) {
        this(out, config, false, false);
    }

    /**
     * Creates the table.
     *
     * @param out      where to print
     * @param config   the run settings, for the header
     * @param counters whether to print the IAs' DTO counters after the footer
     * @param json     print one JSON object at the {@linkplain #end() end} instead of the table
     */
    ResultTable(PrintWriter out, PerfConfig config, boolean counters, boolean json) {
        this(out, config, counters, json, Progress.NONE);
    }

    /**
     * Creates the table.
     *
     * @param out      where to print
     * @param config   the run settings, for the header
     * @param counters whether to print the IAs' DTO counters after the footer
     * @param json     print one JSON object at the {@linkplain #end() end} instead of the table
     * @param progress the progress line, erased before each row
     */
    ResultTable(PrintWriter out, PerfConfig config, boolean counters, boolean json, Progress progress) {
        this.progress = progress;
        this.out = out;
        this.config = config;
        this.micro = canPrintMicro() ? "µs" : "us";
        this.counters = counters;
        this.json = json;
    }

    /**
     * Prints the DTO counters of both IAs, when asked for ({@code --counters}).
     *
     * @param client the client side
     * @param server the server side, or {@code null} in a two-process run
     */
    synchronized void counters(PerfSide client, PerfSide server) {
        if (!counters) {
            return;
        }
        PerfSide[] sides = server == null ? new PerfSide[] {client} : new PerfSide[] {client, server};
        if (json) {
            for (PerfSide s : sides) {
                countLines.add(TxReport.str(s.role + " IA") + ":" + CounterFormat.json(s.ia.counters()));
            }
            return;
        }
        out.println();
        for (PerfSide s : sides) {
            out.printf(Locale.ROOT, "%-10s %s%n", s.role + " IA:", CounterFormat.line(s.ia.counters()));
        }
        out.flush();
    }

    /**
     * Prints the header and the column titles.
     *
     * @param client        the client side (its provider attributes)
     * @param serverAddress the IA address the client connected to
     */
    synchronized void header(PerfSide client, SocketAddress serverAddress) {
        ProviderAttr p = client.providerAttr;
        provider = p.providerName() + " " + p.providerVersionMajor() + "." + p.providerVersionMinor();
        address = TxClient.display(serverAddress);
        if (json) {
            return;
        }
        out.printf(Locale.ROOT, "jdat perf: provider %s %d.%d (uDAPL %d.%d), IA \"%s\", address %s, "
                + "connection qualifier %d%n",
                p.providerName(), p.providerVersionMajor(), p.providerVersionMinor(), p.daplVersionMajor(),
                p.daplVersionMinor(), config.iaName(), TxClient.display(serverAddress), config.connQual());
        StringBuilder settings = new StringBuilder("JDK ").append(VersionProvider.jvm());
        if (config.latency()) {
            settings.append(config.timed()
                    ? String.format(Locale.ROOT, "; latency: %s per test + %,d warm-up iterations",
                            Seconds.format(config.durationNanos()), config.warmup())
                    : String.format(Locale.ROOT, "; latency: %,d iterations + %,d warm-up", config.iterations(),
                            config.warmup()));
        }
        if (config.bandwidth()) {
            settings.append(String.format(Locale.ROOT, "; bandwidth: %s per test, %d outstanding",
                    config.timed() ? Seconds.format(config.durationNanos()) : Sizes.format(config.bwBytes()),
                    config.window()));
        }
        out.println(settings);
        out.println((config.waitMode() ? "waiting (dat_evd_wait)" : "polling (dat_evd_dequeue)")
                + (config.verify() ? "; data verified" : "; data not verified (--no-verify)")
                + (config.sharedMemory() ? "; buffers in DAT shared memory (--memory shared)" : ""));
        out.println();
        out.printf(Locale.ROOT, ROW, "operation", "size", "median " + micro, "p99 " + micro, "p99.9 " + micro,
                "max " + micro, "bandwidth MB/s");
        out.flush();
    }

    /**
     * Prints one row.
     *
     * @param r the measured row
     */
    synchronized void row(PerfResult r) {
        if (json) {
            rows.add(r);
            return;
        }
        progress.erase();
        out.printf(Locale.ROOT, ROW, r.operation(), Sizes.format(r.size()), number(r.medianMicros(), 2),
                number(r.p99Micros(), 2), number(r.p999Micros(), 2), number(r.maxMicros(), 2),
                number(r.mbPerSecond(), r.mbPerSecond() < 100 ? 2 : 0));
        out.flush();
    }

    /** Prints the footer. */
    synchronized void footer() {
        if (json) {
            return;
        }
        progress.erase();
        out.println();
        if (config.latency()) {
            out.println("median/p99/p99.9/max: one-way latency (RTT/2) for the ping-pongs, post-to-completion for "
                    + "RDMA read;");
        }
        out.println(config.verify()
                ? "MB/s = 10^6 bytes/s. Every transfer was verified (sequence stamps and payload patterns)."
                : "MB/s = 10^6 bytes/s. Data was not verified (--no-verify).");
        out.flush();
    }

    /**
     * With {@code --json}: prints the run as one JSON object (settings, one entry per row, the counters when
     * asked for). Called once the run succeeded.
     */
    synchronized void end() {
        if (!json) {
            return;
        }
        StringBuilder b = new StringBuilder("{\"provider\":").append(TxReport.str(provider))
                .append(",\"ia\":").append(TxReport.str(config.iaName()))
                .append(",\"address\":").append(TxReport.str(address))
                .append(",\"iterations\":").append(config.iterations()).append(",\"warmup\":").append(config.warmup())
                .append(",\"window\":").append(config.window())
                .append(",\"bw_bytes\":").append(config.bwBytes())
                .append(",\"duration_s\":").append(config.timed() ? json(config.durationNanos() / 1e9) : "null")
                .append(",\"tests\":").append(list(config.tests().stream().map(t -> t.label).toList()))
                .append(",\"ops\":").append(list(config.ops().stream().map(o -> o.label).toList()))
                .append(",\"completions\":").append(config.waitMode() ? "\"wait\"" : "\"poll\"")
                .append(",\"verified\":").append(config.verify())
                .append(",\"memory\":").append(config.sharedMemory() ? "\"shared\"" : "\"native\"")
                .append(",\"results\":[");
        for (int i = 0; i < rows.size(); i++) {
            PerfResult r = rows.get(i);
            b.append(i == 0 ? "" : ",").append("{\"operation\":").append(TxReport.str(r.operation()))
                    .append(",\"size\":").append(r.size())
                    .append(",\"count\":").append(r.count())
                    .append(",\"median_us\":").append(json(r.medianMicros()))
                    .append(",\"p99_us\":").append(json(r.p99Micros()))
                    .append(",\"p999_us\":").append(json(r.p999Micros()))
                    .append(",\"max_us\":").append(json(r.maxMicros()))
                    .append(",\"mb_per_s\":").append(json(r.mbPerSecond())).append('}');
        }
        b.append(']');
        if (!countLines.isEmpty()) {
            b.append(",\"counters\":{").append(String.join(",", countLines)).append('}');
        }
        out.println(b.append('}'));
        out.flush();
    }

    /**
     * Tells the progress line which measurement starts.
     *
     * @param index the row, from 0
     * @param total the rows of the run
     * @param m     the measurement
     */
    void starting(int index, int total, Measurement m) {
        progress.measuring(index, total, m.operation() + " " + Sizes.format(m.size()));
    }

    /** Stops and erases the progress line (the run ended, or failed). */
    void stopProgress() {
        progress.close();
    }

    private static String list(java.util.List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            b.append(i == 0 ? "" : ",").append(TxReport.str(items.get(i)));
        }
        return b.append(']').toString();
    }

    private static String json(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static String number(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    private static boolean canPrintMicro() {
        String enc = System.getProperty("stdout.encoding");
        try {
            return enc != null && Charset.forName(enc).newEncoder().canEncode('µ');
        } catch (RuntimeException e) {
            return false;
        }
    }
}
