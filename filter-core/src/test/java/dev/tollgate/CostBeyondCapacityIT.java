package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 28, item 3: a cost given in code ({@link RateLimiter#check(RequestView, java.util.Collection, long)})
 * that a limit's burst can never admit is refused with an error that says so, on Redis and in
 * memory alike, as a configured cost beyond a burst stops start-up. Before the fix the engine asked
 * the store: a cost of 6 was refused by both with {@code Retry-After: 6}, which it would never
 * keep; a cost of 2^62 or 2^63 - 1 (past 2^63 µs of refill) was refused by Redis with a retry of 0
 * ({@code Retry-After: 1}, {@code t=9223372036855}) and admitted by the in-memory store, whose
 * cost times refill period overflowed.
 */
@WithRedis
class CostBeyondCapacityIT {

    private static RateLimiter limiter(String store, RedisEndpoint redis) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.policies", "export");
        m.put("tollgate.policy.export.limits", "10/min burst 5");
        m.put("tollgate.metrics", "none");
        m.put("tollgate.jmx", "false");
        m.put("tollgate.plans", "gold,free");
        m.put("tollgate.plan.default", "free");
        m.put("tollgate.plan.selector", "role");
        m.put("tollgate.plan.gold.role", "gold");
        m.put("tollgate.policy.export.limits.gold", "100/min burst 50");
        if (store.equals("redis")) {
            m.put("tollgate.redis.uri", redis.uri());
            m.put("tollgate.redis.timeout", "2s");
            m.put("tollgate.redis.key-prefix", "cost-" + UUID.randomUUID() + ":");
        }
        return RateLimiter.create(TestConfigs.of(m));
    }

    @ParameterizedTest(name = "{0}, cost {1}")
    @CsvSource({"redis, 6", "memory, 6", "redis, 4611686018427387904", "memory, 4611686018427387904",
        "redis, 9223372036854775807", "memory, 9223372036854775807"})
    void aCostNoBurstCanAdmitIsRefusedWithAClearError(String store, long cost, RedisEndpoint redis) {
        try (RateLimiter rl = limiter(store, redis)) {
            Policy export = rl.config().policy("export").orElseThrow();
            TestRequest request = TestRequest.get("/export").from("198.51.100.7");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> rl.check(request, List.of(export), cost), () -> "a cost of " + cost + " on " + store);
            System.out.println("[cost] " + store + ", cost " + cost + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("could never pass") && e.getMessage().contains("'export'")
                    && e.getMessage().contains("costing " + cost + " tokens") && e.getMessage().contains("whose burst is 5"),
                    e.getMessage());
            assertTrue(e.getMessage().startsWith("TOLLGATE-"), "a message id to search for: " + e.getMessage());
            // what fits still passes, on the same limiter and client
            Decision d = rl.check(request, List.of(export), 5);
            assertEquals(Decision.Verdict.ALLOW, d.verdict(), d.toString());
            assertEquals(store.equals("redis") ? Decision.Source.REDIS : Decision.Source.LOCAL, d.source());
            Decision spent = rl.check(request, List.of(export), 1);
            assertEquals(Decision.Verdict.DENY, spent.verdict(), "the burst of 5 was taken: " + spent);
        }
    }

    /** A cost beyond the burst of another plan's limits is refused too, as {@code @RateLimited}'s is at start-up. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"redis", "memory"})
    void aCostBeyondTheBurstOfAnyPlanIsRefused(String store, RedisEndpoint redis) {
        try (RateLimiter rl = limiter(store, redis)) {
            Policy export = rl.config().policy("export").orElseThrow();
            TestRequest gold = TestRequest.get("/export").from("198.51.100.8").user("ada", "gold");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> rl.check(gold, List.of(export), 20));
            assertTrue(e.getMessage().contains("whose burst is 5"), e.getMessage());
            assertEquals(Decision.Verdict.ALLOW, rl.check(gold, List.of(export), 5).verdict());
        }
    }
}
