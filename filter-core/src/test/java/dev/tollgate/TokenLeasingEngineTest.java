package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Token leasing inside the engine: where it answers, where it does not, and what a client is told. */
class TokenLeasingEngineTest {

    final ManualClock clock = new ManualClock();
    final Map<String, String> settings = new HashMap<>(Map.of(
            "tollgate.metrics", "none", "tollgate.jmx", "false",
            "tollgate.policy.default.limits", "1000/s burst 100", "tollgate.policy.default.prefetch", "10"));
    /** The "Redis" of these tests: an in-memory store that counts calls and can fail. */
    final FailingStore redis = new FailingStore(new LocalStore(1_000, clock::nowMicros));

    RateLimiter limiter() {
        java.util.function.Supplier<TollgateConfig> load = () ->
                TestConfigs.withProviders(settings);
        return new RateLimiter(load.get(), redis, new LocalStore(1_000, clock::nowMicros), () -> clock.nowMicros() * 1_000L,
                null, "leasing-engine", load);
    }

    Map<Decision.Source, Integer> sources(RateLimiter rl, int requests) {
        Map<Decision.Source, Integer> seen = new EnumMap<>(Decision.Source.class);
        for (int i = 0; i < requests; i++) {
            Decision d = rl.check(TestRequest.get("/"));
            assertTrue(d.allowed(), d::toString);
            seen.merge(d.source(), 1, Integer::sum);
        }
        return seen;
    }

    @Test
    void aHotKeyCostsOneRedisCallPerPrefetch() {
        RateLimiter rl = limiter();
        assertEquals(Map.of(Decision.Source.REDIS, 10, Decision.Source.LEASE, 90), sources(rl, 100));
        assertEquals(10, redis.calls());
        assertEquals(10, rl.redisCalls());
    }

    @Test
    void withoutPrefetchEveryRequestIsACall() {
        settings.remove("tollgate.policy.default.prefetch");
        RateLimiter rl = limiter();
        assertEquals(Map.of(Decision.Source.REDIS, 20), sources(rl, 20));
        assertEquals(20, redis.calls());
    }

    @Test
    void aRequestOfSeveralPoliciesIsDecidedByRedisAllOrNothing() {
        settings.put("tollgate.policies", "default,other");
        settings.put("tollgate.policy.other.limits", "1000/s burst 100");
        RateLimiter rl = limiter();
        assertEquals(Map.of(Decision.Source.REDIS, 20), sources(rl, 20));
        assertEquals(20, redis.calls());
    }

    @Test
    void aRequestCostingMoreThanThePrefetchGoesToRedis() {
        settings.put("tollgate.policy.default.cost", "20");
        RateLimiter rl = limiter();
        assertEquals(Map.of(Decision.Source.REDIS, 3), sources(rl, 3));
    }

    @Test
    void whenTheLeaseIsEmptyAndRedisRefusesTheRefusalIsRedisOwnForTheRequest() {
        settings.put("tollgate.policy.default.limits", "1/s burst 12");
        settings.put("tollgate.policy.default.prefetch-hold", "10s"); // 1/s refills the 10 in a hold
        RateLimiter rl = limiter();
        assertEquals(Map.of(Decision.Source.REDIS, 1, Decision.Source.LEASE, 9), sources(rl, 10));
        // 2 tokens left in Redis: the next lease cannot be had, the requests take them one by one
        assertEquals(Map.of(Decision.Source.REDIS, 2), sources(rl, 2));
        Decision refused = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Verdict.DENY, refused.verdict());
        assertEquals(Decision.Source.REDIS, refused.source());
        assertEquals(1_000_000, refused.retryAfterMicros(), "one token's wait, not ten tokens'");
    }

    @Test
    void whileRedisFailsTheFailureModeDecidesAndNoSecondCallIsMade() {
        redis.failsWith(() -> new IllegalStateException("Redis is down (test)"));
        RateLimiter rl = limiter();
        Decision d = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Source.LOCAL, d.source());
        assertEquals(1, redis.calls(), "the failed lease call is the request's only call");
    }

    @Test
    void aReloadDropsTheLeasesOfTheOldLimits() {
        RateLimiter rl = limiter();
        sources(rl, 5);
        settings.put("tollgate.policy.default.limits", "1000/s burst 200");
        assertTrue(rl.reload());
        Decision d = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Source.REDIS, d.source(), "a new lease under the new limits");
        assertEquals(2, redis.calls());
    }
}
