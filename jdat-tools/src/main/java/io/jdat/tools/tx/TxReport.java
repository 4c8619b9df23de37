package io.jdat.tools.tx;

import io.jdat.tools.cli.Json;
import io.jdat.tools.session.CounterFormat;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The summary of {@code jdat tx}: an aligned table, or one JSON object with {@code --json}. */
final class TxReport {
    private static final String ROW = "%-30s %12s %12s %16s %8s%n";

    private TxReport() {
    }

    /**
     * Prints the table.
     *
     * @param out  where
     * @param r    the result
     * @param role "client", "server" or "both sides"
     */
    static void text(PrintWriter out, TxResult r, String role) {
        TxConfig c = r.config;
        out.printf(Locale.ROOT, "jdat tx: provider %s, IA \"%s\"%s (%s)%n", r.provider, c.iaName(),
                r.address.isEmpty() ? "" : ", server " + r.address, role);
        out.printf(Locale.ROOT, "%d thread(s) x %d endpoint(s), %,d iteration(s), %s%n", c.threads(), c.eps(),
                c.iterations(), c.poll() ? "polling (dat_evd_dequeue)" : "waiting (dat_evd_wait)");
        out.println();
        out.printf(Locale.ROOT, ROW, "operation", "expected", "validated", "bytes", "errors");
        for (int k = 0; k < c.ops().size(); k++) {
            TxOp op = c.ops().get(k);
            long v = r.validated(k);
            out.printf(Locale.ROOT, ROW, op, String.format(Locale.ROOT, "%,d", c.executionsPerOp()),
                    String.format(Locale.ROOT, "%,d", v), String.format(Locale.ROOT, "%,d", v * op.bytes()),
                    String.format(Locale.ROOT, "%,d", r.wrong(k)));
        }
        out.printf(Locale.ROOT, ROW, "total", String.format(Locale.ROOT, "%,d", c.totalOps()),
                String.format(Locale.ROOT, "%,d", r.validated()), String.format(Locale.ROOT, "%,d", r.bytes()),
                String.format(Locale.ROOT, "%,d", r.errors()));
        out.println();
        double s = r.elapsedNanos / 1e9;
        out.printf(Locale.ROOT, "elapsed %.3f s, %,.0f operations/s, %,.1f MB/s%n", s, s > 0 ? r.validated() / s : 0.0,
                s > 0 ? r.bytes() / s / 1e6 : 0.0);
        for (TxResult.Counts cn : r.counts()) {
            out.printf(Locale.ROOT, "%-10s %s%n", cn.what() + ":", CounterFormat.line(cn.counters()));
        }
        if (r.peerMissing()) {
            out.println("(the run failed before the peer sent all its counts: validated counts what this side "
                    + "validated, and the peer's counts that arrived)");
        }
        List<String> errors = r.errorLines();
        for (String e : errors) {
            out.println("error: " + e);
        }
        if (r.errors() > errors.size()) {
            out.printf(Locale.ROOT, "(%,d more errors)%n", r.errors() - errors.size());
        }
        out.println(r.passed() ? "PASS" : "FAIL");
        out.flush();
    }

    /**
     * Prints one JSON object.
     *
     * @param out  where
     * @param r    the result
     * @param role "client", "server" or "both"
     */
    static void json(PrintWriter out, TxResult r, String role) {
        TxConfig c = r.config;
        StringBuilder b = new StringBuilder();
        b.append("{\"result\":\"").append(r.passed() ? "PASS" : "FAIL").append('"');
        b.append(",\"role\":").append(Json.str(role));
        b.append(",\"provider\":").append(Json.str(r.provider));
        b.append(",\"ia\":").append(Json.str(c.iaName()));
        if (!r.address.isEmpty()) {
            b.append(",\"server\":").append(Json.str(r.address));
        }
        b.append(",\"threads\":").append(c.threads()).append(",\"endpoints_per_thread\":").append(c.eps());
        b.append(",\"iterations\":").append(c.iterations()).append(",\"poll\":").append(c.poll());
        b.append(",\"ops\":[");
        for (int k = 0; k < c.ops().size(); k++) {
            TxOp op = c.ops().get(k);
            long v = r.validated(k);
            b.append(k == 0 ? "" : ",").append("{\"op\":").append(Json.str(op.toString()))
                    .append(",\"poster\":").append(Json.str(op.byServer() ? "server" : "client"))
                    .append(",\"kind\":").append(Json.str(op.kind().label))
                    .append(",\"segments\":").append(op.segments()).append(",\"segment_size\":").append(op.size())
                    .append(",\"expected\":").append(c.executionsPerOp()).append(",\"validated\":").append(v)
                    .append(",\"bytes\":").append(v * op.bytes()).append(",\"errors\":").append(r.wrong(k)).append('}');
        }
        b.append("],\"total\":{\"expected\":").append(c.totalOps()).append(",\"validated\":").append(r.validated())
                .append(",\"bytes\":").append(r.bytes()).append(",\"errors\":").append(r.errors()).append('}');
        b.append(",\"peer_counts_complete\":").append(!r.peerMissing());
        b.append(",\"elapsed_seconds\":").append(String.format(Locale.ROOT, "%.6f", r.elapsedNanos / 1e9));
        b.append(",\"counters\":{");
        List<TxResult.Counts> counts = r.counts();
        for (int i = 0; i < counts.size(); i++) {
            b.append(i == 0 ? "" : ",").append(Json.str(counts.get(i).what())).append(':')
                    .append(CounterFormat.json(counts.get(i).counters()));
        }
        b.append("},\"errors\":[");
        List<String> errors = r.errorLines();
        for (int i = 0; i < errors.size(); i++) {
            b.append(i == 0 ? "" : ",").append(Json.str(errors.get(i)));
        }
        b.append("]}");
        out.println(b);
        out.flush();
    }

}
