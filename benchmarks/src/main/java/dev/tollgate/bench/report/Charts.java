package dev.tollgate.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** PNG line charts for the reports (headless). */
public final class Charts {

    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0x17becf), new Color(0x7f7f7f), new Color(0xbcbd22),
        new Color(0xe377c2), new Color(0x000000)};

    private Charts() {
    }

    /**
     * A line per series, points {x, y}.
     *
     * @param logX a log2 x axis (thread counts)
     * @param logY a log10 y axis
     */
    public static void lines(Path file, String title, String xLabel, String yLabel,
                             Map<String, List<double[]>> series, boolean logX, boolean logY) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey(), false, true);
            for (double[] p : e.getValue()) {
                if (!logY || p[1] > 0) {
                    s.add(p[0], p[1]);
                }
            }
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        if (logX) {
            LogAxis x = new LogAxis(xLabel);
            x.setBase(2);
            x.setTickUnit(new NumberTickUnit(1));
            x.setNumberFormatOverride(NumberFormat.getIntegerInstance(Locale.ROOT));
            plot.setDomainAxis(x);
        }
        if (logY) {
            plot.setRangeAxis(logAxis(yLabel));
        } else {
            ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(true);
        }
        style(chart, plot, true);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 960, 560);
    }

    /**
     * Latency against percentile, HdrHistogram style: the x axis is 1/(1-p) on a log scale, so
     * 90%, 99% and 99.9% are evenly spaced.
     *
     * @param series per series, points {percentile in 0..100, latency}
     */
    public static void percentiles(Path file, String title, String yLabel, Map<String, List<double[]>> series,
                                   boolean logY) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey(), false, true);
            for (double[] p : e.getValue()) {
                if (p[0] < 100 && (!logY || p[1] > 0)) {
                    s.add(1.0 / (1.0 - p[0] / 100.0), p[1]);
                }
            }
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, "percentile", yLabel, data,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        LogAxis x = new LogAxis("percentile");
        x.setBase(10);
        x.setTickUnit(new NumberTickUnit(1));
        x.setNumberFormatOverride(new PercentileFormat());
        x.setRange(1, 1000);
        plot.setDomainAxis(x);
        if (logY) {
            plot.setRangeAxis(logAxis(yLabel));
        }
        style(chart, plot, false);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 960, 560);
    }

    /** A base-10 log axis with a tick at each power of ten, labelled plainly (0.1, 1, 10, 1,000). */
    private static LogAxis logAxis(String label) {
        LogAxis y = new LogAxis(label);
        y.setBase(10);
        y.setTickUnit(new NumberTickUnit(1));
        y.setMinorTickMarksVisible(true);
        y.setNumberFormatOverride(new java.text.DecimalFormat("#,##0.###",
                java.text.DecimalFormatSymbols.getInstance(Locale.ROOT)));
        return y;
    }

    private static void style(JFreeChart chart, XYPlot plot, boolean shapes) {
        chart.setBackgroundPaint(Color.WHITE);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, shapes);
        for (int i = 0; i < plot.getDataset().getSeriesCount(); i++) {
            r.setSeriesPaint(i, COLORS[i % COLORS.length]);
            r.setSeriesStroke(i, new BasicStroke(2f));
        }
        plot.setRenderer(r);
    }

    /** 1/(1-p) back to "p%". */
    private static final class PercentileFormat extends NumberFormat {
        private static final long serialVersionUID = 1L;

        @Override
        public StringBuffer format(double number, StringBuffer toAppendTo, FieldPosition pos) {
            double p = 100.0 * (1.0 - 1.0 / number);
            String s = p < 1e-9 ? "0" : String.format(Locale.ROOT, p >= 99.9 ? "%.3f" : "%.1f", p)
                    .replaceAll("0+$", "").replaceAll("\\.$", "");
            return toAppendTo.append(s).append('%');
        }

        @Override
        public StringBuffer format(long number, StringBuffer toAppendTo, FieldPosition pos) {
            return format((double) number, toAppendTo, pos);
        }

        @Override
        public Number parse(String source, ParsePosition parsePosition) {
            return null;
        }
    }
}
