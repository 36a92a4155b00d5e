package dev.tollgate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.spi.BucketRequest;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.Retry;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/**
 * The bucket script on a Redis Cluster through a Jedis 8 cluster client: a client's bucket lives
 * on its hash tag's slot, and after that slot's master dies the promoted replica runs the script
 * too (loading it again if it does not know it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisStoreClusterIT {

    @Test
    void theBucketScriptRunsOnTheClusterAndAfterAFailover() {
        try (RedisCluster cluster = RedisCluster.start()) {
            Set<HostAndPort> seeds = new HashSet<>();
            cluster.seeds().forEach(s -> seeds.add(HostAndPort.from(s)));
            RedisClusterClient client = RedisClusterClient.builder().nodes(seeds)
                    .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(1000).build())
                    .build();
            try (RedisStore store = new RedisStore(new JedisPort(client, "cluster " + cluster.seeds()))) {
                String key = BucketKeys.key("tollgate:", "api", BucketKeys.client("ip=203.0.113.7"));
                store.load(key);
                List<BucketRequest> request = List.of(new BucketRequest(key, Limit.parse("5/min"), 1, true));
                assertEquals(4, store.acquire(request)[0], "remaining after the first request");
                assertEquals(3, store.acquire(request)[0]);
                RedisProcess owner = cluster.masterFor(key);
                assertTrue(owner.command("GET", key) != null, "the bucket lives on its slot's master " + owner.address());

                cluster.killMaster(owner);
                RedisProcess promoted = cluster.awaitFailover(owner, Duration.ofSeconds(30));
                long[] after = Retry.until(Duration.ofSeconds(15), () -> store.acquire(request));
                assertTrue(after[0] >= 0 && after[0] <= 4, "a decision from the promoted replica: " + after[0]);
                assertEquals("1", promoted.command("SCRIPT", "EXISTS", RedisStore.SHA1), "the script is known there now");
            }
        }
    }
}
