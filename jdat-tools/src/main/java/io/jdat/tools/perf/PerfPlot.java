package io.jdat.tools.perf;

import io.jdat.tools.cli.Seconds;
import io.jdat.tools.cli.Sizes;
import io.jdat.tools.cli.ToolFailure;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.HistogramIterationValue;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code jdat perf --plot FILE}: a PNG chart of the run, drawn with JFreeChart (headless). A run of one size per
 * operation gets the latency percentile distribution of each latency row, on HdrHistogram's axis (percentile as
 * {@code 1 / (1 - p)} on a log scale, so that 99%, 99.9% and 99.99% are evenly spaced); a sweep (several sizes)
 * gets latency (median and p99) and bandwidth against the message size, on log scales. Titles name the provider,
 * the IA and the settings; axes carry units.
 */
final class PerfPlot {
    /** The picture size in pixels. */
    static final int WIDTH = 1200;
    /** The picture height of one panel. */
    static final int PANEL_HEIGHT = 420;
    private static final Font TICKS = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    private static final Font LABELS = new Font(Font.SANS_SERIF, Font.BOLD, 14);

    private PerfPlot() {
    }

    /**
     * Writes the chart.
     *
     * @param file     the PNG file
     * @param config   the run settings (for the title)
     * @param provider the provider's name and version
     * @param rows     the rows of the run
     * @throws ToolFailure when the file cannot be written
     */
    static void write(Path file, PerfConfig config, String provider, List<PerfResult> rows) {
        System.setProperty("java.awt.headless", "true");
        JFreeChart chart = isSweep(rows) ? sizeChart(rows) : percentileChart(rows);
        chart.setTitle(new TextTitle("jdat perf: " + provider + ", IA \"" + config.iaName() + "\"",
                new Font(Font.SANS_SERIF, Font.BOLD, 18)));
        chart.addSubtitle(new TextTitle(subtitle(config), new Font(Font.SANS_SERIF, Font.PLAIN, 13)));
        chart.setBackgroundPaint(Color.WHITE);
        int panels = chart.getPlot() instanceof CombinedDomainXYPlot c ? c.getSubplots().size() : 1;
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, 120 + panels * PANEL_HEIGHT);
        } catch (IOException e) {
            throw new ToolFailure("--plot: cannot write " + file + ": " + e.getMessage());
        }
    }

    /** Whether some operation ran at more than one size. */
    static boolean isSweep(List<PerfResult> rows) {
        Map<String, Set<Long>> sizes = new LinkedHashMap<>();
        for (PerfResult r : rows) {
            sizes.computeIfAbsent(r.operation(), k -> new LinkedHashSet<>()).add(r.size());
        }
        return sizes.values().stream().anyMatch(s -> s.size() > 1);
    }

    private static String subtitle(PerfConfig c) {
        StringBuilder b = new StringBuilder("JDK ").append(Runtime.version().feature());
        if (c.latency()) {
            b.append(c.timed() ? "; latency: " + Seconds.format(c.durationNanos()) + " per size"
                    : String.format(Locale.ROOT, "; latency: %,d iterations per size", c.iterations()));
        }
        if (c.bandwidth()) {
            b.append("; bandwidth: ").append(c.timed() ? Seconds.format(c.durationNanos()) : Sizes.format(c.bwBytes()))
                    .append(" per size, ").append(c.window()).append(" outstanding");
        }
        b.append(c.waitMode() ? "; dat_evd_wait" : "; polling").append(c.verify() ? "; data verified" : "");
        if (c.latency()) {
            b.append("; latency: one-way (RTT/2) for ping-pongs, post to completion for RDMA read");
        }
        return b.toString();
    }

    /** The percentile distribution of every latency row, one line each. */
    private static JFreeChart percentileChart(List<PerfResult> rows) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (PerfResult r : rows) {
            if (!r.isLatency() || r.count() == 0) {
                continue;
            }
            XYSeries s = new XYSeries(r.operation() + " " + Sizes.format(r.size()), false, true);
            double d = 1000.0 * r.divisor();
            double lastX = 0;
            for (HistogramIterationValue v : r.histogram().percentiles(5)) {
                double p = v.getPercentileLevelIteratedTo();
                if (p >= 100.0) {
                    break;
                }
                lastX = 1.0 / (1.0 - p / 100.0);
                s.add(lastX, v.getValueIteratedTo() / d);
            }
            // the maximum, where the last sample sits (when the iteration stopped short of it)
            double maxX = 1.0 / (1.0 - maxPercentile(r.count()) / 100.0);
            if (maxX > lastX) {
                s.add(maxX, r.histogram().getMaxValue() / d);
            }
            data.addSeries(s);
        }
        double right = 10;
        for (int i = 0; i < data.getSeriesCount(); i++) {
            right = Math.max(right, data.getSeries(i).getMaxX());
        }
        LogAxis x = new LogAxis("percentile (log scale of 1 / (1 - percentile))");
        x.setBase(10);
        x.setTickUnit(new NumberTickUnit(1), false, false);
        x.setAutoTickUnitSelection(false);
        x.setNumberFormatOverride(new PercentileFormat());
        x.setRange(1, right * 1.5);
        ValueAxis y = valueAxis("latency (µs)", data);
        XYPlot plot = plot(data, x, y);
        return new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    }

    /** The highest percentile a histogram of {@code n} samples resolves: where its last sample sits. */
    private static double maxPercentile(long n) {
        return 100.0 * (1.0 - 1.0 / Math.max(2, n));
    }

    /** Latency (median and p99) and bandwidth against the message size: one panel each, a shared size axis. */
    private static JFreeChart sizeChart(List<PerfResult> rows) {
        XYSeriesCollection latency = new XYSeriesCollection();
        XYSeriesCollection bandwidth = new XYSeriesCollection();
        Map<String, XYSeries> series = new LinkedHashMap<>();
        for (PerfResult r : rows) {
            if (r.isLatency()) {
                add(series, latency, r.operation() + " median", r.size(), r.medianMicros());
                add(series, latency, r.operation() + " p99", r.size(), r.p99Micros());
            } else {
                add(series, bandwidth, r.operation(), r.size(), r.mbPerSecond());
            }
        }
        long min = rows.stream().mapToLong(PerfResult::size).min().orElse(8);
        long max = rows.stream().mapToLong(PerfResult::size).max().orElse(8);
        LogAxis x = new LogAxis("message size (bytes, log scale)");
        x.setBase(2);
        x.setTickUnit(new NumberTickUnit(Long.numberOfTrailingZeros(Long.highestOneBit(max))
                - Long.numberOfTrailingZeros(Long.highestOneBit(min)) > 12 ? 2 : 1));
        x.setNumberFormatOverride(new SizeFormat());
        x.setRange(min / 1.3, max * 1.3);
        CombinedDomainXYPlot combined = new CombinedDomainXYPlot(x);
        combined.setGap(16);
        if (latency.getSeriesCount() > 0) {
            combined.add(plot(latency, null, valueAxis("latency (µs)", latency)), 1);
        }
        if (bandwidth.getSeriesCount() > 0) {
            combined.add(plot(bandwidth, null, valueAxis("bandwidth (MB/s = 10^6 bytes/s)", bandwidth)), 1);
        }
        style(x);
        return new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, combined, true);
    }

    /**
     * The value axis for the data: a log scale with a tick at every power of ten when the values span more than
     * a decade and a half, else a linear one from zero.
     */
    private static ValueAxis valueAxis(String label, XYSeriesCollection data) {
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (int i = 0; i < data.getSeriesCount(); i++) {
            for (int j = 0; j < data.getItemCount(i); j++) {
                double v = data.getYValue(i, j);
                if (v > 0) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        NumberFormat numbers = new java.text.DecimalFormat("#,##0.###",
                java.text.DecimalFormatSymbols.getInstance(Locale.ROOT));
        if (hi > 0 && hi / lo > 30) {
            LogAxis y = new LogAxis(label + ", log scale");
            y.setBase(10);
            y.setSmallestValue(1e-3);
            y.setTickUnit(new NumberTickUnit(1), false, false);
            y.setAutoTickUnitSelection(false);
            y.setRange(Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi))));
            y.setNumberFormatOverride(numbers);
            return y;
        }
        NumberAxis y = new NumberAxis(label);
        y.setAutoRangeIncludesZero(true);
        y.setNumberFormatOverride(numbers);
        return y;
    }

    private static void add(Map<String, XYSeries> series, XYSeriesCollection into, String name, long size,
            double value) {
        if (Double.isNaN(value) || value <= 0) {
            return;
        }
        XYSeries s = series.computeIfAbsent(name, n -> {
            XYSeries created = new XYSeries(n, true, true);
            into.addSeries(created);
            return created;
        });
        s.addOrUpdate(size, value);
    }

    private static XYPlot plot(XYSeriesCollection data, ValueAxis x, ValueAxis y) {
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        Color[] palette = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
            new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf), new Color(0x7f7f7f)};
        for (int i = 0; i < data.getSeriesCount(); i++) {
            // one colour per operation in every panel (dashed: p99), so the legend reads across the panels
            String key = data.getSeriesKey(i).toString();
            Color c = key.startsWith("send") ? palette[0] : key.startsWith("RDMA write") ? palette[2]
                    : key.startsWith("RDMA read") ? palette[1] : palette[(3 + i) % palette.length];
            renderer.setSeriesPaint(i, c);
            boolean dashed = data.getSeriesKey(i).toString().endsWith(" p99");
            renderer.setSeriesStroke(i, dashed ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                    new float[] {6f, 4f}, 0f) : new BasicStroke(2f));
        }
        if (data.getSeriesCount() > 0 && data.getSeries(0).getItemCount() > 40) {
            renderer.setDefaultShapesVisible(false);
        }
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        style(y);
        if (x != null) {
            style(x);
        }
        return plot;
    }

    private static void style(ValueAxis a) {
        a.setTickLabelFont(TICKS);
        a.setLabelFont(LABELS);
    }

    /** Formats a power of 2 as a size: 8 B, 4 KiB, 1 MiB. */
    private static final class SizeFormat extends NumberFormat {
        private static final long serialVersionUID = 1L;

        @Override
        public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
            return to.append(Sizes.format(Math.round(number)));
        }

        @Override
        public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
            return to.append(Sizes.format(number));
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            return null;
        }
    }

    /** Formats {@code x = 1 / (1 - p)} as the percentile p: 1 as 0%, 10 as 90%, 1000 as 99.9%. */
    private static final class PercentileFormat extends NumberFormat {
        private static final long serialVersionUID = 1L;

        @Override
        public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
            double p = 100.0 * (1.0 - 1.0 / number);
            String s = new java.text.DecimalFormat("0.#####", java.text.DecimalFormatSymbols.getInstance(Locale.ROOT))
                    .format(p);
            return to.append(s).append('%');
        }

        @Override
        public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
            return format((double) number, to, pos);
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            return null;
        }
    }
}
