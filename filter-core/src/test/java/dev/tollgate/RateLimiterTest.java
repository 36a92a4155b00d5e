package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
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
        TollgateConfig c = TestConfigs.withProviders(m);
        return new RateLimiter(c, new LocalStore(10_000, clock::nowMicros), null, System::nanoTime);
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
            TollgateConfig c = TestConfigs.of(m);
            RateLimiter rl = new RateLimiter(c, FailingStore.down(new LocalStore(1_000, () -> 0L)), new LocalStore(1_000, clock::nowMicros), System::nanoTime);
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

    static List<String> names(Decision d) {
        return d.results().stream().map(r -> r.policy().name()).collect(Collectors.toList());
    }

    RateLimiter limiterFromEnvironment(Map<String, String> environment) {
        TollgateConfig c = TollgateConfig.load(ConfigLookup.of(ConfigSources.system(environment)), null);
        return new RateLimiter(c, new LocalStore(10_000, clock::nowMicros), null, System::nanoTime);
    }

    static int admitted(RateLimiter rl, RequestView r, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            if (rl.check(r).allowed()) {
                n++;
            }
        }
        return n;
    }

    @Test
    void plansByRoleGiveEachClientItsLimitsThroughEnvironmentVariablesAlone() {
        RateLimiter rl = limiterFromEnvironment(Map.of(
                "TOLLGATE_PLANS", "pro,free",
                "TOLLGATE_PLAN_DEFAULT", "free",
                "TOLLGATE_PLAN_PRO_ROLE", "paying",
                "TOLLGATE_POLICY_DEFAULT_KEY", "principal, ip",
                "TOLLGATE_POLICY_DEFAULT_LIMITS", "2/min",
                "TOLLGATE_POLICY_DEFAULT_LIMITS_PRO", "5/min; 100/day"));
        assertEquals(5, admitted(rl, TestRequest.get("/").user("alice", "paying"), 10), "alice is on pro");
        assertEquals(2, admitted(rl, TestRequest.get("/").user("bob"), 10), "bob is on free");
        assertEquals(2, admitted(rl, TestRequest.get("/").from("198.51.100.3"), 10), "anonymous clients are on free");
        Decision pro = rl.check(TestRequest.get("/").user("carol", "paying"));
        assertEquals("pro", pro.results().get(0).plan());
        assertEquals("\"default-1\";q=5;w=60, \"default-2\";q=100;w=86400", headers(rl.answer(pro)).get("RateLimit-Policy"));
    }

    @Test
    void aPlanHeaderIsBelievedOnlyFromATrustedProxy() {
        RateLimiter rl = limiterFromEnvironment(Map.of(
                "TOLLGATE_TRUSTED_PROXIES", "10.0.0.0/8",
                "TOLLGATE_PLANS", "internal,free",
                "TOLLGATE_PLAN_DEFAULT", "free",
                "TOLLGATE_PLAN_SELECTOR", "header:X-Plan",
                "TOLLGATE_POLICY_DEFAULT_LIMITS", "1/min",
                "TOLLGATE_POLICY_DEFAULT_LIMITS_INTERNAL", "50/min"));
        TestRequest viaGateway = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "198.51.100.4")
                .header("X-Plan", "Internal");
        assertEquals("internal", rl.check(viaGateway).results().get(0).plan());
        TestRequest forged = TestRequest.get("/").from("198.51.100.5").header("X-Plan", "internal");
        assertEquals("free", rl.check(forged).results().get(0).plan(), "a client cannot pick its own plan");
    }

    @Test
    void aPlanHeaderWithoutTrustedProxiesIsRefusedAtStartUp() {
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class, () -> limiterFromEnvironment(Map.of(
                "TOLLGATE_PLANS", "pro,free", "TOLLGATE_PLAN_DEFAULT", "free", "TOLLGATE_PLAN_SELECTOR", "header:X-Plan",
                "TOLLGATE_POLICY_DEFAULT_LIMITS", "1/min")));
        assertTrue(e.getMessage().contains("tollgate.plan.selector = 'header:X-Plan' (from environment variable TOLLGATE_PLAN_SELECTOR)"),
                e.getMessage());
        assertTrue(e.getMessage().contains("believed only from trusted proxies"), e.getMessage());
    }

    @Test
    void plansNeedADefaultAndPlanLimitsMustFitTheCost() {
        ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class, () -> limiterFromEnvironment(Map.of(
                "TOLLGATE_PLANS", "pro,free", "TOLLGATE_POLICY_DEFAULT_LIMITS", "10/min",
                "TOLLGATE_POLICY_DEFAULT_LIMITS_FREE", "2/min", "TOLLGATE_POLICY_DEFAULT_COST", "3")));
        assertTrue(e.getMessage().contains("TOLLGATE-002: tollgate.plan.default is not set"), e.getMessage());
        assertTrue(e.getMessage().contains("tollgate.policy.default.cost = '3'"), e.getMessage());
        assertTrue(e.getMessage().contains("tollgate.policy.default.limits.free"), e.getMessage());
    }

    @Test
    void theClientBehindTrustedProxiesIsTheKeyAndAForgedHeaderIsNot() {
        RateLimiter rl = limiterFromEnvironment(Map.of(
                "TOLLGATE_TRUSTED_PROXIES", "10.0.0.0/8",
                "TOLLGATE_POLICY_DEFAULT_LIMITS", "1/min"));
        TestRequest real = TestRequest.get("/").from("10.0.0.2").header("X-Forwarded-For", "198.51.100.4, 10.0.0.9");
        assertEquals("ip=198.51.100.4", rl.check(real).results().get(0).clientKey());
        for (int i = 0; i < 3; i++) {
            TestRequest forged = TestRequest.get("/").from("203.0.113.66").header("X-Forwarded-For", "192.0.2." + i);
            Decision d = rl.check(forged);
            assertEquals("ip=203.0.113.66", d.results().get(0).clientKey());
            assertEquals(i == 0, d.allowed(), "forging the header does not buy a new bucket");
        }
    }

    @Test
    void ipv6RotationInsideA64SharesOneBucket() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "3/min");
        int admitted = 0;
        for (int i = 1; i <= 10; i++) {
            admitted += rl.check(TestRequest.get("/").from("2001:db8:aa:bb::" + Integer.toHexString(i * 4099))).allowed() ? 1 : 0;
        }
        assertEquals(3, admitted);
        assertTrue(rl.check(TestRequest.get("/").from("2001:db8:aa:bc::1")).allowed(), "the next /64 is another client");
    }

    @Test
    void allowListedClientsAreNeverLimited() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min",
                "tollgate.allow-list", "192.0.2.0/24, principal:monitor, role:ops");
        for (TestRequest r : List.of(TestRequest.get("/").from("192.0.2.77"), TestRequest.get("/").from("198.51.100.1").user("monitor"),
                TestRequest.get("/").from("198.51.100.2").user("dana", "ops"))) {
            for (int i = 0; i < 3; i++) {
                Decision d = rl.check(r);
                assertTrue(d.allowed());
                assertTrue(rl.answer(d).headers().isEmpty(), "no headers for allow-listed clients");
            }
        }
        rl.check(TestRequest.get("/").from("198.51.100.3").user("eve"));
        assertFalse(rl.check(TestRequest.get("/").from("198.51.100.3").user("eve")).allowed());
    }

    @Test
    void anExportCostsTenTokens() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "20/min",
                "tollgate.policy.default.cost", "10 GET /export/**, 2 POST /**, 1");
        assertEquals(10, rl.check(TestRequest.get("/export/all")).results().get(0).limits().get(0).remaining());
        assertEquals(8, rl.check(TestRequest.get("/items").method("POST")).results().get(0).limits().get(0).remaining());
        assertEquals(7, rl.check(TestRequest.get("/items")).results().get(0).limits().get(0).remaining());
        assertFalse(rl.check(TestRequest.get("/export/all")).allowed(), "10 more do not fit in the 7 left");
        assertTrue(rl.check(TestRequest.get("/items")).allowed());
    }

    @Test
    void allMatchingPoliciesApplyInDeclaredOrderWhateverTheirSpecificity() {
        RateLimiter rl = limiter(
                "tollgate.policies", "general,export",
                "tollgate.policy.general.limits", "100/min",
                "tollgate.policy.export.limits", "2/min",
                "tollgate.policy.export.match", "GET /export/**");
        Decision d = rl.check(TestRequest.get("/export/x"));
        assertEquals(List.of("general", "export"), names(d), "declared order, not the most specific first");
        assertEquals(List.of("general"), names(rl.check(TestRequest.get("/other"))));
    }

    @Test
    void retryAfterJitterOnlyEverAddsUpToItsBound() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "1/min", "tollgate.retry-after-jitter", "5s");
        rl.check(TestRequest.get("/"));
        java.util.Set<Long> seen = new java.util.TreeSet<>();
        for (int i = 0; i < 200; i++) {
            seen.add(Long.parseLong(headers(rl.answer(rl.check(TestRequest.get("/")))).get("Retry-After")));
        }
        assertTrue(seen.stream().allMatch(v -> v >= 60 && v <= 65), seen.toString());
        assertTrue(seen.size() > 1, "it does vary: " + seen);
    }

    @Test
    void aSlidingLogPolicyHasTheSameHeadersAndRetryAfterMeaning() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "3/s", "tollgate.policy.default.algorithm", "sliding-log");
        assertEquals("\"default\";q=3;w=1", headers(rl.answer(rl.check(TestRequest.get("/")))).get("RateLimit-Policy"));
        rl.check(TestRequest.get("/"));
        rl.check(TestRequest.get("/"));
        HttpAnswer refused = rl.answer(rl.check(TestRequest.get("/")));
        assertEquals(429, refused.status());
        assertEquals("1", headers(refused).get("Retry-After"));
        ConfigException burst = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class, () -> limiter(
                "tollgate.policy.default.limits", "3/s burst 6", "tollgate.policy.default.algorithm", "sliding-log"));
        assertTrue(burst.getMessage().contains("takes no burst"), burst.getMessage());
    }

    @Test
    void eachPolicyMayHaveItsOwnFailureMode() {
        TollgateConfig c = TestConfigs.of(
                "tollgate.policies", "api,login,reports",
                "tollgate.policy.api.limits", "1/min",
                "tollgate.policy.login.limits", "1/min",
                "tollgate.policy.login.match", "POST /login",
                "tollgate.policy.login.failure-mode", "closed",
                "tollgate.policy.reports.limits", "1/min",
                "tollgate.policy.reports.match", "/reports/**",
                "tollgate.policy.reports.failure-mode", "open");
        RateLimiter rl = new RateLimiter(c, FailingStore.down(new LocalStore(1_000, () -> 0L)), new LocalStore(1_000, clock::nowMicros), System::nanoTime);
        Decision api = rl.check(TestRequest.get("/items"));
        assertEquals(Decision.Source.LOCAL, api.source(), "api follows the global mode: local");
        assertFalse(rl.check(TestRequest.get("/items")).allowed());
        Decision login = rl.check(TestRequest.get("/login").method("POST"));
        assertEquals(Decision.Verdict.UNAVAILABLE, login.verdict(), "login is closed while Redis is down");
        HttpAnswer a = rl.answer(login);
        assertEquals(503, a.status());
        assertTrue(a.body().contains("temporary-reduced-capacity") && a.body().contains("\"violated-policies\":[\"login\"]"), a.body());
        Decision reports = rl.check(TestRequest.get("/reports/q").from("198.51.100.8"));
        assertTrue(reports.allowed());
        assertEquals(List.of("api", "reports"), names(reports), "api still limits locally");
        assertTrue(reports.results().get(1).limits().isEmpty(), "reports is open: it steps aside, no limit applies");
        Decision again = rl.check(TestRequest.get("/reports/q").from("198.51.100.8"));
        assertEquals(List.of("api"), again.denying().stream().map(r -> r.policy().name()).collect(Collectors.toList()));
    }

    @Test
    void anOpenCircuitStopsCallingRedisThenProbesAndRecovers() {
        TollgateConfig c = TestConfigs.of(
                "tollgate.policy.default.limits", "100/s",
                "tollgate.redis.uri", "redis://unused:6379",
                "tollgate.redis.circuit.failures", "3",
                "tollgate.redis.circuit.open-for", "1s");
        FailingStore redis = FailingStore.down(new LocalStore(1_000, () -> 0L));
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        RateLimiter rl = new RateLimiter(c, redis, new LocalStore(1_000, clock::nowMicros), nanos::get);
        for (int i = 0; i < 100; i++) {
            assertTrue(rl.check(TestRequest.get("/")).allowed(), "the local store decides meanwhile");
        }
        assertEquals(3, redis.calls(), "after three failures Redis is not called any more");
        assertEquals(CircuitState.OPEN, rl.circuitState());
        nanos.addAndGet(1_000_000_000L);
        rl.check(TestRequest.get("/"));
        assertEquals(4, redis.calls(), "one probe after a second");
        redis.answers();
        nanos.addAndGet(2_000_000_000L);
        Decision back = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Source.REDIS, back.source(), "the probe succeeded");
        assertEquals(CircuitState.CLOSED, rl.circuitState());
        rl.check(TestRequest.get("/"));
        assertEquals(6, redis.calls(), "and every request goes to Redis again");
    }

    @Test
    void aKnownRefusalIsAnsweredFromMemoryUntilItsRetryAfter() {
        for (String enabled : List.of("true", "false")) {
            TollgateConfig c = TestConfigs.of(
                    "tollgate.redis.uri", "redis://unused:6379",
                    "tollgate.deny-cache", enabled,
                    "tollgate.policy.default.limits", "10/s burst 20");
            ManualClock time = new ManualClock();
            FailingStore counting = new FailingStore(new LocalStore(1_000, time::nowMicros));
            RateLimiter rl = new RateLimiter(c, counting, new LocalStore(1_000, time::nowMicros), () -> time.nowMicros() * 1000);
            int admitted = 0;
            for (int i = 0; i < 1_000; i++) {
                Decision d = rl.check(TestRequest.get("/"));
                admitted += d.allowed() ? 1 : 0;
                if (!d.allowed()) {
                    assertEquals(Decision.Verdict.DENY, d.verdict());
                    assertTrue(d.retryAfterMicros() > 0 && d.retryAfterMicros() <= 100_000, "Retry-After stays exact");
                }
                time.advanceMicros(1_000); // 1,000 requests a second from one client
            }
            assertEquals(20 + 9, admitted, "the burst and the 9 tokens of 100..900 ms, with or without the cache");
            if (enabled.equals("true")) {
                assertTrue(counting.calls() <= 2 * admitted, "refusals came from memory: " + counting.calls() + " store calls");
            } else {
                assertEquals(1_000, counting.calls(), "without the cache every request asks the store");
            }
        }
    }
}
