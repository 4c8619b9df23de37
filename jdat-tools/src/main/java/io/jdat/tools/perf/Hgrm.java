package io.jdat.tools.perf;

import io.jdat.tools.cli.ToolFailure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code jdat perf --hgrm DIR}: one HdrHistogram percentile distribution file per latency row, in the format of
 * {@code Histogram.outputPercentileDistribution} (the {@code .hgrm} that HdrHistogram's plotter and wrk2 read),
 * values in microseconds, one-way (RTT/2) for the ping-pongs like the table. The file name is the row:
 * {@code rdma-write-ping-pong-64B.hgrm}.
 */
final class Hgrm {
    /** Percentile ticks per half distance, HdrHistogram's usual 5. */
    private static final int TICKS = 5;

    private Hgrm() {
    }

    /**
     * The file of a latency row.
     *
     * @param dir the directory
     * @param r   the row
     * @return {@code dir/OPERATION-SIZEB.hgrm}
     */
    static Path path(Path dir, PerfResult r) {
        String op = r.operation().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
        return dir.resolve(op + "-" + r.size() + "B.hgrm");
    }

    /**
     * Writes the distribution of a latency row.
     *
     * @param dir the directory (created if missing)
     * @param r   the row, with its histogram
     * @return the file written
     * @throws ToolFailure when it cannot be written
     */
    static Path write(Path dir, PerfResult r) {
        Path file = path(dir, r);
        // PrintStream swallows write errors: format into memory, then write the file, which reports them
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(text, false, StandardCharsets.UTF_8)) {
            r.histogram().outputPercentileDistribution(ps, TICKS, 1000.0 * r.divisor());
        }
        try {
            Files.createDirectories(dir);
            Files.write(file, text.toByteArray());
        } catch (IOException e) {
            throw new ToolFailure("--hgrm: cannot write " + file + ": " + e.getMessage());
        }
        return file;
    }
}
