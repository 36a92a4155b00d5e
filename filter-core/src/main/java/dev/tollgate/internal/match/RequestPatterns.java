package dev.tollgate.internal.match;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code match} syntax: {@code [METHOD[|METHOD]] /pattern}, entries separated by commas. In a
 * pattern {@code *} matches within one segment and {@code **} matches any number of segments.
 *
 * <p>A pattern covers every spelling of a request that the application serves the same way, so
 * that a client cannot step around a policy (or a cost) by spelling its request differently. The
 * path is read here, and nowhere else, in two ways, and an entry matches if either matches:
 * <ul>
 *   <li><b>As routed</b>: path parameters (from a {@code ;} to the end of its segment) are cut from
 *       every segment and trailing empty segments dropped; empty and dot segments in the middle
 *       stay segments. That is how Jersey routes a request to a resource method
 *       ({@code /login/}, {@code /login;a=b}, {@code /a;v=1/b} reach {@code /login} and
 *       {@code /a/b}, while {@code files/..} reaches {@code files/{name}} with the name
 *       {@code ..}), and servlet containers hand over their paths already normalised, path
 *       parameters cut, except a trailing slash.</li>
 *   <li><b>Resolved</b>: also empty segments dropped and {@code .} and {@code ..} resolved, as
 *       servlet containers route ({@code //login}, {@code /x/../login} reach {@code /login}), for a
 *       runtime that would route so while showing the path unresolved. Only read for a path that
 *       has such segments.</li>
 * </ul>
 * A pattern cannot name parameters or dot segments, and its empty segments are dropped.
 *
 * <p>An entry naming {@code GET} also covers {@code HEAD}: servlets and JAX-RS resources answer
 * {@code HEAD} with the {@code GET} handler. An entry naming only {@code HEAD} covers only
 * {@code HEAD}. Methods are compared as sent, case-sensitively, as the containers dispatch them.
 *
 * <p>For a given pattern, matching takes time linear in the path's length however the path is
 * built (no backtracking blow-up on hostile paths), allocates a few index arrays, and never throws.
 * Matchers are immutable and thread-safe.
 *
 * <p>Longer than most classes on purpose: the path is read here and nowhere else, so every
 * spelling rule (parameters, dot segments, globs) sits in one place a reviewer can check.
 */
public final class RequestPatterns {

    private static final Pattern METHOD = Pattern.compile("[A-Z][A-Z0-9_-]{0,31}");

    private final List<Entry> entries;
    private final String shown;

    private RequestPatterns(List<Entry> entries, String shown) {
        this.entries = entries;
        this.shown = shown;
    }

    /**
     * Parses the syntax above; {@code dev.tollgate.RequestMatcher.parse} is the public face of it.
     *
     * @throws IllegalArgumentException naming what is wrong and what is accepted
     */
    public static RequestPatterns parse(String text) {
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
                if (methods.contains("GET")) {
                    methods.add("HEAD"); // HEAD runs the GET handler in servlets and JAX-RS
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
        return new RequestPatterns(List.copyOf(entries), text.trim());
    }

    /** Whether an entry covers this request; false for a null path. */
    public boolean matches(String method, String path) {
        return path != null && matches(method, new Path(path));
    }

    /**
     * Whether an entry covers this request, its path cut once for every matcher that reads it
     * (see {@link Path}); false for a null path.
     */
    public boolean matches(String method, Path path) {
        if (path.text == null) {
            return false;
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.covers(method)) {
                Segments routed = path.routed();
                if (matchSegments(e.segments, path.text, routed)) {
                    return true;
                }
                if (routed.irregular && matchSegments(e.segments, path.text, path.resolved())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A request's path, cut into segments (as routed, and resolved when that differs) at the first
     * matcher that reads them and then shared by the others: a request checked against many
     * policies cuts its path once, not once per policy. One request's; not thread-safe.
     */
    public static final class Path {
        final String text;
        private Segments routed;
        private Segments resolved;

        /** @param text the request's path, or {@code null} (then nothing matches) */
        public Path(String text) {
            this.text = text;
        }

        Segments routed() {
            if (routed == null) {
                routed = new Segments(text, false);
            }
            return routed;
        }

        Segments resolved() {
            if (resolved == null) {
                resolved = new Segments(text, true);
            }
            return resolved;
        }
    }

    /**
     * A {@code RequestMatcher} made from patterns (the public {@code RequestMatcher.parse}), so
     * that the engine can hand them a {@link Path} cut once; any other matcher is asked with the
     * path as text.
     */
    public interface Backed {
        RequestPatterns patterns();
    }

    /** The patterns as written. */
    @Override
    public String toString() {
        return shown;
    }

    private record Entry(Set<String> methods, Object[] segments) {
        boolean covers(String method) {
            return methods == null || (method != null && methods.contains(method));
        }
    }

    private static final Object DOUBLE_STAR = new Object();
    private static final Object STAR = new Object();

    /** A segment with '*' inside, e.g. {@code *.png}: its literal parts, matched by {@link #glob}. */
    private record Glob(String[] parts) {
    }

    /**
     * Each segment is a literal String, STAR, DOUBLE_STAR or a {@link Glob}. Empty segments are
     * dropped as in a path; what a canonical path never holds is refused, for it could never match.
     */
    private static Object[] compile(String path, String entry) {
        if (path.indexOf(';') >= 0) {
            throw new IllegalArgumentException("'" + entry + "': ';' starts path parameters, which matching ignores;"
                    + " name the path without them");
        }
        List<Object> out = new ArrayList<>();
        for (String p : path.substring(1).split("/")) {
            if (p.isEmpty()) {
                continue;
            }
            if (p.equals(".") || p.equals("..")) {
                throw new IllegalArgumentException("'" + entry + "': '" + p + "' segments are resolved before matching;"
                        + " name the path they lead to");
            }
            if (p.equals("**")) {
                out.add(DOUBLE_STAR);
            } else if (p.equals("*")) {
                out.add(STAR);
            } else if (p.contains("**")) {
                throw new IllegalArgumentException("'" + entry + "': '**' must be a whole segment");
            } else if (p.contains("*")) {
                out.add(new Glob(p.split("\\*", -1)));
            } else {
                out.add(p);
            }
        }
        return out.toArray();
    }

    /**
     * The segments of a path as index ranges {@code [starts[i], ends[i])} into it, for
     * {@code i < count}: each cut at its first ';'. Routed: trailing empty segments dropped, the
     * rest kept as they are. Resolved: empty and '.' segments dropped, '..' dropping the segment
     * before it (at the root it stays at the root). One pass; nothing is split or copied.
     */
    private static final class Segments {
        final int[] starts;
        final int[] ends;
        int count;
        /** Whether an empty, '.' or '..' segment is left before the end, so that resolving would change something. */
        boolean irregular;

        Segments(String path, boolean resolve) {
            int slashes = 0;
            for (int k = 0; k < path.length(); k++) {
                if (path.charAt(k) == '/') {
                    slashes++;
                }
            }
            starts = new int[slashes + 1];
            ends = new int[slashes + 1];
            int from = path.startsWith("/") ? 1 : 0;
            int kept = 0; // routed: segments up to the last non-empty one
            while (from <= path.length()) {
                int end = path.indexOf('/', from);
                if (end < 0) {
                    end = path.length();
                }
                int stop = from;
                while (stop < end && path.charAt(stop) != ';') {
                    stop++;
                }
                int length = stop - from;
                boolean dot = length == 1 && path.charAt(from) == '.';
                boolean dotDot = length == 2 && path.charAt(from) == '.' && path.charAt(from + 1) == '.';
                if (!resolve) {
                    starts[count] = from;
                    ends[count] = stop;
                    count++;
                    if (length > 0) {
                        irregular |= kept < count - 1 || dot || dotDot;
                        kept = count;
                    }
                } else if (dotDot) {
                    count = Math.max(0, count - 1);
                } else if (length > 0 && !dot) {
                    starts[count] = from;
                    ends[count] = stop;
                    count++;
                }
                from = end + 1;
            }
            if (!resolve) {
                count = kept;
            }
        }
    }

    /** The path as routed, as a string: {@code /a;x=1/b/} is {@code /a/b}, {@code /a//b} stays. */
    public static String routed(String path) {
        return join(path, new Segments(path, false));
    }

    /** The path resolved, as a string: {@code /a;x=1//b/./c/..} is {@code /a/b}. */
    public static String resolved(String path) {
        return join(path, new Segments(path, true));
    }

    private static String join(String path, Segments s) {
        StringBuilder sb = new StringBuilder(path.length() + 1);
        for (int i = 0; i < s.count; i++) {
            sb.append('/').append(path, s.starts[i], s.ends[i]);
        }
        return sb.length() == 0 ? "/" : sb.toString();
    }

    /**
     * Greedy wildcard matching over the segments, '**' playing the part of '*' in a glob: linear
     * in the segments, however the path is built.
     */
    private static boolean matchSegments(Object[] pattern, String path, Segments segments) {
        int count = segments.count;
        int i = 0;
        int j = 0;
        int starI = -1;
        int starJ = -1;
        while (j < count) {
            if (i < pattern.length && pattern[i] == DOUBLE_STAR) {
                starI = i++;
                starJ = j;
            } else if (i < pattern.length && segmentMatches(pattern[i], path, segments.starts[j], segments.ends[j])) {
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
