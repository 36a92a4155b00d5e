package dev.tollgate.internal.engine;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The engine cuts a request's path once and hands the cut to every policy's patterns
 * ({@code RequestPatterns.Path}): the policies it finds are exactly those whose matcher, asked
 * alone with the path as text, covers the request, in configured order, whatever mix of patterns
 * and catch-all policies is configured; a policy that code names is found by its own
 * {@code match} only.
 */
class PolicyMatchingProperties {

    @Test
    void thePoliciesFoundAreThoseEachMatcherAloneCovers() {
        qt(500).forAll(matches(), paths(), methods()).checkAssert(this::policiesFoundAreThoseEachMatcherAloneCovers);
    }

    private void policiesFoundAreThoseEachMatcherAloneCovers(List<String> matches, String path, String method) {
        TollgateConfig c = config(matches);
        List<Policy> expected = new ArrayList<>();
        for (Policy p : c.policies()) {
            if (p.match().matches(method, path)) {
                expected.add(p);
            }
        }
        assertEquals(expected, RequestPlanner.matching(c, TestRequest.get(path).method(method)),
                method + " " + path + " against " + matches);
    }

    /**
     * A policy that code names ({@code @RateLimited}) covers by path only with a {@code match} of
     * its own (even {@code /**} written out); without one it applies only where it is named. The
     * others are found as if nothing were named.
     */
    @Test
    void aPolicyThatCodeNamesIsFoundByPathOnlyWithAMatchOfItsOwn() {
        qt(500).forAll(matches(), paths(), methods(), lists(bools(), 6))
                .checkAssert(this::policiesThatCodeNamesAreFoundByTheirOwnMatchOnly);
    }

    private void policiesThatCodeNamesAreFoundByTheirOwnMatchOnly(List<String> matches, String path, String method,
                                                                  List<Boolean> namedInCode) {
        TollgateConfig c = config(matches);
        Set<String> named = new HashSet<>(Set.of("not-configured"));
        for (int i = 0; i < matches.size(); i++) {
            if (namedInCode.get(i)) {
                named.add("p" + i);
            }
        }
        List<Policy> expected = new ArrayList<>();
        for (int i = 0; i < matches.size(); i++) {
            Policy p = c.policies().get(i);
            boolean byPath = !matches.get(i).isEmpty() || !namedInCode.get(i);
            if (byPath && p.match().matches(method, path)) {
                expected.add(p);
            }
        }
        assertEquals(expected, RequestPlanner.matching(c, named, TestRequest.get(path).method(method)),
                method + " " + path + " against " + matches + ", named in code " + named);
    }

    private static TollgateConfig config(List<String> matches) {
        Map<String, String> m = new HashMap<>(Map.of("tollgate.metrics", "none", "tollgate.jmx", "false"));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < matches.size(); i++) {
            String name = "p" + i;
            names.add(name);
            m.put("tollgate.policy." + name + ".limits", "10/s");
            m.put("tollgate.policy." + name + ".key", "ip");
            if (!matches.get(i).isEmpty()) {
                m.put("tollgate.policy." + name + ".match", matches.get(i));
            }
        }
        m.put("tollgate.policies", String.join(",", names));
        return TestConfigs.withProviders(m);
    }

    static Gen<List<String>> matches() {
        Gen<String> segment = of("a", "b", "*", "**", "a*", "*.png");
        Gen<String> pattern = lists(segment, 0, 3).map(s -> "/" + String.join("/", s));
        Gen<String> entry = of("", "GET ", "POST ", "GET|POST ").zip(pattern, (method, p) -> method + p);
        Gen<String> match = lists(entry, 1, 2).map(e -> String.join(", ", e));
        return lists(frequency(weight(1, match), weight(1, just(""))), 1, 6);
    }

    static Gen<String> paths() {
        Gen<String> piece = of("a", "b", "x.png", "/", "/", "//", ".", "..", ";v=1");
        return lists(piece, 0, 8).map(ps -> "/" + String.join("", ps));
    }

    static Gen<String> methods() {
        return of("GET", "HEAD", "POST", "PUT");
    }
}
