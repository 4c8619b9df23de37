package io.jdat.tools.perf;

import io.jdat.ProviderAttr;
import io.jdat.tools.cli.Json;
import io.jdat.tools.cli.PeerAddress;
import io.jdat.tools.cli.Seconds;
import io.jdat.tools.cli.Sizes;
import io.jdat.tools.cli.VersionProvider;
import io.jdat.tools.session.CounterFormat;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The output of {@code jdat perf}: a header with the provider, IA, JDK and settings, then one row per
 * measurement as soon as it completes (min, median, average, standard deviation, p99, p99.9 and max latency
 * and the message rate, or MB/s and the message rate), then a footer explaining the columns; or, with
 * {@code --json}, one object at the end; or, with {@code --csv}, a header line and one line per row as it
 * completes. Besides: one HdrHistogram percentile distribution file per latency row ({@code --hgrm DIR}) and
 * a chart of the run ({@code --plot FILE}, {@link PerfPlot}). Also feeds the {@link Progress} line.
 */
final class ResultTable {
    private static final String ROW = "%-21s %9s %9s %9s %9s %9s %9s %9s %9s %10s %12s %11s%n";
    /** The columns of {@code --csv}. */
    static final String CSV_HEADER = "operation,size_bytes,count,min_us,median_us,mean_us,stdev_us,p99_us,p999_us,"
            + "max_us,mb_per_s,msg_per_s,cpu_us_per_msg,completions,buffers";

    /** How the rows are printed. */
    enum Format {
        /** An aligned table with a header and a footer. */
        TABLE,
        /** One JSON object at the end. */
        JSON,
        /** Comma-separated values, a header line, then a line per row as it completes. */
        CSV
    }

    /**
     * What goes where besides the rows.
     *
     * @param format   table, JSON or CSV
     * @param counters print each IA's DTO counters
     * @param hgrmDir  write one {@code .hgrm} percentile distribution per latency row here, or {@code null}
     * @param plotFile write a chart of the run here (PNG), or {@code null}
     */
    record Outputs(Format format, boolean counters, Path hgrmDir, Path plotFile) {
        /** Just the table. */
        static final Outputs TABLE = new Outputs(Format.TABLE, false, null, null);
    }

    private final PrintWriter out;
    private final PerfConfig config;
    private final String micro;
    private final boolean counters;
    private final boolean json;
    private final boolean csv;
    private final Outputs outputs;
    private final Progress progress;
    private final java.util.List<String> written = new java.util.ArrayList<>();
    private final java.util.List<PerfResult> rows = new java.util.ArrayList<>();
    private final java.util.List<String> countLines = new java.util.ArrayList<>();
    private String provider = "";
    /** What a clock reading costs: measured once, by the header or the JSON object, whichever comes first. */
    private ClockCost clock;
    private String address = "";
    /** The CPUs the measuring threads were pinned to ({@code --cpu}), -1 where unpinned or unknown here. */
    private int serverCpu = -1;
    private int clientCpu = -1;

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
        this(out, config, new Outputs(json ? Format.JSON : Format.TABLE, counters, null, null), progress);
    }

    /**
     * Creates the table.
     *
     * @param out      where to print
     * @param config   the run settings, for the header
     * @param outputs  the format and the extra outputs
     * @param progress the progress line, erased before each row
     */
    ResultTable(PrintWriter out, PerfConfig config, Outputs outputs, Progress progress) {
        this.progress = progress;
        this.out = out;
        this.config = config;
        this.micro = canPrintMicro() ? "µs" : "us";
        this.outputs = outputs;
        this.counters = outputs.counters();
        this.json = outputs.format() == Format.JSON;
        this.csv = outputs.format() == Format.CSV;
    }

    /**
     * Prints the DTO counters of both IAs, when asked for ({@code --counters}).
     *
     * @param client the client side
     * @param server the server side, or {@code null} in a two-process run
     */
    synchronized void counters(PerfSide client, PerfSide server) {
        if (!counters || csv) {
            return;
        }
        PerfSide[] sides = server == null ? new PerfSide[] {client} : new PerfSide[] {client, server};
        if (json) {
            for (PerfSide s : sides) {
                countLines.add(Json.str(s.role + " IA") + ":" + CounterFormat.json(s.ia.counters()));
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
        address = PeerAddress.display(serverAddress);
        if (json) {
            return;
        }
        if (csv) {
            out.println(CSV_HEADER);
            out.flush();
            return;
        }
        out.printf(Locale.ROOT, "jdat perf: provider %s %d.%d (uDAPL %d.%d), IA \"%s\", address %s, "
                + "connection qualifier %d%n",
                p.providerName(), p.providerVersionMajor(), p.providerVersionMinor(), p.daplVersionMajor(),
                p.daplVersionMinor(), config.iaName(), PeerAddress.display(serverAddress), config.connQual());
        StringBuilder settings = new StringBuilder("JDK ").append(VersionProvider.jvm());
        if (config.latency()) {
            settings.append(config.timed()
                    ? String.format(Locale.ROOT, "; latency: %s per test + %,d warm-up iterations",
                            Seconds.format(config.durationNanos()), config.warmup())
                    : String.format(Locale.ROOT, "; latency: %,d iterations + %,d warm-up", config.iterations(),
                            config.warmup()));
            settings.append("; ").append(clock().describe(micro)); // about one reading falls in each sample
        }
        if (config.bandwidth()) {
            settings.append(String.format(Locale.ROOT, "; bandwidth: %s per test, %d outstanding, an event every %d",
                    config.timed() ? Seconds.format(config.durationNanos()) : Sizes.format(config.bwBytes()),
                    config.window(), config.signalEvery(config.window())));
            if (config.bwWarmup() >= 0) {
                settings.append(String.format(Locale.ROOT, " + %,d warm-up transfers", config.bwWarmup()));
            }
        }
        out.println(settings);
        out.println((config.waitMode() ? "waiting (dat_evd_wait)" : "polling (dat_evd_dequeue)")
                + (config.verify() ? "; data verified" : "; data not verified (--no-verify)")
                + (config.sharedMemory() ? "; buffers in DAT shared memory (--memory shared)"
                        : PerfSide.isShm(config.iaName()) ? "; buffers in native memory (--memory native)" : "")
                + pinning());
        out.println(modeLine(config));
        out.println();
        out.printf(Locale.ROOT, ROW, "operation", "size", "min " + micro, "median " + micro, "avg " + micro,
                "stdev " + micro, "p99 " + micro, "p99.9 " + micro, "max " + micro, "MB/s", "msg/s",
                "CPU " + micro + "/msg");
        out.flush();
    }

    /**
     * Prints one row.
     *
     * @param r the measured row
     */
    synchronized void row(PerfResult r) {
        rows.add(r);
        if (outputs.hgrmDir() != null && r.isLatency()) {
            written.add(Hgrm.write(outputs.hgrmDir(), r).toString());
        }
        if (json) {
            return;
        }
        progress.erase();
        if (csv) {
            out.println(String.join(",", csvField(r.operation()), Long.toString(r.size()), Long.toString(r.count()),
                    raw(r.minMicros()), raw(r.medianMicros()), raw(r.meanMicros()), raw(r.stdevMicros()),
                    raw(r.p99Micros()), raw(r.p999Micros()), raw(r.maxMicros()), raw(r.mbPerSecond()),
                    raw(r.msgPerSecond()), raw(r.cpuMicrosPerMessage()), completions(config), buffers(config)));
            out.flush();
            return;
        }
        out.printf(Locale.ROOT, ROW, r.operation(), Sizes.format(r.size()), number(r.minMicros(), 2),
                number(r.medianMicros(), 2), number(r.meanMicros(), 2), number(r.stdevMicros(), 2),
                number(r.p99Micros(), 2), number(r.p999Micros(), 2), number(r.maxMicros(), 2),
                number(r.mbPerSecond(), r.mbPerSecond() < 100 ? 2 : 0),
                number(r.msgPerSecond(), r.msgPerSecond() < 100 ? 2 : 0), number(r.cpuMicrosPerMessage(), 2));
        out.flush();
    }

    /** Prints the footer. */
    synchronized void footer() {
        if (json || csv) {
            return;
        }
        progress.erase();
        out.println();
        if (config.latency()) {
            out.println("min/median/avg/stdev/p99/p99.9/max: one-way latency (RTT/2) for the ping-pongs, "
                    + "post-to-completion for RDMA read;");
        }
        out.println("msg/s: messages per second, 1/avg for latency rows (one in flight), transfers per second for "
                + "streams;");
        out.println("MB/s = 10^6 bytes/s; CPU " + micro + "/msg: CPU time of both sides' processes (every thread) "
                + "per message over the measured rounds (a ping-pong iteration is two messages).");
        out.println(!config.verify() ? "Data was not verified (--no-verify)."
                : config.perOpBuffers() || !config.bandwidth()
                        ? "Every transfer was verified (sequence stamps and payload patterns)."
                        : "Every transfer was verified (sequence stamps and payload patterns; the streams' one buffer "
                                + "pair: the pattern all their transfers carry).");
        if (!written.isEmpty()) {
            out.println("Percentile distributions (HdrHistogram .hgrm, " + micro + "): " + written.size()
                    + " file(s) in " + outputs.hgrmDir());
        }
        out.flush();
    }

    /**
     * With {@code --json}: prints the run as one JSON object (settings, one entry per row, the counters when
     * asked for). Called once the run succeeded.
     */
    synchronized void end() {
        if (outputs.plotFile() != null) {
            PerfPlot.write(outputs.plotFile(), config, provider, rows);
            if (!json && !csv) {
                out.println("Chart: " + outputs.plotFile());
                out.flush();
            }
        }
        if (!json) {
            return;
        }
        StringBuilder b = new StringBuilder("{\"provider\":").append(Json.str(provider))
                .append(",\"ia\":").append(Json.str(config.iaName()))
                .append(",\"address\":").append(Json.str(address))
                .append(",\"iterations\":").append(config.iterations()).append(",\"warmup\":").append(config.warmup())
                .append(",\"window\":").append(config.window())
                .append(",\"signal_every\":").append(config.signalEvery(config.window()))
                .append(",\"bw_warmup\":").append(config.bwWarmup() >= 0 ? Long.toString(config.bwWarmup()) : "null")
                .append(",\"bw_bytes\":").append(config.bwBytes())
                .append(",\"duration_s\":").append(config.timed() ? json(config.durationNanos() / 1e9) : "null")
                .append(",\"tests\":").append(list(config.tests().stream().map(t -> t.label).toList()))
                .append(",\"ops\":").append(list(config.ops().stream().map(o -> o.label).toList()))
                .append(",\"completions\":").append(config.waitMode() ? "\"wait\"" : "\"poll\"")
                .append(",\"verified\":").append(config.verify())
                .append(",\"memory\":").append(config.sharedMemory() ? "\"shared\"" : "\"native\"")
                .append(",\"buffers\":").append(Json.str(buffers(config)))
                .append(",\"serving_side\":").append(config.serverParks() ? "\"parks\"" : "\"polls\"")
                .append(",\"clock_ns_per_reading\":").append(json(clock().nanosPerReading()))
                .append(",\"clock_source\":").append(clock().source() == null ? "null" : Json.str(clock().source()))
                .append(",\"server_cpu\":").append(serverCpu >= 0 ? Integer.toString(serverCpu) : "null")
                .append(",\"client_cpu\":").append(clientCpu >= 0 ? Integer.toString(clientCpu) : "null")
                .append(",\"results\":[");
        for (int i = 0; i < rows.size(); i++) {
            PerfResult r = rows.get(i);
            b.append(i == 0 ? "" : ",").append("{\"operation\":").append(Json.str(r.operation()))
                    .append(",\"size\":").append(r.size())
                    .append(",\"count\":").append(r.count())
                    .append(",\"min_us\":").append(json(r.minMicros()))
                    .append(",\"median_us\":").append(json(r.medianMicros()))
                    .append(",\"mean_us\":").append(json(r.meanMicros()))
                    .append(",\"stdev_us\":").append(json(r.stdevMicros()))
                    .append(",\"p99_us\":").append(json(r.p99Micros()))
                    .append(",\"p999_us\":").append(json(r.p999Micros()))
                    .append(",\"max_us\":").append(json(r.maxMicros()))
                    .append(",\"mb_per_s\":").append(json(r.mbPerSecond()))
                    .append(",\"msg_per_s\":").append(json(r.msgPerSecond()))
                    .append(",\"cpu_us_per_msg\":").append(json(r.cpuMicrosPerMessage()));
            if (outputs.hgrmDir() != null && r.isLatency()) {
                b.append(",\"hgrm\":").append(Json.str(Hgrm.path(outputs.hgrmDir(), r).toString()));
            }
            b.append('}');
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

    /**
     * The line of the header that says how perf measures, against the peers' semantics.
     *
     * @param c the settings
     * @return the line
     */
    static String modeLine(PerfConfig c) {
        return (c.perOpBuffers()
                ? "streams: a buffer per outstanding transfer (--buffers per-op, out of cache)"
                : "streams: one buffer pair, reused by every transfer (as ucx_perftest and fi_pingpong; --buffers "
                        + "per-op for one per outstanding transfer)")
                + (c.serverParks() ? "; the serving side parks in the one-sided tests (--server-idle park: a passive "
                        + "target)" : "; the serving side polls (as their responders do)");
    }

    /**
     * Records where {@code --cpu} pins the measuring threads, for the header and the JSON object.
     *
     * @param server the server thread's CPU, -1 when unpinned or in another process
     * @param client the client thread's CPU, -1 when unpinned
     */
    synchronized void pinned(int server, int client) {
        serverCpu = server;
        clientCpu = client;
    }

    /** {@return the header's words on {@code --cpu}: empty when no thread is pinned} */
    private String pinning() {
        if (serverCpu < 0 && clientCpu < 0) {
            return "";
        }
        if (serverCpu < 0) {
            return "; client thread on CPU " + clientCpu + " (--cpu)";
        }
        return "; server thread on CPU " + serverCpu + ", client thread on CPU " + clientCpu + " (--cpu)";
    }

    /** {@return the clock's cost, measured once, when the header or the JSON object first needs it} */
    private ClockCost clock() {
        if (clock == null) {
            clock = ClockCost.measure();
        }
        return clock;
    }

    /** The {@code completions} value of the CSV and JSON output. */
    static String completions(PerfConfig c) {
        return c.waitMode() ? "wait" : "poll";
    }

    /** The {@code buffers} value of the CSV and JSON output. */
    static String buffers(PerfConfig c) {
        return c.perOpBuffers() ? "per-op" : "one";
    }

    private static String list(java.util.List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            b.append(i == 0 ? "" : ",").append(Json.str(items.get(i)));
        }
        return b.append(']').toString();
    }

    private static String json(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** A CSV number: plain, no grouping; empty when absent. */
    private static String raw(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** A CSV text field, quoted when it holds a comma or a quote. */
    private static String csvField(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    /** The rows measured so far, in order. */
    synchronized java.util.List<PerfResult> rows() {
        return java.util.List.copyOf(rows);
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
