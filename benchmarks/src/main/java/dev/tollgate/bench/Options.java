package dev.tollgate.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The harness's options, {@code key=value} words after the command ({@code -Dbench.args="..."} in
 * Maven). A bare word is a flag: {@code quick} means short runs for development.
 */
public final class Options {

    private final Map<String, String> values = new LinkedHashMap<>();

    public Options(List<String> words) {
        for (String w : words) {
            if (w == null || w.isBlank()) {
                continue;
            }
            int eq = w.indexOf('=');
            if (eq < 0) {
                values.put(w.trim(), "true");
            } else {
                values.put(w.substring(0, eq).trim(), w.substring(eq + 1).trim());
            }
        }
    }

    public boolean flag(String key) {
        return Boolean.parseBoolean(values.getOrDefault(key, "false"));
    }

    public boolean quick() {
        return flag("quick");
    }

    public String get(String key, String defaultValue) {
        return values.getOrDefault(key, defaultValue);
    }

    public int integer(String key, int defaultValue) {
        String v = values.get(key);
        return v == null ? defaultValue : Integer.parseInt(v);
    }

    public double number(String key, double defaultValue) {
        String v = values.get(key);
        return v == null ? defaultValue : Double.parseDouble(v);
    }

    /** {@code 20s}, {@code 500ms}, {@code 2min}. */
    public Duration duration(String key, Duration defaultValue) {
        String v = values.get(key);
        if (v == null) {
            return defaultValue;
        }
        if (v.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        }
        if (v.endsWith("us")) {
            return Duration.ofNanos(1000 * Long.parseLong(v.substring(0, v.length() - 2)));
        }
        if (v.endsWith("min")) {
            return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 3)));
        }
        if (v.endsWith("s")) {
            return Duration.ofMillis(Math.round(1000 * Double.parseDouble(v.substring(0, v.length() - 1))));
        }
        return Duration.ofMillis(Long.parseLong(v));
    }

    public List<Integer> integers(String key, List<Integer> defaultValue) {
        String v = values.get(key);
        if (v == null) {
            return defaultValue;
        }
        List<Integer> out = new ArrayList<>();
        for (String p : v.split(",")) {
            out.add(Integer.parseInt(p.trim()));
        }
        return out;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
