package dev.tollgate.bench;

import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * One connection set-up for every contender, so that they differ only in what they send: a Jedis 8
 * {@link RedisClient} with a pool, built exactly as Tollgate builds its own for a standalone Redis (same timeouts, same pool settings), with the pool size and timeout the
 * benchmark passes to Tollgate's configuration too.
 */
public final class Clients {

    /** The limit of every contender: 10 per second, burst 20. */
    public static final String LIMIT = "10/s burst 20";
    public static final long CAPACITY = 20;
    public static final long REFILL_PER_SECOND = 10;

    /** System properties that carry the set-up into JMH's forked JVMs. */
    public static final String PORT = "tollgate.bench.redis.port";
    public static final String POOL = "tollgate.bench.pool";
    public static final String TIMEOUT_MS = "tollgate.bench.timeout.ms";
    public static final String OUT = "tollgate.bench.out";

    private Clients() {
    }

    public static int port() {
        String p = System.getProperty(PORT);
        if (p == null) {
            throw new IllegalStateException("-D" + PORT + " is not set: run the benchmarks through"
                    + " dev.tollgate.bench.Main, which starts Redis and passes its port");
        }
        return Integer.parseInt(p);
    }

    public static int poolSize() {
        return Integer.getInteger(POOL, 16);
    }

    public static Duration timeout() {
        return Duration.ofMillis(Long.getLong(TIMEOUT_MS, 10_000));
    }

    /** A pooled client configured as Tollgate configures its own. */
    public static RedisClient redisClient(String clientName) {
        int timeoutMillis = (int) timeout().toMillis();
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .clientName(clientName)
                .build();
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(poolSize());
        pool.setMaxIdle(poolSize());
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(timeout());
        pool.setTestOnBorrow(false);
        pool.setTestWhileIdle(false);
        pool.setJmxEnabled(false);
        return RedisClient.builder()
                .hostAndPort(new HostAndPort("127.0.0.1", port()))
                .clientConfig(config)
                .poolConfig(pool)
                .build();
    }

    /**
     * Tollgate's configuration for the benchmark: one policy {@code default}, {@value #LIMIT} keyed
     * by IP; over Redis when {@code redis} is true, else in memory.
     */
    public static TollgateConfig config(boolean redis) {
        return config(redis, true);
    }

    /** As {@link #config(boolean)}, with auto-pipelining on or off. */
    public static TollgateConfig config(boolean redis, boolean pipelining) {
        return config(redis, pipelining, LIMIT);
    }

    /** As {@link #config(boolean, boolean)}, with another limit. */
    public static TollgateConfig config(boolean redis, boolean pipelining, String limit) {
        return config(redis, pipelining, limit, Map.of());
    }

    /** As {@link #config(boolean, boolean, String)}, with further keys and values (which win). */
    public static TollgateConfig config(boolean redis, boolean pipelining, String limit, Map<String, String> more) {
        Map<String, String> values = new HashMap<>();
        values.put("tollgate.policy.default.limits", limit);
        values.put("tollgate.policy.default.key", "ip");
        values.put("tollgate.local.max-keys", "100000");
        if (redis) {
            values.put("tollgate.redis.uri", "redis://127.0.0.1:" + port());
            values.put("tollgate.redis.pool-size", Integer.toString(poolSize()));
            values.put("tollgate.redis.timeout", timeout().toMillis() + "ms");
            values.put("tollgate.redis.auto-pipelining", Boolean.toString(pipelining));
        }
        values.putAll(more);
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("benchmark", values)),
                Clients.class.getClassLoader());
    }

    /**
     * Tollgate's configuration of {@code values} alone, e.g. for a topology other than one
     * standalone Redis; through the same public loading as {@link #config(boolean)}.
     */
    public static TollgateConfig config(Map<String, String> values) {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("benchmark", values)), Clients.class.getClassLoader());
    }

    public static RateLimiter limiter(boolean redis) {
        return RateLimiter.create(config(redis));
    }

    /** Tollgate over Redis with every call on a connection of its own, as before auto-pipelining. */
    public static RateLimiter unpipelinedLimiter() {
        return RateLimiter.create(config(true, false));
    }

    /** The client address of key number {@code i}: 10.x.y.z, distinct for i below 2^24. */
    public static String address(int i) {
        return "10." + ((i >> 16) & 255) + "." + ((i >> 8) & 255) + "." + (i & 255);
    }

    /** A GET /api/hello request from an address, as an adapter would present it. */
    public static RequestView request(String address) {
        return new Request(address);
    }

    private record Request(String remoteAddress) implements RequestView {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/api/hello";
        }

        @Override
        public String route() {
            return null;
        }

        @Override
        public String header(String name) {
            return null;
        }

        @Override
        public List<String> headers(String name) {
            return List.of();
        }

        @Override
        public String principal() {
            return null;
        }

        @Override
        public boolean userInRole(String role) {
            return false;
        }
    }
}
