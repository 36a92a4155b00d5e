package dev.tollgate.internal.match;

import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Costs;
import dev.tollgate.RequestMatcher;
import dev.tollgate.testing.PathVariants;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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
    @Test
    void aPolicyMatchesEverySpellingAViewShowsForTheRequestExactlyAsThePath() {
        qt(1000).forAll(entries(), viewed(), methods()).checkAssert(this::aPolicyMatchesEverySpellingAViewShowsForTheRequestExactlyAsThePath);
    }

    private void aPolicyMatchesEverySpellingAViewShowsForTheRequestExactlyAsThePath(Entry entry, Spelling v, String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        assertEquals(m.matches(method, v.pathText()), m.matches(method, v.spelled()),
                entry.text() + " on " + method + " " + v.spelled() + " vs " + v.pathText());
    }

    /** The spellings a servlet container resolves to the path ('//', '.', '..') are covered wherever the path is. */
    @Test
    void aPolicyCoversEverySpellingAServletContainerResolvesToThePath() {
        qt(1000).forAll(entries(), resolvable(), methods()).checkAssert(this::aPolicyCoversEverySpellingAServletContainerResolvesToThePath);
    }

    private void aPolicyCoversEverySpellingAServletContainerResolvesToThePath(Entry entry, Spelling v, String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        if (m.matches(method, v.pathText())) {
            assertTrue(m.matches(method, v.spelled()), entry.text() + " on " + method + " " + v.spelled() + " vs " + v.pathText());
        }
    }

    @Test
    void headIsMatchedExactlyWhereGetIsForEntriesNamingGet() {
        qt(1000).forAll(entriesNamingGet(), viewed()).checkAssert(this::headIsMatchedExactlyWhereGetIsForEntriesNamingGet);
    }

    private void headIsMatchedExactlyWhereGetIsForEntriesNamingGet(Entry entry, Spelling v) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        assertEquals(m.matches("GET", v.pathText()), m.matches("HEAD", v.spelled()),
                entry.text() + " on HEAD " + v.spelled() + " vs GET " + v.pathText());
    }

    @Test
    void aCostChargesEverySpellingAndHeadAsThePathByGet() {
        qt(1000).forAll(entriesNamingGet(), viewed(), methods()).checkAssert(this::aCostChargesEverySpellingAndHeadAsThePathByGet);
    }

    private void aCostChargesEverySpellingAndHeadAsThePathByGet(Entry entry, Spelling v, String method) {
        Costs costs = Costs.parse("10 " + entry.text() + ", 1");
        String head = method.equals("GET") ? "HEAD" : method;
        assertEquals(costs.of(method, v.pathText()), costs.of(head, v.spelled()),
                "cost " + costs + " on " + head + " " + v.spelled() + " vs " + method + " " + v.pathText());
    }

    /** Any path at all, against the reference: read both ways as the model says, then match naively. */
    @Test
    void anyPathMatchesAsTheReferenceModelSays() {
        qt(1500).forAll(entries(), rawPaths(), methods()).checkAssert(this::anyPathMatchesAsTheReferenceModelSays);
    }

    private void anyPathMatchesAsTheReferenceModelSays(Entry entry, String path, String method) {
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
    @Test
    void aPathCutOnceMatchesEveryPolicyAsTheReferenceModelSays() {
        qt(1000).forAll(policiesOfEntries(), rawPaths(), methods()).checkAssert(this::aPathCutOnceMatchesEveryPolicyAsTheReferenceModelSays);
    }

    private void aPathCutOnceMatchesEveryPolicyAsTheReferenceModelSays(List<Entry> policies, String path, String method) {
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

    @Test
    void theTwoReadingsOfAPathAreTheModels() {
        qt(1000).forAll(rawPaths()).checkAssert(path -> {
            assertEquals("/" + String.join("/", PathVariants.routed(path)), RequestPatterns.routed(path), path);
            assertEquals("/" + String.join("/", PathVariants.resolved(path)), RequestPatterns.resolved(path), path);
        });
    }

    /** Whatever the client sent, matching answers (it fails here by throwing). */
    @Test
    void matchingNeverThrows() {
        qt(500).forAll(entries(), anyText(), anyText()).checkAssert(this::matchingNeverThrows);
    }

    private void matchingNeverThrows(Entry entry, String path, String method) {
        RequestMatcher m = RequestMatcher.parse(entry.text());
        m.matches(method, path);
        m.matches(null, path);
        m.matches(method, null);
        Costs.parse("3 " + entry.text() + ", 1").of(method, path);
    }

    // ---- generators ----

    static Gen<String> methods() {
        return of(METHODS);
    }

    /** Any text a client may send: 0 to 255 UTF-16 chars of the whole range, unpaired surrogates included. */
    static Gen<String> anyText() {
        return lists(Generate.characters(Character.MIN_VALUE, Character.MAX_VALUE), 0, 255).map(chars -> {
            StringBuilder text = new StringBuilder(chars.size());
            chars.forEach(text::append);
            return text.toString();
        });
    }

    private static Gen<List<String>> paths() {
        return lists(of("a", "b", "ab", "ba", "x.png", "7"), 0, 4);
    }

    static Gen<Spelling> viewed() {
        return paths().flatMap(p -> PathVariants.viewed(p).map(s -> new Spelling(p, s)));
    }

    static Gen<Spelling> resolvable() {
        return paths().flatMap(p -> PathVariants.resolvable(p).map(s -> new Spelling(p, s)));
    }

    private static Gen<List<String>> patterns() {
        return lists(of("a", "b", "ab", "*", "**", "a*", "*b", "*.png", "x.png", "7"), 0, 4);
    }

    static Gen<Entry> entries() {
        Gen<String> methods = of(null, "GET", "HEAD", "POST", "GET|POST", "PUT|HEAD");
        return methods.zip(patterns(), Entry::new);
    }

    static Gen<List<Entry>> policiesOfEntries() {
        return lists(entries(), 1, 8);
    }

    static Gen<Entry> entriesNamingGet() {
        return of("GET", "GET|POST", "POST|GET").zip(patterns(), Entry::new);
    }

    static Gen<String> rawPaths() {
        Gen<String> piece = of("a", "b", "ab", "x.png", "7", "/", "/", "//", ".", "..", ";", ";a=b", "*");
        return lists(piece, 0, 10).map(ps -> "/" + String.join("", ps));
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
