package dev.tollgate.internal;

import dev.tollgate.config.RedisSettings;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * {@link RedisPort} over a Jedis 8 client: standalone, Cluster or Sentinel. Thread-safe: Jedis
 * clients pool their connections.
 *
 * <p>The time budget {@code t} of a call is split so that no call waits longer than {@code t}
 * for Redis, whatever fails: at most {@code t/4} waiting for a pooled connection, {@code t/4}
 * connecting, {@code t/2} for the answer. A call that fails on a connection Redis closed (a
 * restart) is tried once more on a fresh connection, within the same budget.
 *
 * <p>Outside a cluster, concurrent script calls are pipelined ({@code tollgate.redis.auto-pipelining}):
 * see {@link AutoPipeline}. A caller alone still makes one plain round trip.
 */
public final class JedisPort implements RedisPort {

    /** Most commands sent in one write when calls are pipelined. */
    static final int MAX_BATCH = 128;

    /** A script call as the pipeline queues it. */
    private record Script(boolean bySha, byte[] script, List<byte[]> keys, List<byte[]> args) {
    }

    private final UnifiedJedis jedis;
    private final String description;
    private final boolean clustered;
    private final Runnable dropIdleConnections;
    private final long timeoutNanos;
    private final long retryWithinNanos;
    /** Concurrent script calls sent together; null when each call has a connection of its own. */
    private final AutoPipeline<Script> pipeline;

    JedisPort(UnifiedJedis jedis, String description, boolean clustered, Runnable dropIdleConnections, Duration timeout,
              int pipelineLeaders) {
        this.jedis = jedis;
        this.description = description;
        this.clustered = clustered;
        this.dropIdleConnections = dropIdleConnections;
        this.timeoutNanos = timeout.toNanos();
        this.retryWithinNanos = timeout.toNanos() / 4;
        this.pipeline = pipelineLeaders > 0 ? new AutoPipeline<>(pipelineLeaders, MAX_BATCH, 0, this::send, System::nanoTime)
                : null;
    }

    /** A client for the configured topology. It connects lazily: nothing fails here if Redis is down. */
    public static JedisPort create(RedisSettings settings) {
        Duration t = settings.timeout();
        int borrow = millis(t, 4);
        int connect = millis(t, 4);
        int read = millis(t, 2);
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(connect)
                .socketTimeoutMillis(read)
                .clientName("tollgate")
                .ssl(settings.tls());
        if (settings.user() != null) {
            config.user(settings.user());
        }
        if (settings.password() != null) {
            config.password(settings.password());
        }
        ConnectionPoolConfig pool = poolConfig(settings.poolSize(), Duration.ofMillis(borrow));
        switch (settings.topology()) {
            case CLUSTER: {
                RedisClusterClient client = RedisClusterClient.builder()
                        .nodes(hosts(settings.nodes()))
                        .clientConfig(config.build())
                        .poolConfig(pool)
                        .maxAttempts(2)
                        .maxTotalRetriesDuration(t)
                        .build();
                // no pipelining across a cluster: each call goes to the node of its slot
                return new JedisPort(client, settings.describe(), true, () -> { }, t, 0);
            }
            case SENTINEL: {
                DefaultJedisClientConfig.Builder sentinelConfig = DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(connect).socketTimeoutMillis(read).ssl(settings.tls());
                RedisSentinelClient client = RedisSentinelClient.builder()
                        .masterName(settings.masterName())
                        .sentinels(hosts(settings.nodes()))
                        .clientConfig(config.database(settings.database()).build())
                        .sentinelClientConfig(sentinelConfig.build())
                        .poolConfig(pool)
                        .build();
                return new JedisPort(client, settings.describe(), false,
                        () -> client.getPrimaryNodesConnectionMap().values().forEach(p -> p.clear()), t, leaders(settings));
            }
            default: {
                RedisClient client = RedisClient.builder()
                        .hostAndPort(hosts(settings.nodes()).iterator().next())
                        .clientConfig(config.database(settings.database()).build())
                        .poolConfig(pool)
                        .build();
                return new JedisPort(client, settings.describe(), false, () -> client.getPool().clear(), t, leaders(settings));
            }
        }
    }

    /** A standalone client, as {@link #create} makes it. */
    public static JedisPort standalone(RedisSettings settings) {
        return create(settings);
    }

    /**
     * Batches in flight at once. Redis runs one command at a time, so two batches keep it busy (one
     * being run while the other travels or is read), and fewer leaders make larger batches: on the
     * benchmark machine, 64 threads made 15-20k decisions/s with one to three leaders against 10-14k
     * with sixteen (one per pooled connection) and 9-11k without pipelining.
     */
    static final int PIPELINE_LEADERS = 2;

    private static int leaders(RedisSettings settings) {
        return settings.autoPipelining() ? Math.min(PIPELINE_LEADERS, settings.poolSize()) : 0;
    }

    private static int millis(Duration budget, int share) {
        return (int) Math.max(1, budget.toMillis() / share);
    }

    static Set<HostAndPort> hosts(List<String> nodes) {
        Set<HostAndPort> out = new LinkedHashSet<>();
        for (String n : nodes) {
            int colon = n.lastIndexOf(':');
            String host = n.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            out.add(new HostAndPort(host, Integer.parseInt(n.substring(colon + 1))));
        }
        return out;
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

    /** Whether keys of one call must share a hash slot. */
    @Override
    public boolean clustered() {
        return clustered;
    }

    @Override
    public int slot(String key) {
        return JedisClusterCRC16.getSlot(key);
    }

    @Override
    public long[] evalsha(byte[] sha1, List<byte[]> keys, List<byte[]> args) {
        return call(() -> {
            try {
                return longs(pipeline != null ? pipeline.call(new Script(true, sha1, keys, args), System.nanoTime() + timeoutNanos)
                        : jedis.evalsha(sha1, keys, args));
            } catch (JedisNoScriptException e) {
                throw new NoScriptException(e);
            } catch (JedisDataException e) {
                if (e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT")) {
                    throw new NoScriptException(e);
                }
                throw e;
            }
        });
    }

    @Override
    public long[] eval(byte[] script, List<byte[]> keys, List<byte[]> args) {
        return call(() -> longs(pipeline != null ? pipeline.call(new Script(false, script, keys, args), System.nanoTime() + timeoutNanos)
                : jedis.eval(script, keys, args)));
    }

    /**
     * One batch on one pooled connection: every command written, one flush, every reply read.
     * A command's own error (NOSCRIPT, a script error) is its reply; a connection failure fails
     * the whole batch.
     */
    private List<Object> send(List<Script> batch, long deadlineNanos) {
        try (AbstractPipeline p = jedis.pipelined()) {
            List<Response<Object>> responses = new ArrayList<>(batch.size());
            for (Script s : batch) {
                responses.add(s.bySha() ? p.evalsha(s.script(), s.keys(), s.args()) : p.eval(s.script(), s.keys(), s.args()));
            }
            p.sync();
            List<Object> replies = new ArrayList<>(batch.size());
            for (Response<Object> r : responses) {
                try {
                    replies.add(r.get());
                } catch (JedisDataException e) {
                    replies.add(e);
                }
            }
            return replies;
        }
    }

    @Override
    public String scriptLoad(String script, String routingKey) {
        return call(() -> jedis.scriptLoad(script, routingKey));
    }

    /**
     * Runs a call, and once more if it failed quickly on a connection that Redis had closed:
     * after a restart every pooled connection is dead, and the first request on each must not
     * be the one that pays for it.
     */
    private <T> T call(Supplier<T> action) {
        long start = System.nanoTime();
        try {
            return action.get();
        } catch (JedisConnectionException e) {
            if (!staleConnection(e) || System.nanoTime() - start > retryWithinNanos) {
                throw busyOr(e);
            }
            dropIdleConnections.run();
            try {
                return action.get();
            } catch (JedisException again) {
                throw busyOr(again);
            }
        } catch (JedisException e) {
            throw busyOr(e);
        }
    }

    /** A pool that had no free connection in time is this node's congestion, not Redis failing. */
    private static RuntimeException busyOr(JedisException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.util.NoSuchElementException) {
                return new BusyException(e);
            }
        }
        return e;
    }

    /** A failure on an established connection (reset, closed), not a timeout or a refusal. */
    private static boolean staleConnection(JedisConnectionException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException || t instanceof ConnectException) {
                return false;
            }
        }
        String m = String.valueOf(e.getMessage());
        return !m.contains("Could not get a resource") && !m.contains("Failed to connect");
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        jedis.close();
    }

    private static long[] longs(Object reply) {
        if (!(reply instanceof List<?> list)) {
            throw new IllegalStateException("expected an array reply, got " + reply);
        }
        long[] out = new long[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (Long) list.get(i);
        }
        return out;
    }
}
