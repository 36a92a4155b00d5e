package dev.tollgate.internal.redis;

import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A jqwik property class with a Redis process of its own and a port to it, started once for the
 * class and stopped after it: its tries may {@code FLUSHALL} without disturbing any other test.
 * (jqwik's lifecycle has no JUnit extension to lend this, hence a base class.)
 */
abstract class OwnRedisProperties {

    static RedisProcess redis;
    static RedisPort port;

    @BeforeContainer
    static void startOwnRedis() {
        redis = TestRedis.startProcess();
        port = JedisPort.create(RedisStoreIT.settings(redis));
    }

    @AfterContainer
    static void stopOwnRedis() {
        port.close();
        redis.close();
    }
}
