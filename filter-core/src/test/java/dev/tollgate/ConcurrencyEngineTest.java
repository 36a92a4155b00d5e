package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

/** Concurrency limits through the engine, over the in-memory store and a clock the test moves. */
class ConcurrencyEngineTest {

    final ManualClock clock = new ManualClock();

    static TollgateConfig config(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return TestConfigs.withProviders(m);
    }

    RateLimiter limiter(String... keyValues) {
        return new RateLimiter(config(keyValues), new LocalStore(10_000, clock::nowMicros), null, System::nanoTime);
    }

    @Test
    void aPolicyWithBothKeepsItsRateFieldsAndTheyNeverSpeakOfConcurrency() {
        RateLimiter rl = limiter("tollgate.policy.default.limits", "10/s burst 20", "tollgate.policy.default.concurrency", "1",
                "tollgate.headers", "both");
        Decision first = rl.check(TestRequest.get("/x"));
        Map<String, String> h = RateLimiterTest.headers(rl.answer(first));
        assertEquals("\"default\";q=20;w=2", h.get("RateLimit-Policy"));
        assertEquals("\"default\";r=19;t=1", h.get("RateLimit"));
        assertEquals("20", h.get("X-RateLimit-Limit"));
        assertTrue(first.permit().held());

        Decision second = rl.check(TestRequest.get("/x"));
        HttpAnswer refused = rl.answer(second);
        assertEquals(429, refused.status());
        assertFalse(second.permit().held(), "a refused request holds nothing");
        Map<String, String> rh = RateLimiterTest.headers(refused);
        assertEquals("60", rh.get("Retry-After"), "until the oldest lease expires");
        assertEquals("\"default\";r=19;t=1", rh.get("RateLimit"), "the rate limit, untouched by the refusal");
        assertTrue(refused.body().contains("\"detail\":\"Concurrency limit of policy 'default' (1 in flight) reached;"
                + " retry in 60 s.\""), refused.body());
        assertTrue(refused.body().contains("\"violated-policies\":[\"default-concurrency\"]"), refused.body());

        assertTrue(first.permit().release());
        assertTrue(rl.answer(rl.check(TestRequest.get("/x"))).passes());
    }

    @Test
    void aRequestRefusedByARateLimitTakesNoSlotAndTheReverse() {
        RateLimiter rl = limiter("tollgate.policies", "slots,rate", "tollgate.policy.slots.concurrency", "1",
                "tollgate.policy.slots.concurrency-lease", "10min",
                "tollgate.policy.rate.limits", "1/min", "tollgate.policy.rate.match", "/rate/**");
        Decision one = rl.check(TestRequest.get("/rate/a"));
        assertTrue(one.allowed());
        one.permit().release();
        Decision refusedByRate = rl.check(TestRequest.get("/rate/a"));
        assertEquals(Decision.Verdict.DENY, refusedByRate.verdict());
        assertFalse(refusedByRate.permit().held());
        Decision holder = rl.check(TestRequest.get("/other"));
        assertTrue(holder.allowed(), "the slot the refused request did not take is free");
        clock.advanceMicros(60_000_000); // the rate limit has its token again
        Decision refusedBySlot = rl.check(TestRequest.get("/rate/a"));
        assertEquals(Decision.Verdict.DENY, refusedBySlot.verdict());
        holder.permit().release();
        assertTrue(rl.check(TestRequest.get("/rate/a")).allowed(), "the slot refusal took no token");
    }

    @Test
    void releasingTwiceFreesOneSlot() {
        RateLimiter rl = limiter("tollgate.policy.default.concurrency", "2");
        Decision a = rl.check(TestRequest.get("/x"));
        assertTrue(rl.check(TestRequest.get("/x")).allowed());
        assertTrue(a.permit().release());
        assertFalse(a.permit().release());
        assertTrue(rl.check(TestRequest.get("/x")).allowed());
        assertFalse(rl.check(TestRequest.get("/x")).allowed());
    }

    @Test
    void aLeaseNeverGivenBackExpiresAfterTheLease() {
        RateLimiter rl = limiter("tollgate.policy.default.concurrency", "1", "tollgate.policy.default.concurrency-lease", "5s");
        assertTrue(rl.check(TestRequest.get("/x")).permit().held());
        clock.advanceMicros(4_999_999);
        assertFalse(rl.check(TestRequest.get("/x")).allowed());
        clock.advanceMicros(1);
        assertTrue(rl.check(TestRequest.get("/x")).allowed());
    }

    @Test
    void whileRedisFailsTheLocalFallbackTakesAndGivesBackTheSlot() {
        FailingStore redis = FailingStore.down(new LocalStore(1_000, () -> 0L));
        RateLimiter rl = new RateLimiter(config("tollgate.policy.default.concurrency", "1"), redis,
                new LocalStore(1_000, clock::nowMicros), System::nanoTime);
        Decision held = rl.check(TestRequest.get("/x"));
        assertEquals(Decision.Source.LOCAL, held.source());
        assertFalse(rl.check(TestRequest.get("/x")).allowed());
        held.permit().release();
        assertTrue(rl.check(TestRequest.get("/x")).allowed());
    }
}
