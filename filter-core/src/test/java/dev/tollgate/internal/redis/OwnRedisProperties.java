package dev.tollgate.internal.redis;

import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A property class with a Redis process of its own and a port to it, started once for the class
 * and stopped after it: its examples may {@code FLUSHALL} without disturbing any other test.
 */
abstract class OwnRedisProperties {

    static RedisProcess redis;
    static RedisPort port;

    @BeforeAll
    static void startOwnRedis() {
        redis = TestRedis.startProcess();
        port = JedisPort.create(RedisStoreIT.settings(redis));
    }

    @AfterAll
    static void stopOwnRedis() {
        port.close();
        redis.close();
    }
}
