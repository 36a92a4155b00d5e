package dev.tollgate.internal.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.RedisSettings;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.WithRedis;
import org.junit.jupiter.api.Test;

/** The version check against the real server: what the port reads is what the server says, and the tests' Redis passes. */
@WithRedis
class RedisVersionIT {

    @Test
    void thePortReadsTheServersOwnVersionAndTheTestRedisIsRecentEnough(RedisEndpoint redis) {
        String fromServer = RedisVersion.fromInfo(redis.command("INFO", "server"));
        assertNotNull(fromServer, "the server reports redis_version");
        try (JedisPort port = JedisPort.connect(RedisStoreIT.settings(redis))) {
            assertEquals(fromServer, port.serverVersion(ConnectingPort.VERSION_KEY));
        }
        System.out.printf("[redis-version] %s runs Redis %s; the minimum is %s%n", redis.uri(), fromServer, RedisVersion.MINIMUM);
        assertTrue(RedisVersion.atLeast(fromServer, RedisVersion.MINIMUM), fromServer);
        try (RedisPort checked = JedisPort.create(RedisStoreIT.settings(redis))) {
            assertEquals(RedisStore.SHA1, checked.scriptLoad(RedisStore.SCRIPT, "x"), "a recent server passes the check");
        }
    }

    /** A least-privilege ACL user may not run INFO: the version is then unknown, not a failure. */
    @Test
    void anAclUserWithoutInfoStillUsesRedis(RedisProcess redis) {
        assertEquals("OK", redis.command("ACL", "SETUSER", "limited", "on", ">limited-pw", "~*", "+@all", "-info"));
        RedisSettings base = RedisStoreIT.settings(redis);
        RedisSettings limited = base.toBuilder().credentials("limited", "limited-pw").build();
        try (JedisPort port = JedisPort.connect(limited)) {
            assertNull(port.serverVersion(ConnectingPort.VERSION_KEY), "NOPERM: the server does not say");
        }
        try (RedisPort checked = JedisPort.create(limited)) {
            assertEquals(RedisStore.SHA1, checked.scriptLoad(RedisStore.SCRIPT, "x"), "and the port is used");
        }
    }
}
