package dev.tollgate.internal.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * routing and Jersey's resource routing treat as one path, and {@code HEAD} running the {@code GET}
 * handler. Paths here are as an adapter's view gives them: decoded. The adapters' coverage ITs
 * send the same spellings over HTTP to a real Tomcat and a real Jersey.
 */
class RequestCoverageTest {

    private static final List<String> METHODS = List.of("GET", "HEAD", "POST", "PUT", "OPTIONS");

    /** A path and one spelling of it. */
    record Spelling(List<String> path, String spelled) {
        String pathText() {
            return "/" + String.join("/", path);
        }
    }

    /** A {@code match} entry: optional methods and a pattern. */
    record Entry(String methods, List<String> pattern) {
        String text() {
            return (methods == null ? "" : methods + " ") + "/" + String.join("/", pattern);
        }
    }

    /** The spellings both adapters' views show for one request (parameters, a trailing slash) match exactly as the path. */
    @Property(tries = 1000)
    void aPolicyMatchesEverySpellingAViewShowsForTheRequestExactlyAsThePath(
            @ForAll("entries") Entry entry, @ForAll("viewed") Spelling v, @ForAll("methods") String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        assertEquals(m.matches(method, v.pathText()), m.matches(method, v.spelled()),
                entry.text() + " on " + method + " " + v.spelled() + " vs " + v.pathText());
    }

    /** The spellings a servlet container resolves to the path ('//', '.', '..') are covered wherever the path is. */
    @Property(tries = 1000)
    void aPolicyCoversEverySpellingAServletContainerResolvesToThePath(
            @ForAll("entries") Entry entry, @ForAll("resolvable") Spelling v, @ForAll("methods") String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        if (m.matches(method, v.pathText())) {
            assertTrue(m.matches(method, v.spelled()), entry.text() + " on " + method + " " + v.spelled() + " vs " + v.pathText());
        }
    }

    @Property(tries = 1000)
    void headIsMatchedExactlyWhereGetIsForEntriesNamingGet(
            @ForAll("entriesNamingGet") Entry entry, @ForAll("viewed") Spelling v) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        assertEquals(m.matches("GET", v.pathText()), m.matches("HEAD", v.spelled()),
                entry.text() + " on HEAD " + v.spelled() + " vs GET " + v.pathText());
    }

    @Property(tries = 1000)
    void aCostChargesEverySpellingAndHeadAsThePathByGet(
            @ForAll("entriesNamingGet") Entry entry, @ForAll("viewed") Spelling v, @ForAll("methods") String method) {
        Costs costs = Costs.parse("10 " + entry.text() + ", 1");
        String head = method.equals("GET") ? "HEAD" : method;
        assertEquals(costs.of(method, v.pathText()), costs.of(head, v.spelled()),
                "cost " + costs + " on " + head + " " + v.spelled() + " vs " + method + " " + v.pathText());
    }

    /** Any path at all, against the reference: read both ways as the model says, then match naively. */
    @Property(tries = 1500)
    void anyPathMatchesAsTheReferenceModelSays(
            @ForAll("entries") Entry entry, @ForAll("rawPaths") String path, @ForAll("methods") String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        List<String> routed = PathVariants.routed(path);
        List<String> resolved = PathVariants.resolved(path);
        assertEquals(model(entry, method, routed) || model(entry, method, resolved), m.matches(method, path),
                entry.text() + " on " + method + " " + path + " (routed " + routed + ", resolved " + resolved + ")");
    }

    /**
     * One path cut once and read by many matchers in turn (as the engine reads a request against
     * every policy) matches for each exactly as the reference says: what one matcher's reading
     * leaves in the shared cut never changes another's answer, in any order.
     */
    @Property(tries = 1000)
    void aPathCutOnceMatchesEveryPolicyAsTheReferenceModelSays(
            @ForAll("policiesOfEntries") List<Entry> policies, @ForAll("rawPaths") String path, @ForAll("methods") String method) {
        RequestPatterns.Path cut = new RequestPatterns.Path(path);
        List<String> routed = PathVariants.routed(path);
        List<String> resolved = PathVariants.resolved(path);
        for (Entry entry : policies) {
            RequestMatcher m = RequestMatcher.parse(entry.text());
            boolean shared = ((RequestPatterns.Backed) m).patterns().matches(method, cut);
            assertEquals(model(entry, method, routed) || model(entry, method, resolved), shared,
                    entry.text() + " on " + method + " " + path + " after " + policies);
        }
        assertEquals(false, RequestPatterns.parse("/**").matches(method, new RequestPatterns.Path(null)));
    }

    @Property(tries = 1000)
    void theTwoReadingsOfAPathAreTheModels(@ForAll("rawPaths") String path) {
        assertEquals("/" + String.join("/", PathVariants.routed(path)), RequestPatterns.routed(path), path);
        assertEquals("/" + String.join("/", PathVariants.resolved(path)), RequestPatterns.resolved(path), path);
    }

    /** Whatever the client sent, matching answers (it fails here by throwing). */
    @Property(tries = 500)
    void matchingNeverThrows(@ForAll("entries") Entry entry, @ForAll String path, @ForAll String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        m.matches(method, path);
        m.matches(null, path);
        m.matches(method, null);
        Costs.parse("3 " + entry.text() + ", 1").of(method, path);
    }

    // ---- generators ----

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.of(METHODS);
    }

    private static Arbitrary<List<String>> paths() {
        return Arbitraries.of("a", "b", "ab", "ba", "x.png", "7").list().ofMaxSize(4);
    }

    @Provide
    Arbitrary<Spelling> viewed() {
        return paths().flatMap(p -> PathVariants.viewed(p).map(s -> new Spelling(p, s)));
    }

    @Provide
    Arbitrary<Spelling> resolvable() {
        return paths().flatMap(p -> PathVariants.resolvable(p).map(s -> new Spelling(p, s)));
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
    Arbitrary<List<Entry>> policiesOfEntries() {
        return entries().list().ofMinSize(1).ofMaxSize(8);
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

    /** Whether an entry covers a method and a path read one way: naive recursive matching, HEAD as GET. */
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
