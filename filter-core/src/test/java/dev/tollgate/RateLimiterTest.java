package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.LocalStore;
import dev.tollgate.spi.BucketRequest;
import dev.tollgate.spi.BucketStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The engine over the in-memory store with a clock the test moves. */
class RateLimiterTest {

    final ManualClock clock = new ManualClock();

    RateLimiter limiter(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        TollgateConfig c = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test", m)), getClass().getClassLoader());
        return new RateLimiter(c, new LocalStore(10_000, clock::nowMicros), null);
    }

    static Map<String, String> headers(HttpAnswer a) {
        return a.headers().stream().collect(Collectors.toMap(HttpAnswer.Header::name, HttpAnswer.Header::value));
    }

    @Test
    void theBurstPassesWithHeadersThenA429WithRetryAfterAndAProblem() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "10/s burst 20");
        for (int i = 1; i <= 20; i++) {
            HttpAnswer a = rl.answer(rl.check(TestRequest.get("/api/hello")));
            assertTrue(a.passes());
            assertEquals("\"default\";q=20;w=2", headers(a).get("RateLimit-Policy"));
            assertEquals("\"default\";r=" + (20 - i) + ";t=1", headers(a).get("RateLimit"));
        }
        Decision d = rl.check(TestRequest.get("/api/hello"));
        assertEquals(Decision.Verdict.DENY, d.verdict());
        assertEquals(100_000, d.retryAfterMicros());
        HttpAnswer a = rl.answer(d);
        assertEquals(429, a.status());
        assertEquals("1", headers(a).get("Retry-After"));
        assertEquals("\"default\";r=0;t=1", headers(a).get("RateLimit"));
        assertEquals("application/problem+json", a.contentType());
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\",\"status\":429,"
                + "\"detail\":\"Rate limit of policy 'default' exceeded; retry in 1 s.\","
                + "\"violated-policies\":[\"default\"],\"retry-after\":1}", a.body());
    }

    @Test
    void retryAfterIsRoundedUpToWholeSeconds() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min");
        rl.check(TestRequest.get("/"));
        clock.advanceMicros(30_000_001);
        HttpAnswer a = rl.answer(rl.check(TestRequest.get("/")));
        assertEquals("30", headers(a).get("Retry-After"), "29.999999 s rounds up to 30");
    }

    @Test
    void policiesApplyByMethodAndPathAndEachNamesItsLimits() {
        RateLimiter rl = limiter(
                "tollgate.policies", "api,login",
                "tollgate.policy.api.limits", "10/s burst 20; 1000/day",
                "tollgate.policy.api.match", "/api/**",
                "tollgate.policy.login.limits", "5/min",
                "tollgate.policy.login.match", "POST /api/login");
        Decision get = rl.check(TestRequest.get("/api/items"));
        assertEquals(List.of("api"), names(get));
        Decision login = rl.check(TestRequest.get("/api/login").method("POST"));
        assertEquals(List.of("api", "login"), names(login));
        HttpAnswer a = rl.answer(login);
        assertEquals("\"api-1\";q=20;w=2, \"api-2\";q=1000;w=86400, \"login\";q=5;w=60", headers(a).get("RateLimit-Policy"));
        assertEquals("\"api-1\";r=18;t=1, \"api-2\";r=998;t=87, \"login\";r=4;t=12", headers(a).get("RateLimit"));
        assertTrue(rl.check(TestRequest.get("/other")).results().isEmpty());
    }

    @Test
    void aRequestRefusedByOnePolicyTakesNoTokenFromAnother() {
        RateLimiter rl = limiter(
                "tollgate.policies", "api,login",
                "tollgate.policy.api.limits", "100/min",
                "tollgate.policy.login.limits", "2/min",
                "tollgate.policy.login.match", "POST /login");
        for (int i = 0; i < 5; i++) {
            rl.check(TestRequest.get("/login").method("POST"));
        }
        Decision d = rl.check(TestRequest.get("/login").method("POST"));
        assertEquals(Decision.Verdict.DENY, d.verdict());
        assertEquals(List.of("login"), d.denying().stream().map(r -> r.policy().name()).collect(Collectors.toList()));
        assertEquals(98, d.results().get(0).limits().get(0).remaining(), "only the two admitted requests were charged");
        assertTrue(rl.answer(d).body().contains("\"violated-policies\":[\"login\"]"));
    }

    @Test
    void clientsAreKeptApartAndAMissingKeyFallsBackToThePeer() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min", "tollgate.policy.default.key", "header:X-Api-Key");
        assertTrue(rl.check(TestRequest.get("/").header("X-Api-Key", "a")).allowed());
        assertTrue(rl.check(TestRequest.get("/").header("X-Api-Key", "b")).allowed());
        assertFalse(rl.check(TestRequest.get("/").header("X-Api-Key", "a")).allowed());
        Decision anon = rl.check(TestRequest.get("/").from("198.51.100.9"));
        assertEquals("ip=198.51.100.9", anon.results().get(0).clientKey());
        assertTrue(anon.allowed());
        assertFalse(rl.check(TestRequest.get("/").from("198.51.100.9")).allowed(), "anonymous clients share their address' bucket");
    }

    @Test
    void aCustomResolverFoundByServiceLoaderIsNamedInConfiguration() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min", "tollgate.policy.default.key", "tenant");
        Decision d = rl.check(TestRequest.get("/").header("X-Tenant", "ACME"));
        assertEquals("tenant=acme", d.results().get(0).clientKey());
    }

    @Test
    void shadowPoliciesLetEverythingThroughAndAreInvisibleToClients() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min", "tollgate.policy.default.mode", "shadow");
        rl.check(TestRequest.get("/"));
        Decision d = rl.check(TestRequest.get("/"));
        assertTrue(d.allowed());
        assertEquals(1, d.shadowDenying().size());
        HttpAnswer a = rl.answer(d);
        assertTrue(a.passes());
        assertTrue(a.headers().isEmpty());
    }

    @Test
    void legacyAndNoHeaderStyles() {
        RateLimiter legacy = limiter("tollgate.policy.default.limits", "10/s burst 20; 100/min", "tollgate.headers", "legacy");
        legacy.check(TestRequest.get("/"));
        Map<String, String> h = headers(legacy.answer(legacy.check(TestRequest.get("/"))));
        assertEquals("20", h.get("X-RateLimit-Limit"), "the limit closest to refusing");
        assertEquals("18", h.get("X-RateLimit-Remaining"));
        assertEquals("1", h.get("X-RateLimit-Reset"));
        assertNull(h.get("RateLimit"));

        RateLimiter none = limiter("tollgate.policy.default.limits", "1/min", "tollgate.headers", "none");
        assertTrue(none.answer(none.check(TestRequest.get("/"))).headers().isEmpty());
        HttpAnswer refused = none.answer(none.check(TestRequest.get("/")));
        assertEquals(429, refused.status());
        assertEquals(List.of(new HttpAnswer.Header("Retry-After", "60")), refused.headers());
    }

    @Test
    void disabledMeansUntouched() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min", "tollgate.enabled", "false");
        for (int i = 0; i < 5; i++) {
            assertEquals(HttpAnswer.PASS, rl.answer(rl.check(TestRequest.get("/"))));
        }
    }

    @Test
    void aHostileRequestNeverThrows() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min",
                "tollgate.policy.default.key", "header:X-Api-Key, principal");
        RequestView broken = new TestRequest() {
            @Override
            public String header(String name) {
                throw new IllegalStateException("the container refused the header");
            }

            @Override
            public String path() {
                throw new IllegalStateException("no path");
            }
        };
        Decision d = rl.check(broken);
        assertTrue(d.allowed());
        assertEquals("ip=192.0.2.1", d.results().get(0).clientKey(), "a failing resolver falls back to the peer");
        Decision huge = rl.check(TestRequest.get("/").header("X-Api-Key", "{" + "x".repeat(1_000_000) + "}"));
        assertTrue(huge.results().get(0).clientKey().length() <= 23);
    }

    @Test
    void aFailingStoreFallsBackByTheFailureMode() {
        Map<String, String> m = new HashMap<>(Map.of("tollgate.policy.default.limits", "1/min"));
        for (String mode : List.of("local", "open", "closed")) {
            m.put("tollgate.redis.failure-mode", mode);
            TollgateConfig c = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test", m)), null);
            RateLimiter rl = new RateLimiter(c, new BrokenStore(), new LocalStore(1_000, clock::nowMicros));
            Decision first = rl.check(TestRequest.get("/"));
            Decision second = rl.check(TestRequest.get("/"));
            switch (mode) {
                case "local":
                    assertEquals(Decision.Source.LOCAL, first.source());
                    assertTrue(first.allowed());
                    assertFalse(second.allowed(), "the local buckets limit on their own");
                    break;
                case "open":
                    assertTrue(first.allowed() && second.allowed());
                    assertTrue(rl.answer(second).passes());
                    break;
                default:
                    assertEquals(Decision.Verdict.UNAVAILABLE, first.verdict());
                    HttpAnswer a = rl.answer(first);
                    assertEquals(503, a.status());
                    assertEquals("1", headers(a).get("Retry-After"));
            }
        }
    }

    /** A store that always fails, as Redis does when it is down. */
    static final class BrokenStore implements BucketStore {
        @Override
        public long[] acquire(List<BucketRequest> requests) {
            throw new IllegalStateException("connection refused");
        }

        @Override
        public String name() {
            return "broken";
        }

        @Override
        public void close() {
        }
    }

    static List<String> names(Decision d) {
        return d.results().stream().map(r -> r.policy().name()).collect(Collectors.toList());
    }
}
