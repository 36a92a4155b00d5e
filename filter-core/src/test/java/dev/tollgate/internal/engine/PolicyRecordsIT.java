package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.redis.JedisPort;
import dev.tollgate.internal.redis.RedisStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.WithRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The record of a policy's limits in a namespace ({@link PolicyRecords}): its lifetime and
 * overwrite rule, so that a rolling deploy is said at most once per node and never after it
 * ended, and a check comes after a reload and then at most once a minute, never on the request's thread.
 */
@WithRedis
class PolicyRecordsIT {

    private final String prefix = "rec-" + UUID.randomUUID().toString().substring(0, 8) + ":";

    private TollgateConfig config(RedisEndpoint redis, String limits) {
        return TestConfigs.of("tollgate.redis.uri", redis.uri(), "tollgate.redis.timeout", "2s",
                "tollgate.redis.key-prefix", prefix, "tollgate.namespace", "shop", "tollgate.policy.default.limits", limits);
    }

    @Test
    void theFirstConfigurationHoldsTheRecordWhileItRunsAndItLapsesAfter(RedisEndpoint redis) {
        TollgateConfig old = config(redis, "1/s burst 5");
        TollgateConfig next = config(redis, "1/s burst 12");
        ManualClock clock = new ManualClock();
        try (RedisStore store = new RedisStore(JedisPort.create(TestConfigs.redis(old)))) {
            PolicyRecords oldNode = new PolicyRecords(store, "old", () -> clock.nowMicros() * 1000);
            PolicyRecords newNode = new PolicyRecords(store, "new", () -> clock.nowMicros() * 1000);
            String key = prefix + "shop:policy:default";
            assertEquals(List.of(), oldNode.check(old));
            assertEquals(Long.toString(PolicyRecords.digest(old.policies().get(0))), redis.command("GET", key));
            long ttl = Long.parseLong(redis.command("PTTL", key));
            assertTrue(ttl > 0 && ttl <= PolicyRecords.TTL_MILLIS, "a record lapses: " + ttl);
            assertEquals(List.of("default"), newNode.check(next), "a node of other limits finds the old ones");
            assertEquals(Long.toString(PolicyRecords.digest(old.policies().get(0))), redis.command("GET", key),
                    "and leaves them: the old nodes keep theirs until the last one stops");
            assertEquals(List.of(), oldNode.check(old), "the holder refreshes its own");
            redis.command("DEL", key); // the last old node stopped TTL_MILLIS ago: the record lapsed
            assertEquals(List.of(), newNode.check(next), "after the deploy, nothing is said");
            assertEquals(Long.toString(PolicyRecords.digest(next.policies().get(0))), redis.command("GET", key));
        }
    }

    @Test
    void aCheckRunsAfterAReloadAndThenOnceAMinuteOnTheExecutor(RedisEndpoint redis) {
        TollgateConfig c = config(redis, "1/s burst 5");
        ManualClock clock = new ManualClock();
        List<Runnable> queued = new ArrayList<>();
        try (RedisStore store = new RedisStore(JedisPort.create(TestConfigs.redis(c)))) {
            PolicyRecords records = new PolicyRecords(store, "node", () -> clock.nowMicros() * 1000);
            records.check(c);
            records.tick(c, queued::add);
            assertEquals(0, queued.size(), "nothing due: the start checked");
            TollgateConfig reloaded = config(redis, "1/s burst 6");
            records.tick(reloaded, queued::add);
            assertEquals(1, queued.size(), "a reload is checked at the next decision");
            records.tick(reloaded, queued::add);
            clock.advanceMicros(PolicyRecords.EVERY_NANOS / 1000 - 1);
            records.tick(reloaded, queued::add);
            assertEquals(1, queued.size(), "not again within the minute");
            clock.advanceMicros(1);
            records.tick(reloaded, queued::add);
            assertEquals(2, queued.size(), "a minute on, again");
            assertEquals(List.of(), records.check(reloaded), "a node replaces its own record at a reload: nothing to say");
            assertEquals(Long.toString(PolicyRecords.digest(reloaded.policies().get(0))),
                    redis.command("GET", prefix + "shop:policy:default"));
        }
    }

    @Test
    void theDigestIsTheLimitsNumbersNotTheirSpelling() {
        Policy a = TestConfigs.of("tollgate.policy.default.limits", "1/s burst 5").policies().get(0);
        Policy b = TestConfigs.of("tollgate.policy.default.limits", "1/S  BURST 5", "tollgate.policy.default.key",
                "header:X-Api-Key").policies().get(0);
        Policy c = TestConfigs.of("tollgate.policy.default.limits", "1/s burst 12").policies().get(0);
        Policy d = TestConfigs.of("tollgate.policy.default.limits", "5/s", "tollgate.policy.default.algorithm",
                "sliding-log").policies().get(0);
        Policy e = TestConfigs.of("tollgate.policy.default.limits", "5/s").policies().get(0);
        assertEquals(PolicyRecords.digest(a), PolicyRecords.digest(b));
        assertNotEquals(PolicyRecords.digest(a), PolicyRecords.digest(c));
        assertNotEquals(PolicyRecords.digest(e), PolicyRecords.digest(d), "the algorithm counts");
        assertTrue(PolicyRecords.digest(a) > 0 && PolicyRecords.digest(a) < 1L << 48);
    }
}
