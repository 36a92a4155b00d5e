package dev.tollgate.internal;

import dev.tollgate.config.RedisSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/** {@link RedisPort} over a Jedis 8 client. Thread-safe: Jedis clients pool their connections. */
public final class JedisPort implements RedisPort {

    private final UnifiedJedis jedis;
    private final String description;

    JedisPort(UnifiedJedis jedis, String description) {
        this.jedis = jedis;
        this.description = description;
    }

    /** A pooled client for a standalone Redis, with every wait bounded by the settings' timeout. */
    public static JedisPort standalone(RedisSettings settings) {
        int timeoutMillis = (int) Math.max(1, settings.timeout().toMillis());
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(timeoutMillis)
                .socketTimeoutMillis(timeoutMillis)
                .clientName("tollgate")
                .database(settings.database())
                .ssl(settings.tls());
        if (settings.user() != null) {
            config.user(settings.user());
        }
        if (settings.password() != null) {
            config.password(settings.password());
        }
        RedisClient client = RedisClient.builder()
                .hostAndPort(new HostAndPort(settings.host(), settings.port()))
                .clientConfig(config.build())
                .poolConfig(poolConfig(settings.poolSize(), settings.timeout()))
                .build();
        return new JedisPort(client, settings.describe());
    }

    static ConnectionPoolConfig poolConfig(int size, Duration maxWait) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(size);
        pool.setMaxIdle(size);
        pool.setMinIdle(0);
        pool.setBlockWhenExhausted(true);
        pool.setMaxWait(maxWait);
        pool.setTestOnBorrow(false);
        pool.setTestWhileIdle(false);
        // No evictor thread: nothing keeps running (or pins the web application's class loader)
        // if a limiter is never closed. Broken connections are found when used.
        pool.setTimeBetweenEvictionRuns(Duration.ofMillis(-1));
        pool.setJmxEnabled(false);
        return pool;
    }

    @Override
    public List<Long> evalsha(String sha1, List<String> keys, List<String> args) {
        try {
            return longs(jedis.evalsha(sha1, keys, args));
        } catch (JedisNoScriptException e) {
            throw new NoScriptException(e);
        } catch (JedisDataException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT")) {
                throw new NoScriptException(e);
            }
            throw e;
        }
    }

    @Override
    public List<Long> eval(String script, List<String> keys, List<String> args) {
        return longs(jedis.eval(script, keys, args));
    }

    @Override
    public String scriptLoad(String script, String routingKey) {
        return jedis.scriptLoad(script, routingKey);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        jedis.close();
    }

    private static List<Long> longs(Object reply) {
        if (!(reply instanceof List<?> list)) {
            throw new IllegalStateException("expected an array reply, got " + reply);
        }
        List<Long> out = new ArrayList<>(list.size());
        for (Object o : list) {
            out.add((Long) o);
        }
        return out;
    }
}
