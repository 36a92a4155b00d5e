package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Policy;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The engine cuts a request's path once and hands the cut to every policy's patterns
 * ({@code RequestPatterns.Path}): the policies it finds are exactly those whose matcher, asked
 * alone with the path as text, covers the request, in configured order, whatever mix of patterns
 * and catch-all policies is configured.
 */
class PolicyMatchingProperties {

    @Property(tries = 500)
    void thePoliciesFoundAreThoseEachMatcherAloneCovers(
            @ForAll("matches") List<String> matches, @ForAll("paths") String path, @ForAll("methods") String method) {
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
        TollgateConfig c = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test", m)),
                PolicyMatchingProperties.class.getClassLoader());

        List<Policy> expected = new ArrayList<>();
        for (Policy p : c.policies()) {
            if (p.match().matches(method, path)) {
                expected.add(p);
            }
        }
        assertEquals(expected, RequestPlanner.matching(c, TestRequest.get(path).method(method)),
                method + " " + path + " against " + matches);
    }

    @Provide
    Arbitrary<List<String>> matches() {
        Arbitrary<String> segment = Arbitraries.of("a", "b", "*", "**", "a*", "*.png");
        Arbitrary<String> pattern = segment.list().ofMaxSize(3).map(s -> "/" + String.join("/", s));
        Arbitrary<String> entry = Arbitraries.of("", "GET ", "POST ", "GET|POST ").flatMap(
                method -> pattern.map(p -> method + p));
        Arbitrary<String> match = entry.list().ofMinSize(1).ofMaxSize(2).map(e -> String.join(", ", e));
        return Arbitraries.oneOf(match, Arbitraries.just("")).list().ofMinSize(1).ofMaxSize(6);
    }

    @Provide
    Arbitrary<String> paths() {
        Arbitrary<String> piece = Arbitraries.of("a", "b", "x.png", "/", "/", "//", ".", "..", ";v=1");
        return piece.list().ofMaxSize(8).map(ps -> "/" + String.join("", ps));
    }

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.of("GET", "HEAD", "POST", "PUT");
    }
}
