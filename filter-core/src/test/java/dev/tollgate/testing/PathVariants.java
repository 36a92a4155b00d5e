package dev.tollgate.testing;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;

import java.util.ArrayList;
import java.util.List;
import org.quicktheories.core.Gen;

/**
 * The reference model of the spellings that servlet containers and JAX-RS runtimes serve as one
 * path, found by sending each spelling to Tomcat 11 and Jersey 3.1 (the coverage ITs of the
 * adapters keep the tables):
 * <ul>
 *   <li>Both ignore path parameters ({@code ;a=b}) on any segment and a trailing slash: the
 *       spellings an adapter's view shows for one request ({@link #viewed}).</li>
 *   <li>Tomcat also merges empty segments and resolves {@code .} and {@code ..} (after the
 *       parameters are cut: {@code ..;x} is {@code ..}) before its view; Jersey routes them as
 *       segments ({@code files/..} is {@code files/{name}}) or answers 404 ({@link #resolvable}).</li>
 * </ul>
 * {@link #sent} spells a path as a client puts it on the wire, also with percent-encoded dots and
 * letters; {@link #matrix} only as a JAX-RS runtime routes like the path itself. {@link #routed}
 * and {@link #resolved} are the two readings of a decoded path.
 */
public final class PathVariants {

    private static final String[] BEFORE = {"", "", "/", "./", "zz/../", "q;p/../", ".;x/", ";j/"};
    private static final String[] AFTER = {"", "", ";a=b", ";", ";x;y=1,2"};
    private static final String[] TAIL = {"", "", "/", "//", "/.", "/;a=b", "/zz/..", "/zz/..;"};
    private static final String[] LEAD = {"/", "/", "//", "/./"};
    private static final String[] BEFORE_SENT = {"%2E/", "zz/%2e%2E/", "zz/.%2E/"};

    private PathVariants() {
    }

    /** Spellings of {@code /s1/s2/...} that an adapter's view shows for a request served like it. */
    public static Gen<String> viewed(List<String> segments) {
        return spell(segments, just(""), of(AFTER), just(false), just("/"), of("", "", "/", "/;a=b", ";/"));
    }

    /** Spellings of {@code /s1/s2/...} that a servlet container resolves to it, as a view without resolving would show them. */
    public static Gen<String> resolvable(List<String> segments) {
        return spell(segments, of(BEFORE), of(AFTER), just(false), of(LEAD), of(TAIL));
    }

    /** Spellings of {@code /s1/s2/...} (each segment of letters, digits and '.') as a client sends them. */
    public static Gen<String> sent(List<String> segments) {
        Gen<String> before = frequency(weight(3, of(BEFORE)), weight(1, of(BEFORE_SENT)));
        return spell(segments, before, of(AFTER), of(false, false, true), of(LEAD), of(TAIL));
    }

    /**
     * Spellings of {@code base/s1/s2/...} with {@code ;matrix} parameters on the segments after
     * {@code base} and a trailing slash; the segment at {@code parameter} (a template parameter,
     * decoded by the runtime) may also be percent-encoded.
     */
    public static Gen<String> matrix(String base, List<String> segments, int parameter) {
        Gen<Decoration> decoration = of(AFTER).zip(of(false, true), (a, e) -> new Decoration("", a, e));
        Gen<List<String>> spelled = lists(decoration, segments.size()).map(decorations -> {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < segments.size(); i++) {
                Decoration d = decorations.get(i);
                boolean encode = i == parameter && d.encode();
                out.add((encode ? encodeFirst(segments.get(i)) : segments.get(i)) + d.after());
            }
            return out;
        });
        return spelled.zip(of("", "", "/", "/;a=b", ";/"), (parts, tail) -> base + "/" + String.join("/", parts) + tail);
    }

    /** What goes before and after one segment, and whether its first character is percent-encoded. */
    private record Decoration(String before, String after, boolean encode) {
    }

    private static Gen<String> spell(List<String> segments, Gen<String> before, Gen<String> after,
                                     Gen<Boolean> encode, Gen<String> lead, Gen<String> tail) {
        Gen<List<String>> spelled = lists(before.zip(after, encode, Decoration::new), segments.size()).map(decorations -> {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < segments.size(); i++) {
                Decoration d = decorations.get(i);
                String name = d.encode() ? encodeFirst(segments.get(i)) : segments.get(i);
                out.add(d.before() + name + d.after());
            }
            return out;
        });
        return lead.zip(spelled, tail, (l, parts, t) -> l + String.join("/", parts) + t);
    }

    /** The first character percent-encoded: {@code a} is {@code %61}. */
    private static String encodeFirst(String segment) {
        return segment.isEmpty() ? segment : String.format("%%%02X", (int) segment.charAt(0)) + segment.substring(1);
    }

    /** The path as routed: parameters cut from every segment, trailing empty segments dropped, the rest as it is. */
    public static List<String> routed(String path) {
        List<String> out = new ArrayList<>();
        for (String raw : path.substring(path.startsWith("/") ? 1 : 0).split("/", -1)) {
            int semicolon = raw.indexOf(';');
            out.add(semicolon < 0 ? raw : raw.substring(0, semicolon));
        }
        while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
            out.remove(out.size() - 1);
        }
        return out;
    }

    /** The path resolved: parameters cut, empty segments dropped, dot segments resolved. */
    public static List<String> resolved(String path) {
        List<String> out = new ArrayList<>();
        for (String segment : routed(path)) {
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
