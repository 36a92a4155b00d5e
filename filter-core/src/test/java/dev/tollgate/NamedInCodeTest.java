package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.adapter.Integration;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The policies that code of an application names ({@link Integration#declareNamedInCode}) as its
 * limiters see them: per application class loader, with what its ancestors' code names, never
 * another application's, until withdrawn; a limiter leaves such a policy out of those it applies
 * by {@code match} unless the policy has a match of its own.
 */
class NamedInCodeTest {

    private final ClassLoader server = new URLClassLoader(new URL[0], NamedInCodeTest.class.getClassLoader());
    private final ClassLoader one = new URLClassLoader(new URL[0], server);
    private final ClassLoader other = new URLClassLoader(new URL[0], server);

    private static TollgateConfig config(String... keyValues) {
        Map<String, String> m = new java.util.HashMap<>(Map.of("tollgate.metrics", "none", "tollgate.jmx", "false",
                "tollgate.policies", "api,exports,reports",
                "tollgate.policy.api.limits", "10/s",
                "tollgate.policy.exports.limits", "3/h",
                "tollgate.policy.reports.limits", "3/h",
                "tollgate.policy.reports.match", "/reports/**"));
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return TestConfigs.of(m);
    }

    private static List<String> decided(RateLimiter limiter, String path) {
        return limiter.check(TestRequest.get(path)).results().stream().map(r -> r.policy().name()).toList();
    }

    @Test
    void aPolicyOneApplicationNamesWithoutMatchIsLeftOutByItsLimitersOnlyAndUntilWithdrawn() {
        try (RateLimiter ofOne = RateLimiter.create(config(), "one", null, one);
             RateLimiter ofOther = RateLimiter.create(config(), "other", null, other)) {
            assertEquals(List.of("api", "exports"), decided(ofOne, "/hello"), "nothing named yet: match /** covers all");

            Runnable withdraw = Integration.declareNamedInCode(one, List.of("exports", "reports", "not-configured"));
            assertEquals(List.of("api"), decided(ofOne, "/hello"), "named without match: where code names it only");
            assertEquals(List.of("api", "reports"), decided(ofOne, "/reports/x"), "named with a match: there too");
            assertEquals(List.of("api", "exports"), ofOne.check(TestRequest.get("/hello"),
                    List.of(ofOne.config().policy("api").orElseThrow(), ofOne.config().policy("exports").orElseThrow()))
                    .results().stream().map(r -> r.policy().name()).toList(), "where code names it, it applies");
            assertEquals(List.of("api", "exports"), decided(ofOther, "/hello"), "another application's code does not name it");

            withdraw.run();
            withdraw.run();
            assertEquals(List.of("api", "exports"), decided(ofOne, "/hello"), "withdrawn once, at the first run");
        }
    }

    @Test
    void whatAnAncestorsCodeNamesCountsForTheApplicationsBelowIt() {
        Runnable first = Integration.declareNamedInCode(server, List.of("exports"));
        Runnable second = Integration.declareNamedInCode(server, List.of("exports"));
        try (RateLimiter ofOne = RateLimiter.create(config(), "one", null, one)) {
            assertEquals(List.of("api"), decided(ofOne, "/hello"));
            assertEquals(Set.of("exports"), Integration.namedInCode(other));
            assertEquals(Set.of(), Integration.namedInCode(NamedInCodeTest.class.getClassLoader()), "not above it");
            first.run();
            assertEquals(List.of("api"), decided(ofOne, "/hello"), "still named by the second declaration");
            second.run();
            assertEquals(List.of("api", "exports"), decided(ofOne, "/hello"));
        } finally {
            first.run();
            second.run();
        }
    }

    @Test
    void aMatchWrittenOutAsTheDefaultIsAMatchOfItsOwn() {
        Runnable withdraw = Integration.declareNamedInCode(one, List.of("exports"));
        try (RateLimiter ofOne = RateLimiter.create(config("tollgate.policy.exports.match", "/**"), "one", null, one)) {
            assertEquals(List.of("api", "exports"), decided(ofOne, "/hello"));
        } finally {
            withdraw.run();
        }
    }
}
