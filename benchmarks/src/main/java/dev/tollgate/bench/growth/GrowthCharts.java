package dev.tollgate.bench.growth;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
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

/**
 * Line charts of a cost against a size. With a linear y axis, a linear x axis shows a linear cost
 * as a straight line (policies, hops); a logarithmic x axis (key and client counts, over
 * decades) shows a flat cost flat and a logarithmic one as a straight rising line.
 */
final class GrowthCharts {

    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b)};

    private GrowthCharts() {
    }

    /**
     * @param xBase base of the logarithmic x axis, or 0 for a linear one
     * @param logY  a base-10 logarithmic y axis
     */
    static void lines(Path file, String title, String xLabel, String yLabel, Map<String, List<double[]>> series,
                      int xBase, boolean logY) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey(), false, true);
            for (double[] p : e.getValue()) {
                if (!Double.isNaN(p[1]) && (!logY || p[1] > 0)) {
                    s.add(p[0], p[1]);
                }
            }
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL,
                true, false, false);
        XYPlot plot = chart.getXYPlot();
        if (xBase > 1) {
            LogAxis x = new LogAxis(xLabel);
            x.setBase(xBase);
            x.setTickUnit(new NumberTickUnit(1));
            x.setNumberFormatOverride(new DecimalFormat("#,##0", DecimalFormatSymbols.getInstance(Locale.ROOT)));
            plot.setDomainAxis(x);
        }
        if (logY) {
            LogAxis y = new LogAxis(yLabel);
            y.setBase(10);
            y.setTickUnit(new NumberTickUnit(1));
            y.setMinorTickMarksVisible(true);
            y.setNumberFormatOverride(new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));
            plot.setRangeAxis(y);
        } else {
            ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(true);
        }
        chart.setBackgroundPaint(Color.WHITE);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xdddddd));
        plot.setRangeGridlinePaint(new Color(0xdddddd));
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesPaint(i, COLORS[i % COLORS.length]);
            r.setSeriesStroke(i, new BasicStroke(2f));
        }
        plot.setRenderer(r);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 960, 560);
    }
}
