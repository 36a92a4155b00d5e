package dev.tollgate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
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
}
