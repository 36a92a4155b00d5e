package dev.tollgate.internal;

import dev.tollgate.RequestMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code match} syntax: {@code [METHOD[|METHOD]] /pattern}, entries separated by commas. In a
 * pattern {@code *} matches within one segment and {@code **} matches any number of segments.
 * Matching is linear in the path's segments (no backtracking blow-up on hostile paths).
 */
public final class RequestPatterns {

    public static final String SYNTAX = "'[METHOD[|METHOD]] /path/pattern', several separated by ',',"
            + " e.g. '/api/**', 'POST /login', 'GET|HEAD /search/**'; '*' matches within one path segment,"
            + " '**' any number of segments";

    private static final Pattern METHOD = Pattern.compile("[A-Z][A-Z0-9_-]{0,31}");

    private RequestPatterns() {
    }

    public static RequestMatcher parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no pattern given");
        }
        List<Entry> entries = new ArrayList<>();
        for (String raw : text.split(",")) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            String[] words = entry.split("\\s+");
            Set<String> methods = null;
            String path;
            if (words.length == 1) {
                path = words[0];
            } else if (words.length == 2) {
                methods = new java.util.HashSet<>();
                for (String m : words[0].split("\\|")) {
                    String upper = m.toUpperCase(Locale.ROOT);
                    if (!METHOD.matcher(upper).matches()) {
                        throw new IllegalArgumentException("'" + entry + "': '" + m + "' is not an HTTP method");
                    }
                    methods.add(upper);
                }
                methods = Set.copyOf(methods);
                path = words[1];
            } else {
                throw new IllegalArgumentException("'" + entry + "' is not a pattern");
            }
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("'" + entry + "': the path must start with '/'");
            }
            entries.add(new Entry(methods, compile(path, entry)));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("no pattern given");
        }
        List<Entry> all = List.copyOf(entries);
        String shown = text.trim();
        return new RequestMatcher() {
            @Override
            public boolean matches(String method, String path) {
                for (Entry e : all) {
                    if (e.matches(method, path)) {
                        return true;
                    }
                }
                return false;
            }

            @Override
            public String toString() {
                return shown;
            }
        };
    }

    private record Entry(Set<String> methods, Object[] segments) {
        boolean matches(String method, String path) {
            if (methods != null && (method == null || !methods.contains(method))) {
                return false;
            }
            return path != null && matchSegments(segments, path);
        }
    }

    private static final Object DOUBLE_STAR = new Object();
    private static final Object STAR = new Object();

    /** A segment with '*' inside, e.g. {@code *.png}: its literal parts, matched by {@link #glob}. */
    private record Glob(String[] parts) {
    }

    /** Each segment is a literal String, STAR, DOUBLE_STAR or a {@link Glob}. */
    private static Object[] compile(String path, String entry) {
        String[] parts = path.substring(1).split("/", -1);
        Object[] out = new Object[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (p.equals("**")) {
                out[i] = DOUBLE_STAR;
            } else if (p.equals("*")) {
                out[i] = STAR;
            } else if (p.contains("**")) {
                throw new IllegalArgumentException("'" + entry + "': '**' must be a whole segment");
            } else if (p.contains("*")) {
                out[i] = new Glob(p.split("\\*", -1));
            } else {
                out[i] = p;
            }
        }
        return out;
    }

    /**
     * Greedy wildcard matching over segments, '**' playing the part of '*' in a glob: linear in
     * the segments, however the path is built. Segments are index ranges of the path; nothing is
     * split or copied.
     */
    private static boolean matchSegments(Object[] pattern, String path) {
        int from = path.startsWith("/") ? 1 : 0;
        int count = 1;
        for (int k = from; k < path.length(); k++) {
            if (path.charAt(k) == '/') {
                count++;
            }
        }
        int[] starts = new int[count + 1];
        int s = 0;
        starts[s++] = from;
        for (int k = from; k < path.length(); k++) {
            if (path.charAt(k) == '/') {
                starts[s++] = k + 1;
            }
        }
        starts[count] = path.length() + 1;
        int i = 0;
        int j = 0;
        int starI = -1;
        int starJ = -1;
        while (j < count) {
            if (i < pattern.length && pattern[i] == DOUBLE_STAR) {
                starI = i++;
                starJ = j;
            } else if (i < pattern.length && segmentMatches(pattern[i], path, starts[j], starts[j + 1] - 1)) {
                i++;
                j++;
            } else if (starI >= 0) {
                i = starI + 1;
                j = ++starJ;
            } else {
                return false;
            }
        }
        while (i < pattern.length && pattern[i] == DOUBLE_STAR) {
            i++;
        }
        return i == pattern.length;
    }

    private static boolean segmentMatches(Object p, String path, int from, int to) {
        if (p == STAR) {
            return true;
        }
        if (p instanceof String s) {
            return s.length() == to - from && path.startsWith(s, from);
        }
        return glob(((Glob) p).parts, path, from, to);
    }

    /**
     * Whether {@code path[from, to)} is the parts joined by anything: the first part a prefix,
     * the last a suffix, the others found in order, each as early as possible. Greedy placement is
     * right for '*' alone, and each part is looked for once: no backtracking.
     */
    private static boolean glob(String[] parts, String path, int from, int to) {
        String first = parts[0];
        String last = parts[parts.length - 1];
        if (to - from < first.length() + last.length() || !path.startsWith(first, from)
                || !path.startsWith(last, to - last.length())) {
            return false;
        }
        int at = from + first.length();
        int end = to - last.length();
        for (int k = 1; k < parts.length - 1; k++) {
            int found = path.indexOf(parts[k], at);
            if (found < 0 || found + parts[k].length() > end) {
                return false;
            }
            at = found + parts[k].length();
        }
        return true;
    }
}
