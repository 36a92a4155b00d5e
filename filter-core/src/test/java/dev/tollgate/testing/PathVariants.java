package dev.tollgate.testing;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * The reference model of the spellings a servlet container or JAX-RS runtime routes as one path:
 * path parameters ({@code ;a=b}) on any segment are ignored, empty segments ({@code //}, a
 * trailing {@code /}) are ignored, and {@code .} and {@code ..} segments are resolved after the
 * parameters are cut ({@code ..;x} is {@code ..}), as Tomcat does. Found by sending each spelling
 * to Tomcat 11 and Jersey 3.1 (the coverage ITs of the adapters keep that table).
 *
 * <p>{@link #decoded} spells a path as an adapter's view gives it (decoded by the container);
 * {@link #sent} as a client puts it on the wire, also with percent-encoded dots and letters.
 */
public final class PathVariants {

    private static final String[] BEFORE = {"", "", "/", "./", "zz/../", "q;p/../", ".;x/", ";j/"};
    private static final String[] AFTER = {"", "", ";a=b", ";", ";x;y=1,2"};
    private static final String[] TAIL = {"", "", "/", "//", "/.", "/;a=b", "/zz/..", "/zz/..;"};
    private static final String[] LEAD = {"/", "/", "//", "/./"};
    private static final String[] BEFORE_SENT = {"%2E/", "zz/%2e%2E/", "zz/.%2E/"};

    private PathVariants() {
    }

    /** Spellings of {@code /s1/s2/...} as a decoded view shows them. */
    public static Arbitrary<String> decoded(List<String> segments) {
        return spell(segments, Arbitraries.of(BEFORE), Arbitraries.of(AFTER), Arbitraries.just(false));
    }

    /** Spellings of {@code /s1/s2/...} (each segment of letters, digits and '.') as a client sends them. */
    public static Arbitrary<String> sent(List<String> segments) {
        Arbitrary<String> before = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.of(BEFORE)), net.jqwik.api.Tuple.of(1, Arbitraries.of(BEFORE_SENT)));
        return spell(segments, before, Arbitraries.of(AFTER), Arbitraries.of(false, false, true));
    }

    private static Arbitrary<String> spell(List<String> segments, Arbitrary<String> before, Arbitrary<String> after,
                                           Arbitrary<Boolean> encode) {
        Arbitrary<List<String>> spelled = Combinators.combine(before, after, encode)
                .as((b, a, e) -> new String[] {b, a, e.toString()})
                .list().ofSize(segments.size())
                .map(decorations -> {
                    List<String> out = new ArrayList<>();
                    for (int i = 0; i < segments.size(); i++) {
                        String[] d = decorations.get(i);
                        String name = Boolean.parseBoolean(d[2]) ? encodeFirst(segments.get(i)) : segments.get(i);
                        out.add(d[0] + name + d[1]);
                    }
                    return out;
                });
        return Combinators.combine(Arbitraries.of(LEAD), spelled, Arbitraries.of(TAIL))
                .as((lead, parts, tail) -> lead + String.join("/", parts) + tail);
    }

    /** The first character percent-encoded: {@code a} is {@code %61}. */
    private static String encodeFirst(String segment) {
        return segment.isEmpty() ? segment : String.format("%%%02X", (int) segment.charAt(0)) + segment.substring(1);
    }

    /** The reference canonical form of a decoded path: its segments without parameters, empty and dot segments. */
    public static List<String> canonical(String path) {
        List<String> out = new ArrayList<>();
        for (String raw : path.split("/", -1)) {
            int semicolon = raw.indexOf(';');
            String segment = semicolon < 0 ? raw : raw.substring(0, semicolon);
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (!out.isEmpty()) {
                    out.remove(out.size() - 1);
                }
                continue;
            }
            out.add(segment);
        }
        return out;
    }
}
