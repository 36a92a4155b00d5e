package dev.tollgate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Costs;
import dev.tollgate.RequestMatcher;
import dev.tollgate.testing.PathVariants;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Coverage: a policy (and a cost) holds for every request the application serves the same way.
 *
 * <p>The reference model of "served the same way" is {@link PathVariants}: what Tomcat's servlet
 * routing and Jersey's resource routing treat as one path (path parameters, empty segments and
 * dot segments do not count), and {@code HEAD} runs the {@code GET} handler. Paths here are as an
 * adapter's view gives them: decoded. The adapters' coverage ITs send the same spellings over HTTP.
 */
class RequestCoverageTest {

    private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "OPTIONS");

    /** A canonical path and one spelling of it that the application serves the same way. */
    record Variant(List<String> canonical, String spelled) {
        String canonicalPath() {
            return "/" + String.join("/", canonical);
        }
    }

    /** A {@code match} entry: optional methods and a pattern. */
    record Entry(String methods, List<String> pattern) {
        String text() {
            return (methods == null ? "" : methods + " ") + "/" + String.join("/", pattern);
        }
    }

    @Property(tries = 2000)
    void aPolicyMatchesEveryVariantTheApplicationServesLikeTheCanonicalPath(
            @ForAll("entries") Entry entry, @ForAll("variants") Variant v, @ForAll("methods") String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        assertEquals(m.matches(method, v.canonicalPath()), m.matches(method, v.spelled()),
                entry.text() + " on " + method + " " + v.spelled() + " vs " + v.canonicalPath());
    }

    @Property(tries = 1000)
    void headIsMatchedExactlyWhereGetIsForEntriesNamingGet(
            @ForAll("entriesNamingGet") Entry entry, @ForAll("variants") Variant v) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        assertEquals(m.matches("GET", v.canonicalPath()), m.matches("HEAD", v.spelled()),
                entry.text() + " on HEAD " + v.spelled() + " vs GET " + v.canonicalPath());
    }

    @Property(tries = 1000)
    void aCostChargesEveryVariantAndHeadAsTheCanonicalGet(
            @ForAll("entriesNamingGet") Entry entry, @ForAll("variants") Variant v) {
        Costs costs = Costs.parse("10 " + entry.text() + ", 1");
        assertEquals(costs.of("GET", v.canonicalPath()), costs.of("HEAD", v.spelled()),
                "cost " + costs + " on HEAD " + v.spelled() + " vs GET " + v.canonicalPath());
    }

    /** Any path at all, against the reference: canonicalise as the model says, then match naively. */
    @Property(tries = 2000)
    void anyPathMatchesAsItsCanonicalFormUnderTheReferenceModel(
            @ForAll("entries") Entry entry, @ForAll("rawPaths") String path, @ForAll("methods") String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        assertEquals(model(entry, method, canonical(path)), m.matches(method, path),
                entry.text() + " on " + method + " " + path + " (canonical " + canonical(path) + ")");
    }

    // ---- generators ----

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.of(METHODS);
    }

    private static Arbitrary<String> names() {
        return Arbitraries.of("a", "b", "ab", "ba", "x.png", "7");
    }

    /** A canonical path and one spelling of it, as an adapter's view shows it, after the reference model. */
    @Provide
    Arbitrary<Variant> variants() {
        return names().list().ofMaxSize(4).flatMap(segments -> PathVariants.decoded(segments).map(s -> new Variant(segments, s)));
    }

    private static Arbitrary<List<String>> patterns() {
        return Arbitraries.of("a", "b", "ab", "*", "**", "a*", "*b", "*.png", "x.png", "7").list().ofMaxSize(4);
    }

    @Provide
    Arbitrary<Entry> entries() {
        Arbitrary<String> methods = Arbitraries.of(null, "GET", "HEAD", "POST", "GET|POST", "PUT|HEAD");
        return Combinators.combine(methods, patterns()).as(Entry::new);
    }

    @Provide
    Arbitrary<Entry> entriesNamingGet() {
        return Combinators.combine(Arbitraries.of("GET", "GET|POST", "POST|GET"), patterns()).as(Entry::new);
    }

    @Provide
    Arbitrary<String> rawPaths() {
        Arbitrary<String> piece = Arbitraries.of("a", "b", "ab", "x.png", "7", "/", "/", "//", ".", "..", ";", ";a=b", "*");
        return piece.list().ofMaxSize(10).map(ps -> "/" + String.join("", ps));
    }

    // ---- reference model ----

    private static List<String> canonical(String path) {
        return PathVariants.canonical(path);
    }

    /** Whether an entry covers a method and canonical path: naive recursive matching, HEAD as GET. */
    static boolean model(Entry entry, String method, List<String> path) {
        if (entry.methods() != null) {
            Set<String> named = Set.of(entry.methods().split("\\|"));
            if (!named.contains(method) && !(method.equals("HEAD") && named.contains("GET"))) {
                return false;
            }
        }
        List<String> pattern = new ArrayList<>();
        for (String p : entry.pattern()) {
            if (!p.isEmpty()) {
                pattern.add(p);
            }
        }
        return segments(pattern, 0, path, 0);
    }

    private static boolean segments(List<String> pattern, int i, List<String> path, int j) {
        if (i == pattern.size()) {
            return j == path.size();
        }
        if (pattern.get(i).equals("**")) {
            for (int k = j; k <= path.size(); k++) {
                if (segments(pattern, i + 1, path, k)) {
                    return true;
                }
            }
            return false;
        }
        return j < path.size() && glob(pattern.get(i)).matcher(path.get(j)).matches() && segments(pattern, i + 1, path, j + 1);
    }

    /** A segment pattern as a regular expression: '*' is any run of characters. */
    private static Pattern glob(String p) {
        List<String> parts = new ArrayList<>();
        for (String part : p.split("\\*", -1)) {
            parts.add(Pattern.quote(part));
        }
        return Pattern.compile(String.join(".*", parts));
    }
}
