package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.testing.HostileValues;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Hostile clients through the engine over a real Redis (a process of the test's own, so every key
 * in it is Tollgate's): tens of thousands of distinct hostile client keys, and then, key by key in
 * Redis itself, the promise of {@link BucketKeys}: prefix + at most 120 + policy name + 3
 * characters, and no brace but the hash tag's own pair.
 */
@WithRedis
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileKeysRedisIT {

    static final int REQUESTS = 15_000;
    static final String PREFIX = "fuzz:";

    @Test
    void everyKeyInRedisStaysBoundedWithOnlyItsHashTagBraces(RedisProcess redis) {
        TollgateConfig config = HostileRequests.config(
                "tollgate.redis.uri", redis.uri(),
                "tollgate.redis.timeout", "5s",
                "tollgate.redis.failure-mode", "closed", // a Redis error shows as a 503 decision, not as a silent local one
                "tollgate.redis.key-prefix", PREFIX,
                "tollgate.trusted-proxies", "10.0.0.0/8, 127.0.0.1, ::1",
                "tollgate.policies", "addr,apikey,who,mix",
                "tollgate.policy.addr.limits", "1000/day", // a key lives until its bucket is full again: here 86 s per token
                "tollgate.policy.apikey.key", "header:X-Api-Key",
                "tollgate.policy.apikey.limits", "50/day",
                "tollgate.policy.who.key", "principal+route",
                "tollgate.policy.who.limits", "50/day",
                "tollgate.policy.who.mode", "shadow",
                "tollgate.policy.mix.key", "header:X-Api-Key+route, principal, ip",
                "tollgate.policy.mix.limits", "50/day",
                "tollgate.policy.mix.algorithm", "sliding-log");
        long seed = 0x7ed15L;
        HostileValues h = new HostileValues(seed);
        Set<String> named = new HashSet<>();
        Set<String> admitted = new HashSet<>();
        long start = System.nanoTime();
        try (HostileRequests.LogCapture log = new HostileRequests.LogCapture();
             RateLimiter limiter = RateLimiter.create(config)) {
            for (int i = 0; i < REQUESTS; i++) {
                TestRequest t = HostileRequests.next(h);
                int n = i;
                Supplier<String> where = () -> "seed " + seed + ", request " + n + " (" + HostileRequests.describe(t) + ")";
                HostileRequests.Answered answered = HostileRequests.checkAndAnswer(limiter, t, where);
                Decision d = answered.decision();
                HttpAnswer a = answered.answer();
                if (d.verdict() == Decision.Verdict.UNAVAILABLE || d.results().isEmpty()) {
                    fail(where.get() + ": no Redis decision (" + d.verdict() + "); only an error could do this here");
                }
                assertTrue(d.source() == Decision.Source.REDIS || d.source() == Decision.Source.CACHE, () -> where.get() + ": decided by Redis, or by the deny cache from a refusal Redis gave");
                List<String> keys = HostileRequests.assertSafe(limiter, d, a, where);
                named.addAll(keys);
                if (d.allowed()) {
                    for (int k = 0; k < keys.size(); k++) {
                        if (d.results().get(k).policy().mode() == Mode.ENFORCE || !d.results().get(k).denied()) {
                            admitted.add(keys.get(k));
                        }
                    }
                }
            }
            log.assertClean();
        }
        long decided = System.nanoTime();

        Set<String> inRedis = new HashSet<>();
        try (RedisClient client = RedisClient.create(redis.host(), redis.port())) {
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = client.scan(cursor, new ScanParams().count(1000));
                inRedis.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        Set<String> policies = Set.of("addr", "apikey", "who", "mix");
        String base = PREFIX + "default:"; // the namespace of a limiter no container names
        Set<String> records = new HashSet<>();
        for (String key : inRedis) {
            if (key.startsWith(base + "policy:") && policies.contains(key.substring((base + "policy:").length()))) {
                records.add(key); // the record of a policy's limits (PolicyRecords), one per policy
                continue;
            }
            int close = key.indexOf('}');
            String policy = close < 0 ? "" : key.substring(close + 2).replaceFirst(":log$", ""); // a sliding log's key
            if (!key.startsWith(base + "{") || !policies.contains(policy) || key.charAt(close + 1) != ':'
                    || HostileRequests.count(key, '{') != 1 || HostileRequests.count(key, '}') != 1) {
                fail("a key in Redis does not have the form " + base + "{<client>}:<policy>[:log]: " + key);
            }
            int bound = base.length() + BucketKeys.MAX_CLIENT + policy.length() + 7;
            assertTrue(key.length() <= bound, key.length() + " > " + bound + ": " + key);
            assertTrue(HostileRequests.CLIENT.matcher(key.substring(base.length() + 1, close)).matches(), key);
            assertTrue(named.contains(key), "a key no decision named: " + key);
        }
        assertEquals(policies.size(), records.size(), "one record of limits per policy: " + records);
        Set<String> missing = new HashSet<>(admitted);
        missing.removeAll(inRedis);
        assertTrue(missing.isEmpty(), missing.size() + " admitted buckets are not in Redis, e.g. " + missing.stream().limit(3).toList());
        System.out.printf("[hostile-redis] seed %d: %d hostile requests in %d ms; %d distinct keys in Redis (%d named),"
                        + " all within bounds; scanned and checked in %d ms%n", seed, REQUESTS, (decided - start) / 1_000_000,
                inRedis.size(), named.size(), (System.nanoTime() - decided) / 1_000_000);
        assertTrue(inRedis.size() >= 20_000, "a large number of distinct hostile keys: " + inRedis.size());
    }
}
