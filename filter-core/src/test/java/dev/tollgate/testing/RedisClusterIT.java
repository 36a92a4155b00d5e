package dev.tollgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClusterClient;

/** {@link RedisCluster} works: a Jedis 8 cluster client uses all three masters, and survives a master's death. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisClusterIT {

    static RedisClusterClient client(RedisCluster cluster) {
        Set<HostAndPort> seeds = new HashSet<>();
        cluster.seeds().forEach(s -> seeds.add(HostAndPort.from(s)));
        return RedisClusterClient.builder().nodes(seeds)
                .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(1000).build())
                .build();
    }

    @Test
    void threeMastersEachServeTheirSlotsToAClusterClient() {
        try (RedisCluster cluster = RedisCluster.start(); RedisClusterClient client = client(cluster)) {
            RedisProcess any = cluster.nodes().get(0);
            List<String> keys = new ArrayList<>(List.of("", "{}", "{}x", "{a", "a}", "a{b}c", "a{b}{c}", "{{x}}", "{x}}",
                    "a{}{b}", "tollgate:{ip=203.0.113.7}:default", "tollgate:{header.x-api-key=%7B%7D}:api",
                    "\u00e9\u00e8{\u4e2d\u6587}", "{\ud83d\udea6}"));
            Random r = new Random(7);
            for (int i = 0; i < 200; i++) {
                StringBuilder k = new StringBuilder();
                for (int j = r.nextInt(30); j > 0; j--) {
                    k.append("ab{}:x\u00e9".charAt(r.nextInt(7)));
                }
                keys.add(k.toString());
            }
            for (String k : keys) {
                assertEquals(Integer.parseInt(any.command("CLUSTER", "KEYSLOT", k)), RedisCluster.slot(k),
                        "slot of '" + k + "'");
            }

            Map<RedisProcess, String> keyOn = new LinkedHashMap<>();
            for (int i = 0; keyOn.size() < 3 && i < 1000; i++) {
                keyOn.putIfAbsent(cluster.masterFor("key-" + i), "key-" + i);
            }
            assertEquals(3, keyOn.size(), "keys on three masters: " + keyOn);
            keyOn.forEach((master, key) -> {
                assertEquals("OK", client.set(key, "on " + master.address()));
                assertEquals("on " + master.address(), client.get(key));
                assertEquals("on " + master.address(), master.command("GET", key), "the key lives on its slot's master");
            });
        }
    }

    @Test
    void whenAMasterDiesItsReplicaTakesOverWithTheDataItAcknowledged() {
        try (RedisCluster cluster = RedisCluster.start(); RedisClusterClient client = client(cluster)) {
            String key = "{victim}:bucket";
            RedisProcess victim = cluster.masterFor(key);
            List<String> keys = new ArrayList<>();
            try (Jedis direct = new Jedis(victim.host(), victim.port())) {
                for (int i = 0; i < 20; i++) {
                    keys.add("{victim}:" + i);
                    direct.set("{victim}:" + i, "v" + i);
                }
                assertEquals(1, direct.waitReplicas(1, 5000), "the replica acknowledged the writes");
            }
            String other = null;
            for (int i = 0; other == null; i++) {
                if (cluster.masterFor("other-" + i) != victim) {
                    other = "other-" + i;
                }
            }
            client.set(other, "still here");

            cluster.killMaster(victim);
            RedisProcess promoted = cluster.awaitFailover(victim, Duration.ofSeconds(30));
            assertNotEquals(victim.port(), promoted.port());
            assertEquals("master", RedisCluster.info(promoted, "replication", "role"));
            assertEquals(promoted, cluster.masterFor(key));

            for (int i = 0; i < keys.size(); i++) {
                String k = keys.get(i);
                assertEquals("v" + i, Retry.until(Duration.ofSeconds(15), () -> client.get(k)), k + " through the client");
                assertEquals("v" + i, promoted.command("GET", k), k + " on the promoted replica");
            }
            String o = other;
            assertEquals("still here", Retry.until(Duration.ofSeconds(15), () -> client.get(o)));
            assertEquals("OK", Retry.until(Duration.ofSeconds(15), () -> client.set(key, "written after the failover")));
            assertTrue(promoted.command("GET", key).startsWith("written after"));
        }
    }
}
