package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The deny cache inside the engine: the cases a sequential property cannot reach. */
class DenyCacheEngineTest {

    final ManualClock clock = new ManualClock();
    final Map<String, String> settings = new HashMap<>(Map.of(
            "tollgate.metrics", "none", "tollgate.jmx", "false", "tollgate.policy.default.limits", "1/min"));
    /** The "Redis" of these tests: an in-memory store that counts calls, can fail, and can run something mid-call. */
    final FailingStore redis = new FailingStore(new LocalStore(1_000, clock::nowMicros));

    RateLimiter limiter() {
        java.util.function.Supplier<TollgateConfig> load = () ->
                TestConfigs.withProviders(settings);
        return new RateLimiter(load.get(), redis, new LocalStore(1_000, clock::nowMicros), () -> clock.nowMicros() * 1_000L,
                null, "deny-cache-engine", load);
    }

    @Test
    void aRefusalDecidedWhileAReloadClearsTheCacheIsNotServedUnderTheNewConfiguration() {
        RateLimiter rl = limiter();
        assertTrue(rl.check(TestRequest.get("/")).allowed());
        settings.put("tollgate.policy.default.limits", "1/s burst 100"); // the debt of 60 s leaves 40 tokens
        redis.afterNextAnswer(() -> assertTrue(rl.reload(), "the operator's reload lands while Redis is answering"));
        Decision refusedUnderOld = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Verdict.DENY, refusedUnderOld.verdict(), "Redis refused under 1/min");

        Decision next = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Verdict.ALLOW, next.verdict(), () -> "the new limit admits it; the cache may not say " + next);
        assertEquals(Decision.Source.REDIS, next.source());
    }

    @Test
    void aCachedRefusalSaysItCameFromTheCacheAlsoWhileRedisIsDown() {
        RateLimiter rl = limiter();
        rl.check(TestRequest.get("/"));
        assertEquals(Decision.Source.REDIS, rl.check(TestRequest.get("/")).source(), "Redis refuses and the node remembers");
        int before = redis.calls();
        redis.failsWith(() -> new IllegalStateException("Redis is down (test)"));
        Decision d = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Verdict.DENY, d.verdict());
        assertEquals(Decision.Source.CACHE, d.source(), "not Redis: Redis was not asked");
        assertEquals(before, redis.calls());
    }

    @Test
    void aHitAnswersTheLongestWaitOfTheRefusalsItKnows() {
        settings.put("tollgate.policies", "short,long");
        settings.put("tollgate.policy.short.limits", "1/s");
        settings.put("tollgate.policy.long.limits", "1/min");
        RateLimiter rl = limiter();
        rl.check(TestRequest.get("/"));
        Decision fromRedis = rl.check(TestRequest.get("/"));
        assertEquals(2, fromRedis.denying().size());
        Decision fromCache = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Source.CACHE, fromCache.source());
        assertEquals(fromRedis.retryAfterMicros(), fromCache.retryAfterMicros(), "60 s, not the 1 s of the first policy");
        assertEquals(60_000_000, fromCache.retryAfterMicros());
    }

    @Test
    void aRequestAskingAgainThatFailsUnexpectedlyLeavesNoOneWaitingForIt() {
        RateLimiter rl = limiter();
        rl.check(TestRequest.get("/"));
        assertEquals(Decision.Source.REDIS, rl.check(TestRequest.get("/")).source(), "Redis refuses and the node remembers");
        assertEquals(1, rl.denyCacheSize());
        clock.advance(java.time.Duration.ofMinutes(1)); // the refusal expires: the next request asks again
        redis.throwsUnexpected(new StackOverflowError("test"));
        Decision d = rl.check(TestRequest.get("/"));
        assertEquals(Decision.Source.NONE, d.source(), "an internal error lets the request through, as documented: " + d);
        assertEquals(0, rl.denyCacheSize(),
                "its asking is withdrawn: later requests ask Redis at once, not after waiting out its time budget");
        redis.answers();
        assertEquals(Decision.Source.REDIS, rl.check(TestRequest.get("/")).source());
    }
}
