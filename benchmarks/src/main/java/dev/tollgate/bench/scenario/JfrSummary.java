package dev.tollgate.bench.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * What an application's flight recording says about the request path, as Markdown: pinned
 * virtual threads ({@code jdk.VirtualThreadPinned}) and contended monitors
 * ({@code jdk.JavaMonitorEnter}), each counted in all and where a Tollgate frame
 * ({@code dev.tollgate.*}, the harness's own classes left out) is on the stack, with the sites
 * that cost most; and the share of CPU samples with a Tollgate frame on the stack, with the
 * Tollgate frames nearest the top.
 *
 * <p>Run by {@link ScenarioRun} in the application's own JDK (which wrote the recording):
 * {@code java -cp ... JfrSummary app.jfr}.
 */
public final class JfrSummary {

    private static final int TOP = 6;

    private JfrSummary() {
    }

    public static void main(String[] args) throws IOException {
        System.out.print(summarize(Path.of(args[0])));
    }

    /** The summary of {@code jfr}, read by {@code java}'s JDK; a line saying why when it cannot be read. */
    static String of(Path java, Path jfr) {
        if (!Files.exists(jfr)) {
            return "no recording at " + jfr.getFileName() + "\n";
        }
        try {
            Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                    JfrSummary.class.getName(), jfr.toString()).redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                return "could not read " + jfr.getFileName() + ": " + text.lines().findFirst().orElse("") + "\n";
            }
            return text;
        } catch (IOException e) {
            return "could not read " + jfr.getFileName() + ": " + e + "\n";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted reading " + jfr.getFileName() + "\n";
        }
    }

    static String summarize(Path jfr) throws IOException {
        Tally pinned = new Tally();
        Tally monitors = new Tally();
        long samples = 0;
        long tollgateSamples = 0;
        Map<String, Long> tollgateTops = new HashMap<>();
        try (RecordingFile f = new RecordingFile(jfr)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                String type = e.getEventType().getName();
                switch (type) {
                    case "jdk.VirtualThreadPinned" -> pinned.add(e, "");
                    case "jdk.JavaMonitorEnter" -> monitors.add(e, monitorClass(e) + " at ");
                    case "jdk.ExecutionSample" -> {
                        samples++;
                        String top = firstTollgateFrame(e.getStackTrace());
                        if (top != null) {
                            tollgateSamples++;
                            tollgateTops.merge(top, 1L, Long::sum);
                        }
                    }
                    default -> {
                        // not summarised
                    }
                }
            }
        }
        StringBuilder md = new StringBuilder();
        md.append(pinned.describe("pinned virtual threads (`jdk.VirtualThreadPinned`, every one)"));
        md.append(monitors.describe("contended monitor enters (`jdk.JavaMonitorEnter`, every one)"));
        md.append(String.format(Locale.ROOT, "- CPU samples (`jdk.ExecutionSample`): %d, of which %d (%.1f %%) with a Tollgate"
                + " frame on the stack%n", samples, tollgateSamples, samples == 0 ? 0.0 : 100.0 * tollgateSamples / samples));
        top(tollgateTops, TOP).forEach(en -> md.append("  - ").append(en.getValue()).append(" x `").append(en.getKey())
                .append("` (the Tollgate frame nearest the top)\n"));
        return md.toString();
    }

    /** Events of one kind: how many, how long in all, how many with a Tollgate frame, where. */
    private static final class Tally {
        long count;
        long nanos;
        long tollgate;
        long tollgateNanos;
        final Map<String, long[]> sites = new HashMap<>();

        void add(RecordedEvent e, String prefix) {
            long d = e.getDuration().toNanos();
            count++;
            nanos += d;
            RecordedStackTrace st = e.getStackTrace();
            String t = firstTollgateFrame(st);
            if (t != null) {
                tollgate++;
                tollgateNanos += d;
            }
            String site = prefix + (t != null ? t + " (Tollgate)" : topFrames(st, 2));
            long[] v = sites.computeIfAbsent(site, k -> new long[2]);
            v[0]++;
            v[1] += d;
        }

        String describe(String what) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "- %s: %d, %.1f ms in all; with a Tollgate frame"
                    + " on the stack: %d, %.1f ms%n", what, count, nanos / 1e6, tollgate, tollgateNanos / 1e6));
            List<Map.Entry<String, long[]>> list = new ArrayList<>(sites.entrySet());
            list.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
            for (int i = 0; i < Math.min(TOP, list.size()); i++) {
                Map.Entry<String, long[]> en = list.get(i);
                sb.append(String.format(Locale.ROOT, "  - %d x, %.1f ms: `%s`%n", en.getValue()[0], en.getValue()[1] / 1e6,
                        en.getKey()));
            }
            return sb.toString();
        }
    }

    private static String monitorClass(RecordedEvent e) {
        try {
            return e.getClass("monitorClass").getName();
        } catch (RuntimeException ex) {
            return "?";
        }
    }

    /** The Tollgate frame nearest the top (the harness's own classes are not Tollgate), or null. */
    static String firstTollgateFrame(RecordedStackTrace st) {
        if (st == null) {
            return null;
        }
        for (RecordedFrame f : st.getFrames()) {
            if (!f.isJavaFrame()) {
                continue;
            }
            String cls = f.getMethod().getType().getName();
            if (cls.startsWith("dev.tollgate.") && !cls.startsWith("dev.tollgate.bench.")) {
                return cls + "." + f.getMethod().getName();
            }
        }
        return null;
    }

    private static String topFrames(RecordedStackTrace st, int n) {
        if (st == null) {
            return "(no stack)";
        }
        StringBuilder sb = new StringBuilder();
        for (RecordedFrame f : st.getFrames()) {
            if (n-- == 0) {
                break;
            }
            sb.append(sb.length() == 0 ? "" : " < ").append(f.getMethod().getType().getName()).append('.')
                    .append(f.getMethod().getName());
        }
        return sb.toString();
    }

    private static List<Map.Entry<String, Long>> top(Map<String, Long> m, int n) {
        List<Map.Entry<String, Long>> list = new ArrayList<>(m.entrySet());
        list.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        return list.subList(0, Math.min(n, list.size()));
    }
}
