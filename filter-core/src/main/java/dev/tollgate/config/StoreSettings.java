package dev.tollgate.config;

import java.util.Objects;

/**
 * Where buckets are kept: in this JVM's memory ({@link InMemory}), or in Redis ({@link OnRedis}),
 * shared by every node. Either way the keys have one prefix and format, the in-memory store (the
 * whole store, or Redis' local fallback) holds at most {@link #localMaxKeys()} buckets, and the
 * failure mode and deny cache say what happens while the shared store fails and after it refuses
 * (for the in-memory kind they matter only to a store given in code, such as a test's stand-in).
 *
 * <p>Sealed: the engine asks which kind it has, never whether a value is missing. Immutable and
 * thread-safe.
 */
public abstract sealed class StoreSettings permits StoreSettings.InMemory, StoreSettings.OnRedis {

    private final String keyPrefix;
    private final boolean compactKeys;
    private final int localMaxKeys;
    private final FailureMode failureMode;
    private final boolean denyCache;

    private StoreSettings(String keyPrefix, boolean compactKeys, int localMaxKeys, FailureMode failureMode,
                          boolean denyCache) {
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.compactKeys = compactKeys;
        this.localMaxKeys = localMaxKeys;
        this.failureMode = Objects.requireNonNull(failureMode, "failureMode");
        this.denyCache = denyCache;
    }

    /** Buckets in this JVM only (every node limits on its own), every value its key's default. */
    public static InMemory inMemory() {
        return new InMemory(Settings.REDIS_KEY_PREFIX.defaultValue(), Settings.REDIS_KEY_FORMAT.defaultValue(),
                Settings.LOCAL_MAX_KEYS.defaultValue(), Settings.REDIS_FAILURE_MODE.defaultValue(),
                Settings.DENY_CACHE.defaultValue());
    }

    /** Buckets in Redis, every other value its key's default. */
    public static OnRedis redis(RedisSettings redis) {
        return new OnRedis(redis, Settings.REDIS_KEY_PREFIX.defaultValue(), Settings.REDIS_KEY_FORMAT.defaultValue(),
                Settings.LOCAL_MAX_KEYS.defaultValue(), Settings.REDIS_FAILURE_MODE.defaultValue(),
                Settings.DENY_CACHE.defaultValue());
    }

    /** Prefix of every storage key ({@code tollgate.redis.key-prefix}). */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** Whether storage keys are hashed to save memory ({@code tollgate.redis.key-format=compact}). */
    public boolean compactKeys() {
        return compactKeys;
    }

    /** Most buckets kept in memory ({@code tollgate.local.max-keys}), read once at the start. */
    public int localMaxKeys() {
        return localMaxKeys;
    }

    /** What to do while the shared store fails ({@code tollgate.redis.failure-mode}); a policy may say otherwise. */
    public FailureMode failureMode() {
        return failureMode;
    }

    /** Whether refusals of the shared store are remembered until their {@code Retry-After} ({@code tollgate.deny-cache}). */
    public boolean denyCache() {
        return denyCache;
    }

    /** This store with other key settings. */
    public StoreSettings withKeys(String prefix, boolean compact) {
        return copy(prefix, compact, localMaxKeys, failureMode, denyCache);
    }

    /** This store holding at most {@code maxKeys} buckets in memory. */
    public StoreSettings withLocalMaxKeys(int maxKeys) {
        return copy(keyPrefix, compactKeys, maxKeys, failureMode, denyCache);
    }

    /** This store with another failure mode. */
    public StoreSettings withFailureMode(FailureMode mode) {
        return copy(keyPrefix, compactKeys, localMaxKeys, mode, denyCache);
    }

    /** This store with the deny cache on or off. */
    public StoreSettings withDenyCache(boolean on) {
        return copy(keyPrefix, compactKeys, localMaxKeys, failureMode, on);
    }

    /**
     * The time budget, circuit and pool that guard calls to the shared store: Redis' own settings,
     * or for the in-memory kind their defaults, which guard a store given in code (a test's
     * stand-in for Redis).
     */
    public abstract RedisSettings guard();

    abstract StoreSettings copy(String prefix, boolean compact, int maxKeys, FailureMode mode, boolean deny);

    /** Buckets in this JVM's memory. */
    public static final class InMemory extends StoreSettings {
        private InMemory(String keyPrefix, boolean compactKeys, int localMaxKeys, FailureMode failureMode,
                         boolean denyCache) {
            super(keyPrefix, compactKeys, localMaxKeys, failureMode, denyCache);
        }

        /** Every guard value its key's default, for a store given in code. */
        private static final RedisSettings IN_CODE = RedisSettings.builder(new RedisSettings.Standalone("store-in-code:0", 0)).build();

        @Override
        public RedisSettings guard() {
            return IN_CODE;
        }

        @Override
        InMemory copy(String prefix, boolean compact, int maxKeys, FailureMode mode, boolean deny) {
            return new InMemory(prefix, compact, maxKeys, mode, deny);
        }

        @Override
        public String toString() {
            return "in-memory store (at most " + localMaxKeys() + " keys)";
        }
    }

    /** Buckets in Redis, reached as {@link #redis()} says (read once, at the start). */
    public static final class OnRedis extends StoreSettings {
        private final RedisSettings redis;

        private OnRedis(RedisSettings redis, String keyPrefix, boolean compactKeys, int localMaxKeys,
                        FailureMode failureMode, boolean denyCache) {
            super(keyPrefix, compactKeys, localMaxKeys, failureMode, denyCache);
            this.redis = Objects.requireNonNull(redis, "redis");
        }

        /** How to reach Redis. */
        public RedisSettings redis() {
            return redis;
        }

        /** This store reached as {@code other} says. */
        public OnRedis withRedis(RedisSettings other) {
            return new OnRedis(other, keyPrefix(), compactKeys(), localMaxKeys(), failureMode(), denyCache());
        }

        @Override
        public RedisSettings guard() {
            return redis;
        }

        @Override
        OnRedis copy(String prefix, boolean compact, int maxKeys, FailureMode mode, boolean deny) {
            return new OnRedis(redis, prefix, compact, maxKeys, mode, deny);
        }

        @Override
        public String toString() {
            return redis.describe() + " (failure mode " + failureMode() + ")";
        }
    }
}
