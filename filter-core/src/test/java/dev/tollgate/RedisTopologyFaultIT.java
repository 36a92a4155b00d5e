package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.Alone;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.RedisSentinels;
import dev.tollgate.testing.TestConfigs;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Redis Cluster losing a master, and a Sentinel-watched master dying, while requests run through
 * Tollgate: no error reaches a client, no request waits beyond the budget, and Tollgate decides
 * with Redis again once the replica is promoted. The times measured are printed.
 */
@Alone
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisTopologyFaultIT {

    static RateLimiter limiter(Map<String, String> redis) {
        Map<String, String> m = new HashMap<>(redis);
        m.put("tollgate.redis.timeout", RedisFaultIT.TIMEOUT_MS + "ms");
        m.put("tollgate.redis.circuit.open-for", "200ms");
        m.put("tollgate.redis.failure-mode", "local");
        m.put("tollgate.policy.default.limits", "50/s burst 50");
        m.put("tollgate.jmx", "false");
        m.put("tollgate.deny-cache", "false"); // see RedisFaultIT.limiter
        return RateLimiter.create(TestConfigs.of(m));
    }

    /** The first sample after {@code from} that Redis decided; -1 if none. */
    static long redisAgainMillis(List<RedisFaultIT.Sample> samples, long from) {
        return RedisFaultIT.recoveryMillis(samples, from);
    }

    @Test
    void aClusterMasterDiesAndItsReplicaTakesOver() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
             RateLimiter rl = limiter(Map.of("tollgate.redis.cluster", String.join(",", cluster.seeds())))) {
            long[] marks = new long[2];
            RedisProcess[] killed = new RedisProcess[1];
            List<RedisFaultIT.Sample> samples = RedisFaultIT.load(rl, 4, 1_000, 6_000, Map.of(
                    1_000L, () -> {
                        killed[0] = cluster.masters().get(0);
                        marks[0] = System.nanoTime();
                        cluster.killMaster(killed[0]);
                    },
                    1_100L, () -> {
                        cluster.awaitFailover(killed[0], Duration.ofSeconds(30));
                        marks[1] = System.nanoTime();
                    }));
            RedisFaultIT.report("cluster master killed", samples, marks[0], marks[1]);
            long back = redisAgainMillis(samples, marks[1]);
            System.out.printf("[fault] cluster: the replica was promoted %d ms after the kill; Redis decides every key"
                    + " again %d ms after that%n", (marks[1] - marks[0]) / 1_000_000, back);
            RedisFaultIT.assertWithinBudget(samples);
            assertTrue(samples.stream().allMatch(s -> s.verdict() != Decision.Verdict.UNAVAILABLE), "local mode never 503s");
            assertTrue(back >= 0, "Tollgate decides with the cluster again after the failover");
            long lastLocal = samples.stream().filter(s -> s.source() == Decision.Source.LOCAL)
                    .mapToLong(RedisFaultIT.Sample::startNanos).max().orElse(0);
            assertTrue(lastLocal < marks[1] + 2_000_000_000L, "no local decision two seconds after the failover");
        }
    }

    @Test
    void aSentinelWatchedMasterDiesAndTollgateFollowsTheNewOne() throws Exception {
        try (RedisSentinels sentinels = RedisSentinels.start();
             RateLimiter rl = limiter(Map.of(
                     "tollgate.redis.sentinel.master", sentinels.masterName(),
                     "tollgate.redis.sentinel.nodes", String.join(",", sentinels.sentinelAddresses())))) {
            long[] marks = new long[2];
            String oldMaster = sentinels.currentMasterAddress();
            List<RedisFaultIT.Sample> samples = RedisFaultIT.load(rl, 4, 7_000, Map.of(
                    1_000L, () -> {
                        marks[0] = System.nanoTime();
                        sentinels.killMaster();
                    },
                    1_100L, () -> {
                        sentinels.awaitNewMaster(Duration.ofSeconds(30));
                        marks[1] = System.nanoTime();
                    }));
            RedisFaultIT.report("sentinel master killed", samples, marks[0], marks[1]);
            long back = redisAgainMillis(samples, marks[1]);
            System.out.printf("[fault] sentinel: %s died; the sentinels named %s %d ms later; Redis decides again %d ms"
                    + " after that%n", oldMaster, sentinels.currentMasterAddress(), (marks[1] - marks[0]) / 1_000_000, back);
            RedisFaultIT.assertWithinBudget(samples);
            assertTrue(samples.stream().allMatch(s -> s.verdict() != Decision.Verdict.UNAVAILABLE), "local mode never 503s");
            assertTrue(back >= 0, "Tollgate follows the new master");
        }
    }
}
