package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.RedisSentinels;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Sentinels that ask for their own password (their {@code requirepass}, or an ACL user), distinct
 * from the master's, and a master database other than 0: Tollgate reaches the master through
 * them with {@code tollgate.redis.sentinel.user}, {@code .password} and {@code .database}, and the
 * buckets land in that database. Without the sentinels' password it starts anyway and applies its
 * failure mode.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SentinelAuthIT {

    static final String MASTER_PASSWORD = "master-pw";
    static final String SENTINEL_PASSWORD = "sentinel-pw";

    static RateLimiter limiter(RedisSentinels sentinels, Map<String, String> more) {
        Map<String, String> m = new HashMap<>(more);
        m.put("tollgate.redis.sentinel.master", sentinels.masterName());
        m.put("tollgate.redis.sentinel.nodes", String.join(",", sentinels.sentinelAddresses()));
        m.put("tollgate.redis.password", MASTER_PASSWORD);
        m.put("tollgate.redis.timeout", "500ms");
        m.put("tollgate.redis.failure-mode", "local");
        m.put("tollgate.redis.key-prefix", "sentinel-auth:");
        m.put("tollgate.policy.default.limits", "10/s");
        m.put("tollgate.jmx", "false");
        m.put("tollgate.metrics", "none");
        return RateLimiter.create(TestConfigs.of(m));
    }

    /** Whether the key exists in database {@code db} of the master, asked with the master's password. */
    static boolean exists(RedisProcess master, int db, String key) {
        try (Jedis j = new Jedis(new HostAndPort(master.host(), master.port()),
                DefaultJedisClientConfig.builder().password(MASTER_PASSWORD).database(db).build())) {
            return j.exists(key);
        }
    }

    static void decidesInDatabase(RedisSentinels sentinels, RateLimiter rl, int db, String client) {
        Decision d = rl.check(TestRequest.get("/api").from(client));
        assertEquals(Decision.Source.REDIS, d.source(), d + "; " + rl.health());
        String key = "sentinel-auth:default:{ip=" + client + "}:default";
        RedisProcess master = sentinels.currentMaster();
        assertTrue(exists(master, db, key), key + " in database " + db);
        if (db != 0) {
            assertFalse(exists(master, 0, key), key + " not in database 0");
        }
    }

    @Test
    void sentinelsWithRequirepassAndADatabaseOtherThanZero() {
        try (RedisSentinels sentinels = RedisSentinels.start(RedisSentinels.Setup.DEFAULT.masterPassword(MASTER_PASSWORD)
                .sentinelAuth(null, SENTINEL_PASSWORD))) {
            RedisProcess sentinel = sentinels.sentinels().get(0);
            String unauthenticated = sentinel.auth(null, null).command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", sentinels.masterName());
            sentinel.auth(null, SENTINEL_PASSWORD);
            assertTrue(unauthenticated.startsWith("ERR:NOAUTH"), "the sentinels do ask for a password: " + unauthenticated);

            try (RateLimiter rl = limiter(sentinels, Map.of("tollgate.redis.sentinel.password", SENTINEL_PASSWORD,
                    "tollgate.redis.sentinel.database", "3"))) {
                decidesInDatabase(sentinels, rl, 3, "192.0.2.31");
                assertFalse(rl.health().toString().contains(SENTINEL_PASSWORD), "never the password: " + rl.health());
            }
            try (RateLimiter rl = limiter(sentinels, Map.of())) {
                Decision d = rl.check(TestRequest.get("/api").from("192.0.2.32"));
                assertEquals(Decision.Source.LOCAL, d.source(), "without the sentinels' password: the failure mode");
                assertEquals("open", rl.health().circuit());
                assertTrue(rl.health().lastFailure().contains("sentinel") || rl.health().lastFailure().contains("NOAUTH"),
                        rl.health().lastFailure());
            }
        }
    }

    @Test
    void sentinelsWithAnAclUser() {
        try (RedisSentinels sentinels = RedisSentinels.start(RedisSentinels.Setup.DEFAULT.masterPassword(MASTER_PASSWORD)
                .sentinelAuth("tollgate-sentinel", SENTINEL_PASSWORD))) {
            try (RateLimiter rl = limiter(sentinels, Map.of("tollgate.redis.sentinel.user", "tollgate-sentinel",
                    "tollgate.redis.sentinel.password", SENTINEL_PASSWORD))) {
                decidesInDatabase(sentinels, rl, 0, "192.0.2.33");
            }
        }
    }
}
