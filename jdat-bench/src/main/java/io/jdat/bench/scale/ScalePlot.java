package io.jdat.bench.scale;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code scale.sh --plot FILE}: the scale curve as a PNG, drawn with JFreeChart (headless, as {@code jdat perf
 * --plot}): four panels against the number of connections N (log scale), one line per provider: aggregate round
 * trips per second, the empty poll in ns, connections set up per second and memory per connection (heap solid,
 * resident dashed; the legend is that panel's, each provider keeps its colour in every panel). Every value axis
 * is logarithmic: the providers differ by orders of magnitude. Failed rows (NaN) and non-positive values (a
 * collection between the two heap readings) are left out.
 */
final class ScalePlot {
    /** The picture width in pixels. */
    static final int WIDTH = 1100;
    /** The height of one panel in pixels. */
    static final int PANEL_HEIGHT = 300;
    private static final Font TICKS = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private static final Font LABELS = new Font(Font.SANS_SERIF, Font.BOLD, 13);
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd)};

    private ScalePlot() {
    }

    /**
     * Writes the chart.
     *
     * @param file     the PNG file (its directory is created)
     * @param rows     the table's rows
     * @param subtitle what was measured where (command, machine, load)
     * @throws IOException when the file cannot be written
     */
    static void write(Path file, List<ScaleBench.Row> rows, String subtitle) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> providers = new ArrayList<>();
        for (ScaleBench.Row r : rows) {
            if (!providers.contains(r.provider())) {
                providers.add(r.provider());
            }
        }
        LogAxis x = logAxis("connections N (log scale)");
        x.setBase(4); // ticks at 1, 4, 16, 64, 256, 1024, 4096
        x.setNumberFormatOverride(integers());
        CombinedDomainXYPlot combined = new CombinedDomainXYPlot(x);
        combined.setGap(12);
        combined.add(panel(rows, providers, "round trips/s (all N active)", ScaleBench.Row::roundTripsPerSec, null),
                1);
        combined.add(panel(rows, providers, "empty poll (ns)", ScaleBench.Row::pollNanos, null), 1);
        combined.add(panel(rows, providers, "set-up (connections/s)", ScaleBench.Row::setupPerSec, null), 1);
        combined.add(panel(rows, providers, "bytes per connection", r -> r.heapPerConn(), r -> r.rssPerConn()), 1);
        JFreeChart chart = new JFreeChart(null, JFreeChart.DEFAULT_TITLE_FONT, combined, true);
        chart.setTitle(new TextTitle("jdat: how cost grows with connections (ScaleBench)",
                new Font(Font.SANS_SERIF, Font.BOLD, 17)));
        chart.addSubtitle(new TextTitle(subtitle, new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        chart.setBackgroundPaint(Color.WHITE);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, 110 + 4 * PANEL_HEIGHT);
    }

    /**
     * One panel: {@code solid} per provider, and {@code dashed} (if not null) per provider as a second line
     * named "... resident".
     */
    private static XYPlot panel(List<ScaleBench.Row> rows, List<String> providers, String label,
            ToDoubleFunction<ScaleBench.Row> solid, ToDoubleFunction<ScaleBench.Row> dashed) {
        XYSeriesCollection data = new XYSeriesCollection();
        Map<Integer, Boolean> isDashed = new LinkedHashMap<>();
        Map<Integer, Integer> colour = new LinkedHashMap<>();
        for (int p = 0; p < providers.size(); p++) {
            String name = providers.get(p);
            XYSeries s = series(rows, name, dashed == null ? name : name + " heap", solid);
            if (s.getItemCount() > 0) {
                isDashed.put(data.getSeriesCount(), false);
                colour.put(data.getSeriesCount(), p);
                data.addSeries(s);
            }
            if (dashed != null) {
                XYSeries d = series(rows, name, name + " resident", dashed);
                if (d.getItemCount() > 0) {
                    isDashed.put(data.getSeriesCount(), true);
                    colour.put(data.getSeriesCount(), p);
                    data.addSeries(d);
                }
            }
        }
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        // one legend for the chart: the memory panel's (each provider's colour, heap solid, resident dashed)
        renderer.setDefaultSeriesVisibleInLegend(dashed != null);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, PALETTE[colour.get(i) % PALETTE.length]);
            renderer.setSeriesStroke(i, isDashed.get(i)
                    ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
                    : new BasicStroke(2f));
        }
        LogAxis y = logAxis(label);
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (int i = 0; i < data.getSeriesCount(); i++) {
            XYSeries s = data.getSeries(i);
            lo = Math.min(lo, s.getMinY());
            hi = Math.max(hi, s.getMaxY());
        }
        if (hi > 0) {
            y.setRange(Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi))));
        }
        y.setNumberFormatOverride(integers());
        XYPlot plot = new XYPlot(data, null, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        return plot;
    }

    /** The positive, finite values of {@code provider}'s rows; a repeated N keeps its last value. */
    private static XYSeries series(List<ScaleBench.Row> rows, String provider, String name,
            ToDoubleFunction<ScaleBench.Row> value) {
        XYSeries s = new XYSeries(name, true, false);
        for (ScaleBench.Row r : rows) {
            double v = value.applyAsDouble(r);
            if (r.provider().equals(provider) && v > 0 && Double.isFinite(v)) {
                s.addOrUpdate(r.n(), v);
            }
        }
        return s;
    }

    private static LogAxis logAxis(String label) {
        LogAxis a = new LogAxis(label);
        a.setBase(10);
        a.setSmallestValue(0.5);
        a.setTickUnit(new NumberTickUnit(1), false, false);
        a.setAutoTickUnitSelection(false);
        a.setTickLabelFont(TICKS);
        a.setLabelFont(LABELS);
        return a;
    }

    private static NumberFormat integers() {
        return new DecimalFormat("#,##0.#", DecimalFormatSymbols.getInstance(Locale.ROOT));
    }
}
