package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.Retry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
            RedisSettings settings = RedisSettings.builder(new RedisSettings.Cluster(cluster.seeds()))
                    .timeout(Duration.ofSeconds(2)).poolSize(8).circuit(3, Duration.ofSeconds(1)).autoPipelining(false).build();
            try (RedisStore store = new RedisStore(JedisPort.create(settings))) {
                String key = BucketKeys.key("tollgate:", "api", BucketKeys.client("ip=203.0.113.7"));
                store.load(key);
                List<BucketRequest> request = List.of(BucketRequest.take(key, Limit.parse("5/min"), 1, true));
                assertEquals(4, Replies.flat(store.acquire(request))[0], "remaining after the first request");
                assertEquals(3, Replies.flat(store.acquire(request))[0]);
                RedisProcess owner = cluster.masterFor(key);
                assertTrue(owner.command("GET", key) != null, "the bucket lives on its slot's master " + owner.address());

                cluster.killMaster(owner);
                RedisProcess promoted = cluster.awaitFailover(owner, Duration.ofSeconds(30));
                long[] after = Retry.until(Duration.ofSeconds(15), () -> Replies.flat(store.acquire(request)));
                assertTrue(after[0] >= 0 && after[0] <= 4, "a decision from the promoted replica: " + after[0]);
                assertEquals("1", promoted.command("SCRIPT", "EXISTS", RedisStore.SHA1), "the script is known there now");
            }
        }
    }

    @Test
    void aPauseGateSharesItsBucketsSlotSoBothAreDecidedInOneCall() {
        try (RedisCluster cluster = RedisCluster.start()) {
            RedisSettings settings = RedisSettings.builder(new RedisSettings.Cluster(cluster.seeds()))
                    .timeout(Duration.ofSeconds(2)).poolSize(8).circuit(3, Duration.ofSeconds(1)).autoPipelining(false).build();
            RedisPort port = JedisPort.create(settings);
            try (RedisStore store = new RedisStore(port)) {
                for (boolean compact : new boolean[] {false, true}) {
                    String client = BucketKeys.client("remote=github");
                    String bucket = compact ? BucketKeys.compactKey("t:", "github", client, true)
                            : BucketKeys.key("tollgate:", "github", client);
                    String gate = bucket + ":p"; // as ClientKeys.pauseKey makes it
                    assertEquals(port.slot(bucket), port.slot(gate), "one slot: " + bucket + ", " + gate);
                    store.load(bucket);
                    List<Limit> limits = Limit.parse("5/min");
                    List<BucketRequest> call = List.of(BucketRequest.take(bucket, limits, 1, true),
                            BucketRequest.pauseGate(gate, limits.get(0), true));
                    assertEquals(0, Replies.flat(store.acquire(call))[7], "open: no wait from the gate");
                    long left = store.pause(gate, 30_000_000);
                    assertTrue(left > 29_000_000 && left <= 30_000_000, "paused on Redis' clock: " + left);
                    long[] refused = Replies.flat(store.acquire(call));
                    assertTrue(refused[7] > 0, "the gate refuses while paused");
                    assertEquals(4, refused[0], "and nothing was taken from the bucket");
                }
            }
        }
    }

    @Test
    void policiesWhoseKeysLiveOnDifferentMastersAreStillAllOrNothing() {
        try (RedisCluster cluster = RedisCluster.start()) {
            RedisSettings settings = RedisSettings.builder(new RedisSettings.Cluster(cluster.seeds()))
                    .timeout(Duration.ofSeconds(2)).poolSize(8).circuit(3, Duration.ofSeconds(1)).autoPipelining(false).build();
            try (RedisStore store = new RedisStore(JedisPort.create(settings))) {
                String byAddress = BucketKeys.key("tollgate:", "api", BucketKeys.client("ip=203.0.113.7"));
                String byUser = null;
                for (int i = 0; byUser == null || cluster.masterFor(byUser) == cluster.masterFor(byAddress); i++) {
                    byUser = BucketKeys.key("tollgate:", "user", BucketKeys.client("principal=user" + i));
                }
                BucketRequest.Take a = BucketRequest.take(byAddress, Limit.parse("5/min"), 1, true);
                BucketRequest.Take b = BucketRequest.take(byUser, Limit.parse("1/min"), 1, true);
                long[] first = Replies.flat(store.acquire(List.of(a, b)));
                assertEquals(0, first[3] + first[7], "both admit");
                long[] second = Replies.flat(store.acquire(List.of(a, b)));
                assertTrue(second[7] > 0, "the user's policy refuses");
                assertEquals(3, Replies.flat(store.acquire(List.of(a)))[0], "the refused request took nothing from the address' policy");
            }
        }
    }
}
