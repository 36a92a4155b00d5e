package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, item 1, on real Redis: {@link Limiter} draws from the bucket a filter's engine uses for
 * the same policy and client key (two engines, as a filter and a batch job of two processes would
 * have, on one Redis), waits for its tokens, and, with no Redis listening, answers by each failure
 * mode as a filter's engine does.
 */
@WithRedis
class LimiterIT {

    static Map<String, String> settings(String redisUri, String prefix) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.policies", "exports,reports");
        m.put("tollgate.policy.exports.limits", "1/min burst 5");
        m.put("tollgate.policy.reports.limits", "10/s burst 2");
        m.put("tollgate.policy.reports.match", "/reports/**");
        m.put("tollgate.policy.exports.key", "header:X-Tenant");
        m.put("tollgate.policy.exports.match", "/exports/**");
        m.put("tollgate.redis.uri", redisUri);
        m.put("tollgate.redis.timeout", "2s");
        m.put("tollgate.redis.key-prefix", prefix);
        m.put("tollgate.metrics", "none");
        m.put("tollgate.jmx", "false");
        return m;
    }

    @Test
    void aFilterAndAJobOnOneRedisShareTheClientsBucket(RedisEndpoint redis) throws InterruptedException {
        String prefix = "limiter-" + UUID.randomUUID() + ":";
        TollgateConfig c = TestConfigs.of(settings(redis.uri(), prefix));
        try (RateLimiter filter = RateLimiter.create(c, "filter", null);
             Limiter job = Tollgate.limiter(c, "job")) {
            TestRequest request = TestRequest.get("/exports/1").header("X-Tenant", "acme").from("198.51.100.7");
            Decision d = filter.check(request);
            assertEquals(Decision.Source.REDIS, d.source());
            assertEquals(4, d.results().get(0).limits().get(0).remaining());

            Acquisition a = job.acquire("exports", "header.x-tenant=acme", 3);
            assertTrue(a.allowed(), a.toString());
            assertEquals(Decision.Source.REDIS, a.decision().source());
            assertEquals(1, a.remaining(), "the job took from what the request left");
            Decision last = filter.check(request);
            assertTrue(last.allowed());
            assertEquals(0, last.results().get(0).limits().get(0).remaining(), "the filter sees what the job took");
            Acquisition refused = job.acquire("exports", "header.x-tenant=acme", 2);
            assertFalse(refused.allowed());
            assertTrue(refused.retryAfter().compareTo(Duration.ofSeconds(60)) > 0
                    && refused.retryAfter().compareTo(Duration.ofSeconds(120)) <= 0, "two tokens at 1/min, less what refilled: " + refused);
            // one storage key for both, in the layout the filters write (the default namespace: no servlet context here)
            assertEquals("1", redis.command("EXISTS", prefix + "default:{header.x-tenant=acme}:exports"));

            // waiting on real Redis: returns once the tokens are there (no assertion on how long it took)
            assertTrue(job.acquire("reports", "header.x-tenant=acme", 2).allowed());
            Acquisition waited = job.acquire("reports", "header.x-tenant=acme", 2, Duration.ofSeconds(10));
            assertTrue(waited.allowed(), waited.toString());
            assertEquals(Decision.Source.REDIS, waited.decision().source());
            // and gives up at once when it cannot be admitted in time
            Acquisition tooLong = job.acquire("exports", "header.x-tenant=acme", 5, Duration.ofSeconds(10));
            assertFalse(tooLong.allowed());
            assertTrue(tooLong.retryAfter().compareTo(Duration.ofSeconds(10)) > 0, tooLong.toString());
        }
    }

    /** Nothing listens where Redis should be: the failure mode decides, as for a filter's engine. */
    @Test
    void withRedisDownTheFailureModeDecides() throws InterruptedException {
        String nowhere = "redis://127.0.0.1:" + RedisProcess.freePort();
        for (String mode : List.of("local", "open", "closed")) {
            Map<String, String> m = settings(nowhere, "down-" + mode + ":");
            m.put("tollgate.redis.failure-mode", mode);
            m.put("tollgate.redis.timeout", "200ms");
            m.put("tollgate.policy.exports.limits", "1/h burst 1");
            TollgateConfig c = TestConfigs.of(m);
            try (RateLimiter filter = RateLimiter.create(c, "filter-" + mode, null);
                 Limiter job = Tollgate.limiter(c, "job-" + mode)) {
                Acquisition first = job.acquire("exports", "job=nightly");
                Acquisition second = job.acquire("exports", "job=nightly", 1, Duration.ofMillis(10));
                Decision filters = filter.check(TestRequest.get("/exports/1").header("X-Tenant", "acme"));
                System.out.printf("[limiter] Redis down, %s: %s, then %s; the filter's: %s%n", mode, first, second,
                        filters.verdict());
                switch (mode) {
                    case "local" -> {
                        assertEquals(Decision.Source.LOCAL, first.decision().source());
                        assertTrue(first.allowed());
                        assertFalse(second.allowed(), "this node's memory limits");
                        assertEquals(Decision.Source.LOCAL, filters.source());
                    }
                    case "open" -> {
                        assertTrue(first.allowed() && second.allowed());
                        assertEquals(Decision.Source.NONE, first.decision().source());
                        assertTrue(filters.allowed());
                    }
                    default -> {
                        assertTrue(first.unavailable() && second.unavailable());
                        assertFalse(first.allowed());
                        assertEquals(Decision.Verdict.UNAVAILABLE, filters.verdict());
                        assertFalse(job.engine().health().ready(), "health says so, as for a filter");
                    }
                }
            }
        }
    }
}
