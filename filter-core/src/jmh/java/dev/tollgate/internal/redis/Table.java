package dev.tollgate.internal.redis;

import java.util.ArrayList;
import java.util.List;

/** A table written as Markdown and as CSV. */
final class Table {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... header) {
        this.header = List.of(header);
    }

    public Table row(Object... cells) {
        List<String> r = new ArrayList<>();
        for (Object c : cells) {
            r.add(c == null ? "" : c.toString());
        }
        rows.add(r);
        return this;
    }

    public List<List<String>> rows() {
        return rows;
    }

    public String markdown() {
        StringBuilder sb = new StringBuilder();
        line(sb, header);
        List<String> sep = new ArrayList<>();
        for (int i = 0; i < header.size(); i++) {
            sep.add(i == 0 ? "---" : "---:");
        }
        line(sb, sep);
        for (List<String> r : rows) {
            line(sb, r);
        }
        return sb.toString();
    }

    public String csv() {
        StringBuilder sb = new StringBuilder();
        sb.append(csvLine(header));
        for (List<String> r : rows) {
            sb.append(csvLine(r));
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, List<String> cells) {
        sb.append('|');
        for (String c : cells) {
            sb.append(' ').append(c.replace("|", "\\|")).append(" |");
        }
        sb.append('\n');
    }

    private static String csvLine(List<String> cells) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            String c = cells.get(i).replace("**", "");
            if (c.contains(",") || c.contains("\"") || c.contains("\n")) {
                sb.append('"').append(c.replace("\"", "\"\"")).append('"');
            } else {
                sb.append(c);
            }
        }
        return sb.append('\n').toString();
    }

    /** A number with a sensible count of digits: 12,345 / 123.4 / 1.23 / 0.123. */
    public static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(java.util.Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(java.util.Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(java.util.Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(java.util.Locale.ROOT, "%.2f", v);
        }
        return String.format(java.util.Locale.ROOT, "%.3f", v);
    }

    /** A ratio: 1.23x. */
    public static String ratio(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(java.util.Locale.ROOT, "%.2fx", v);
    }
}
