package dev.tollgate.internal.engine;

import dev.tollgate.config.StoreSettings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.local.MicroClock;
import dev.tollgate.internal.redis.JedisPort;
import dev.tollgate.internal.redis.RedisStore;
import java.util.Locale;
import java.util.logging.Logger;

/**
 * The stores a configuration asks for, and their start-up: Redis when one is configured (with
 * the in-memory store as the fallback of {@code failure-mode=local}), else the in-memory store.
 * {@code RateLimiter.create} calls it, so that the public face does not wire stores. Stateless;
 * thread-safe.
 */
public final class Engines {

    private static final Logger REDIS_LOG = Logger.getLogger("dev.tollgate.redis");
    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private Engines() {
    }

    /**
     * The stores of one limiter.
     *
     * @param fallback the store of {@code failure-mode=local}, or {@code null} when {@code store} is in memory
     * @param redis    {@code store} when it is Redis, else {@code null}
     */
    public record Stores(BucketStore store, BucketStore fallback, RedisStore redis) {
    }

    /**
     * Opens the stores the configuration asks for; connecting to Redis waits for {@link #start}.
     *
     * @throws dev.tollgate.config.ConfigException when {@link OpenChecks} finds a problem (nothing is opened then)
     */
    public static Stores open(TollgateConfig config) {
        return open(config, null);
    }

    /**
     * The same on a node whose own clock is {@code nodeClock} (µs since the epoch; {@code null}:
     * the system's): the in-memory store's clock, and where the Redis store computes calendar
     * windows (Redis' {@code TIME} still decides). A seam for tests of nodes whose clocks are off.
     */
    public static Stores open(TollgateConfig config, MicroClock nodeClock) {
        OpenChecks.check(config);
        LocalStore local = new LocalStore(config.store().localMaxKeys(), nodeClock == null ? MicroClock.SYSTEM : nodeClock);
        if (!(config.store() instanceof StoreSettings.OnRedis onRedis)) {
            return new Stores(local, null, null);
        }
        RedisStore redis = nodeClock == null ? new RedisStore(JedisPort.create(onRedis.redis()))
                : RedisStore.onNodeClock(JedisPort.create(onRedis.redis()), nodeClock::nowMicros);
        return new Stores(redis, local, redis);
    }

    /**
     * Logs the configuration in force and loads the scripts into Redis. An unreachable Redis does
     * not stop start-up: the guard's circuit opens and the failure mode applies until it answers.
     */
    public static void start(TollgateConfig config, String name, Stores stores, StoreGuard guard) {
        if (stores.redis() == null || !(config.store() instanceof StoreSettings.OnRedis onRedis)) {
            LOG.info(() -> Messages.started(name, config.enabled(), "in-memory store", ConfigDescription.of(config)));
            if (config.enabled()) {
                LOG.warning(() -> Messages.perNode(name));
            }
            return;
        }
        LOG.info(() -> Messages.started(name, config.enabled(), "store " + onRedis.redis().describe() + " (timeout "
                + onRedis.redis().timeout().toMillis() + " ms, failure mode "
                + config.store().failureMode().name().toLowerCase(Locale.ROOT) + ")", ConfigDescription.of(config)));
        try {
            stores.redis().load(BucketKeys.key(config.store().keyPrefix(), "load", "tollgate"));
        } catch (RuntimeException e) {
            guard.failedAtStart(e);
            REDIS_LOG.warning(() -> Messages.redisNotReady(onRedis.redis().describe(), e));
            guard.watch(new PolicyRecords(stores.redis(), name, System::nanoTime)); // checked once Redis answers
            return;
        }
        // two configurations with other limits in this namespace: said now, and watched while deciding
        PolicyRecords records = new PolicyRecords(stores.redis(), name, System::nanoTime);
        records.check(config);
        guard.watch(records);
    }
}
