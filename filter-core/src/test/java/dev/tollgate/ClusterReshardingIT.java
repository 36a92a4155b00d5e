package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.redis.RedisStore;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Redis Cluster resharding while requests run through Tollgate, as an operator adding a master
 * does: each slot is opened for migration ({@code IMPORTING} on the new master, {@code MIGRATING}
 * on its owner), its keys are moved with {@code MIGRATE}, and the slot is given to the new master
 * ({@code SETSLOT NODE}). Every decision meanwhile comes from Redis, never from the failure mode:
 * a key still on its old master is decided there, a key already moved or never written is
 * decided on the new master after {@code ASK} (where the script is not loaded yet), a call whose
 * keys are split between the two ({@code TRYAGAIN}) is tried again until they are together, and
 * each client is admitted exactly its burst over the whole migration.
 *
 * <p>The limits refill one token every three minutes: over the test, what is admitted is the burst
 * alone (the model is a token bucket whose refill the test never reaches).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterReshardingIT {

    private static final int BURST = 20;

    private static RateLimiter limiter(RedisCluster cluster) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.redis.cluster", String.join(",", cluster.seeds()));
        // generous for a loaded machine: the paths under test keep the same budget rules at any t
        m.put("tollgate.redis.timeout", "2s");
        m.put("tollgate.redis.failure-mode", "local");
        m.put("tollgate.policies", "default,b");
        m.put("tollgate.policy.default.limits", "20/h burst " + BURST);
        m.put("tollgate.policy.b.limits", "100/h burst 100");
        m.put("tollgate.policy.b.match", "/two/**");
        m.put("tollgate.jmx", "false");
        m.put("tollgate.deny-cache", "false"); // every refusal asked of Redis
        return RateLimiter.create(TestConfigs.of(m));
    }

    /** Tollgate's keys in Redis that name {@code address}, on whichever master holds them. */
    private static List<String> keysOf(RedisCluster cluster, String address) {
        List<String> out = new ArrayList<>();
        for (RedisProcess m : cluster.masters()) {
            String reply = m.command("KEYS", "*" + address + "*");
            if (reply != null && !reply.isEmpty()) {
                out.addAll(List.of(reply.split("\n")));
            }
        }
        return out;
    }

    /** A client's requests, counting the admitted; fails on any decision not made by Redis. */
    private static int admitted(RateLimiter rl, TestRequest request, int n, String phase) {
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            Decision d = rl.check(request);
            assertEquals(Decision.Source.REDIS, d.source(), phase + ", request " + (i + 1) + ": decided by Redis, not the failure mode");
            if (d.allowed()) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void everyDecisionDuringASlotMigrationToANewMasterComesFromRedisAndEachClientGetsExactlyItsBurst() {
        try (RedisCluster cluster = RedisCluster.start();
             RateLimiter rl = limiter(cluster)) {
            TestRequest stays = TestRequest.get("/one").from("198.51.100.7");   // key moved mid-test
            TestRequest moved = TestRequest.get("/one").from("198.51.100.8");   // key moved before any request of the migration
            TestRequest fresh = TestRequest.get("/one").from("198.51.100.9");   // key written first during the migration
            assertEquals(5, admitted(rl, stays, 5, "before"));
            assertEquals(5, admitted(rl, moved, 5, "before"));
            String staysKey = single(keysOf(cluster, "198.51.100.7"));
            String movedKey = single(keysOf(cluster, "198.51.100.8"));
            assertTrue(keysOf(cluster, "198.51.100.9").isEmpty(), "the fresh client has no key yet");

            RedisProcess added = cluster.addMaster();
            int staysSlot = RedisCluster.slot(staysKey);
            int movedSlot = RedisCluster.slot(movedKey);
            int freshSlot = RedisCluster.slot(BucketKeyOf.sameTag(staysKey, "198.51.100.7", "198.51.100.9"));
            RedisProcess staysSource = cluster.beginMigration(staysSlot, added);
            RedisProcess movedSource = cluster.beginMigration(movedSlot, added);
            RedisProcess freshSource = cluster.beginMigration(freshSlot, added);
            cluster.migrateKeys(movedSource, added, movedKey);

            assertEquals(5, admitted(rl, stays, 5, "migrating, key still on its old master"));
            assertEquals(8, admitted(rl, moved, 8, "migrating, key already moved"));
            assertEquals(8, admitted(rl, fresh, 8, "migrating, new key"));
            String freshKey = single(keysOf(cluster, "198.51.100.9"));
            assertEquals(freshSlot, RedisCluster.slot(freshKey), "the fresh client's key is in the slot migrated");
            assertTrue(holds(added, freshKey), "a new key is written on the new master (ASK)");

            assertEquals("1", added.command("SCRIPT", "EXISTS", RedisStore.SHA1), "the script was sent whole to the new master");
            assertTrue(errors(added, "NOSCRIPT") > 0, "after the new master answered NOSCRIPT (ASKING again)");

            cluster.migrateKeys(staysSource, added, staysKey);
            assertEquals(BURST - 10, admitted(rl, stays, 15, "migrating, key just moved"));
            assertEquals(BURST - 13, admitted(rl, moved, 12, "migrating, key already moved"));
            assertEquals(BURST - 8, admitted(rl, fresh, 17, "migrating, new key"));
            assertEquals(0, rl.redisFailures(), "no Redis call failed during the migration");

            cluster.finishMigration(staysSlot, staysSource, added);
            cluster.finishMigration(movedSlot, movedSource, added);
            cluster.finishMigration(freshSlot, freshSource, added);
            for (TestRequest r : List.of(stays, moved, fresh)) {
                assertEquals(0, admitted(rl, r, 3, "after the migration"), "the bucket stays empty");
            }
            for (String k : List.of(staysKey, movedKey, freshKey)) {
                assertTrue(holds(added, k), k + " lives on the new master");
            }
            assertEquals(0, rl.redisFailures(), "no Redis call failed after the migration either");
        }
    }

    @Test
    void aCallWhoseKeysAreSplitByTheMigrationIsTriedAgainUntilTheyAreTogether() throws Exception {
        try (RedisCluster cluster = RedisCluster.start();
             RateLimiter rl = limiter(cluster)) {
            TestRequest both = TestRequest.get("/two/x").from("198.51.100.20"); // policies default and b: one call, two keys
            assertEquals(1, admitted(rl, both, 1, "before"));
            List<String> keys = keysOf(cluster, "198.51.100.20");
            assertEquals(2, keys.size(), "one key per policy: " + keys);
            int slot = RedisCluster.slot(keys.get(0));
            assertEquals(slot, RedisCluster.slot(keys.get(1)), "a client's keys share its hash tag's slot");

            RedisProcess added = cluster.addMaster();
            RedisProcess source = cluster.beginMigration(slot, added);
            cluster.migrateKeys(source, added, keys.get(0)); // the other stays: Redis answers TRYAGAIN on either side
            long before = tryAgains(source) + tryAgains(added);
            AtomicReference<Decision> decision = new AtomicReference<>();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread request = new Thread(() -> {
                try {
                    decision.set(rl.check(both));
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            request.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (tryAgains(source) + tryAgains(added) == before && request.isAlive() && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertTrue(tryAgains(source) + tryAgains(added) > before, "Redis answered TRYAGAIN while the keys were split");
            cluster.migrateKeys(source, added, keys.get(1));
            request.join(10_000);
            assertEquals(null, failed.get());
            assertNotNull(decision.get(), "the request was decided");
            assertEquals(Decision.Source.REDIS, decision.get().source(), "decided by Redis once the keys were together");
            assertTrue(decision.get().allowed());
            assertEquals(BURST - 2, admitted(rl, TestRequest.get("/one").from("198.51.100.20"), BURST, "after"),
                    "the default policy's bucket: two taken, the rest left");
            cluster.finishMigration(slot, source, added);
            assertEquals(0, rl.redisFailures(), "no Redis call failed");
        }
    }

    @Test
    void aRequestWithAKeyNeverWrittenDuringAMigrationThatDoesNotEndIsDecidedKeyByKeyByRedisAsTheModelSays() {
        try (RedisCluster cluster = RedisCluster.start();
             RateLimiter rl = limiter(cluster)) {
            TestRequest one = TestRequest.get("/one").from("198.51.100.30"); // the default policy alone
            TestRequest both = TestRequest.get("/two/x").from("198.51.100.30"); // default and b: one slot, two keys
            assertEquals(BURST - 4, admitted(rl, one, BURST - 4, "before"));
            String defaultKey = single(keysOf(cluster, "198.51.100.30"));
            int slot = RedisCluster.slot(defaultKey);

            RedisProcess added = cluster.addMaster();
            RedisProcess source = cluster.beginMigration(slot, added); // never finished in this test
            long before = tryAgains(source);
            // the model: 4 tokens left in default's bucket, 100 in b's (never written): the first 4
            // requests of both are admitted and take one of each, the next ones are refused by
            // default and take nothing from b
            for (int i = 1; i <= 6; i++) {
                Decision d = rl.check(both);
                assertEquals(Decision.Source.REDIS, d.source(), "request " + i + ": decided by Redis, not the failure mode");
                boolean modelAdmits = i <= 4;
                assertEquals(modelAdmits, d.allowed(), "request " + i + " admitted as the model says");
                assertEquals(2, d.results().size(), "request " + i + ": one result per policy");
                assertEquals(Math.max(0, 4 - i), d.results().get(0).limits().get(0).remaining(), "request " + i + ": default's tokens left");
                assertEquals(100 - Math.min(i, 4), d.results().get(1).limits().get(0).remaining(), "request " + i + ": b's tokens left");
            }
            long asks = errors(source, "ASK");
            if (cluster.version().compareTo("7") >= 0) {
                assertTrue(tryAgains(source) > before, "Redis answered TRYAGAIN to the call of both keys");
            } else {
                // Redis 6.2 answers the call of both keys, one of them absent from a migrating slot,
                // with ASK or TRYAGAIN as it goes; either way the keys' places below show the path
                System.out.println("[resharding] Redis " + cluster.version() + " answered " + (tryAgains(source) - before)
                        + " TRYAGAIN and " + asks + " ASK to the calls during the migration");
                assertTrue(tryAgains(source) > before || asks > 0, "Redis redirected the call of both keys (TRYAGAIN or ASK)");
            }
            assertTrue(holds(source, defaultKey), "default's key never left the slot's master");
            String bKey = keysOf(cluster, "198.51.100.30").stream().filter(k -> !k.equals(defaultKey)).findFirst().orElseThrow();
            assertTrue(holds(added, bKey), "b's key, never written before, was written on the importing master (ASK)");
            assertEquals(0, rl.redisFailures(), "no Redis call counted as failed: Redis was healthy");
            assertEquals(0, rl.redisBusy(), "nor as busy");
        }
    }

    /** The TRYAGAIN errors a node has answered so far. */
    private static long tryAgains(RedisProcess node) {
        return errors(node, "TRYAGAIN");
    }

    /** The errors of one kind a node has answered so far ({@code INFO errorstats}). */
    private static long errors(RedisProcess node, String kind) {
        String prefix = "errorstat_" + kind + ":count=";
        for (String line : node.command("INFO", "errorstats").split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return Long.parseLong(line.substring(prefix.length()).split(",")[0].trim());
            }
        }
        return 0;
    }

    /**
     * Whether {@code node} holds {@code key}: asked with {@code KEYS}, which no node redirects (a
     * node importing a slot answers {@code EXISTS} with {@code MOVED} unless asked {@code ASKING}).
     */
    private static boolean holds(RedisProcess node, String key) {
        return key.equals(node.command("KEYS", key));
    }

    private static String single(List<String> keys) {
        assertEquals(1, keys.size(), "one key: " + keys);
        return keys.get(0);
    }

    /** A key for another client, made by replacing the client in a key Tollgate wrote. */
    private static final class BucketKeyOf {
        static String sameTag(String key, String client, String other) {
            assertTrue(key.contains(client), key);
            return key.replace(client, other);
        }
    }
}
