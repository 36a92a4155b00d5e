package dev.tollgate.internal.redis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClusterInfoCache;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.Pool;

/**
 * The masters of a Redis Cluster as Jedis' slot cache knows them, each with what {@link JedisPort}
 * keeps for it (its connection pool and its {@link AutoPipeline}): a call goes to the master of its
 * keys' slot, so calls for one master leave together and calls for different masters never wait for
 * each other.
 *
 * <p>A call that finds the cache wrong (a {@code MOVED}, a master gone) asks for it to be renewed
 * ({@link #renewSoon}): one renewal at a time, at most one per {@link #RENEW_GAP}, on a thread of
 * its own, so that no caller spends its time budget asking the cluster for its topology. A renewal
 * that drops or replaces a master's pool drops what was kept for it; a call already holding it
 * fails on the closed pool like on a master gone.
 *
 * <p>Thread-safe.
 *
 * @param <N> what is kept per master
 */
final class ClusterNodes<N> {

    /** The least time between two renewals: a master down fails every call to it until its replica takes over. */
    static final Duration RENEW_GAP = Duration.ofMillis(100);

    private record Kept<N>(Pool<Connection> pool, N node) {
    }

    private final ClusterConnectionProvider provider;
    private final Function<Pool<Connection>, N> make;
    private final Map<HostAndPort, Kept<N>> kept = new ConcurrentHashMap<>();
    private final AtomicBoolean renewing = new AtomicBoolean();
    private volatile long lastRenewalNanos = System.nanoTime() - RENEW_GAP.toNanos();
    private volatile Thread renewal;
    private volatile boolean closed;

    /**
     * @param make what to keep for a master, given its pool (called once per master and pool)
     */
    ClusterNodes(ClusterConnectionProvider provider, Function<Pool<Connection>, N> make) {
        this.provider = provider;
        this.make = make;
    }

    /** What is kept for the master of {@code slot}; {@code null} (and a renewal asked for) when the cache knows none. */
    N forSlot(int slot) {
        HostAndPort master = provider.getNode(slot);
        N node = master == null ? null : forMaster(master);
        if (node == null) {
            renewSoon();
        }
        return node;
    }

    /** What is kept for the master at {@code address}; {@code null} when the cache does not know it. */
    N forMaster(HostAndPort address) {
        Kept<N> k = kept.get(address);
        if (k != null) {
            return k.node();
        }
        ConnectionPool pool = provider.getNodes().get(JedisClusterInfoCache.getNodeKey(address));
        if (pool == null) {
            return null;
        }
        return kept.computeIfAbsent(address, a -> new Kept<>(pool, make.apply(pool))).node();
    }

    /** Asks for the slot cache to be renewed, unless a renewal runs or ran less than {@link #RENEW_GAP} ago. */
    void renewSoon() {
        if (closed || System.nanoTime() - lastRenewalNanos < RENEW_GAP.toNanos() || !renewing.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(this::renew, "tollgate-redis-slots");
        t.setDaemon(true);
        renewal = t;
        t.start();
    }

    private void renew() {
        try {
            provider.renewSlotCache();
            Map<String, ConnectionPool> now = provider.getNodes();
            kept.entrySet().removeIf(e -> now.get(JedisClusterInfoCache.getNodeKey(e.getKey())) != e.getValue().pool());
        } catch (RuntimeException e) {
            // no node answered: the next call that fails asks again
        } finally {
            lastRenewalNanos = System.nanoTime();
            renewing.set(false);
        }
    }

    /** Masters with something kept (for tests). */
    int masters() {
        return kept.size();
    }

    /**
     * Stops renewals and waits for one in flight at most {@code bound}: each node it asks answers
     * or times out within Jedis' connect and read timeouts.
     */
    void close(Duration bound) {
        closed = true;
        Thread t = renewal;
        if (t != null) {
            try {
                t.join(TimeUnit.NANOSECONDS.toMillis(bound.toNanos()) + 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
