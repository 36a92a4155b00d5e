package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What one active bucket with one limit costs in Redis (MEMORY USAGE), by key format. */
@WithRedis
class MemoryPerBucketIT {

    static long usage(RedisEndpoint redis, String prefix, String format) {
        TollgateConfig c = TestConfigs.of(
                "tollgate.redis.uri", redis.uri(), "tollgate.redis.timeout", "2s", "tollgate.jmx", "false",
                "tollgate.redis.key-prefix", prefix, "tollgate.redis.key-format", format,
                "tollgate.policy.default.limits", "10/s burst 20");
        try (RateLimiter rl = RateLimiter.create(c)) {
            // the whole burst, so the key lives 2 s (until it is full again), not the 100 ms one
            // token takes to come back, in which a busy machine let it expire before MEMORY USAGE
            for (int i = 0; i < 20; i++) {
                rl.check(TestRequest.get("/").from("203.0.113.195"));
            }
        }
        // the bucket; beside it the policy's record of limits (PolicyRecords), one per policy, not per client
        String keys = String.join("\n", redis.command("KEYS", prefix + "*").lines()
                .filter(k -> !k.contains(":policy:")).toList());
        assertEquals(1, keys.split("\n").length, keys);
        // one limit: its arrival time and its limit's tag, a short string (an integer before issue 28's addendum)
        assertEquals("embstr", redis.command("OBJECT", "ENCODING", keys), "one limit: one short string");
        long bytes = Long.parseLong(redis.command("MEMORY", "USAGE", keys));
        System.out.printf("[memory] %s key %s: %d bytes%n", format, keys, bytes);
        return bytes;
    }

    @Test
    void aCompactKeyWithAShortPrefixKeepsABucketWithin88Bytes(RedisEndpoint redis) {
        String run = UUID.randomUUID().toString().substring(0, 4);
        long readable = usage(redis, "tollgate-" + run + ":", "readable");
        long compact = usage(redis, "t" + run.charAt(0), "compact");
        // 56 while the value was an integer; the tag every state carries since issue 28's addendum costs 32
        assertTrue(compact <= 88, "compact: " + compact + " bytes");
        assertTrue(readable > compact, "readable keys cost more: " + readable);
    }
}
