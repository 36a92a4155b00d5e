package dev.tollgate.internal.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * The masters of a Redis Cluster as Jedis' slot cache knows them, each with what {@link JedisPort}
 * keeps for it (its connection pool and its {@link AutoPipeline}): a call goes to the master of its
 * keys' slot, so calls for one master leave together and calls for different masters never wait for
 * each other.
 *
 * <p>A call that finds the cache wrong (a {@code MOVED}, a master gone) asks for it to be renewed
 * ({@link #renewSoon}): one renewal at a time, at most one per {@link #RENEW_GAP}, on a thread of
 * its own, so that no caller spends its time budget asking the cluster for its topology. What is
 * kept for a master lives as long as its pool: a renewal that drops or replaces a master's pool
 * drops it, and a call already holding it fails on the closed pool like on a master gone.
 *
 * <p>Thread-safe.
 *
 * @param <P> a master's connection pool
 * @param <N> what is kept per master
 */
final class ClusterNodes<P, N> {

    /** The least time between two renewals: a master down fails every call to it until its replica takes over. */
    static final Duration RENEW_GAP = Duration.ofMillis(100);

    /** The slot cache: Jedis' in production, a model in tests. Implementations must be thread-safe. */
    interface SlotCache<P> {
        /** The master serving {@code slot}, or {@code null} if none is known. */
        HostAndPort master(int slot);

        /** The pool of every node known, by address. */
        Map<HostAndPort, P> pools();

        /** Asks the cluster for its slots again (blocks while it asks). */
        void renew();

        /**
         * The pool of the node at {@code address}, made now (no connection is opened) if the cache
         * does not know it: a node a redirection names may own no slot yet (a master just added,
         * that a migration is filling), so no slot renewal has listed it.
         */
        default P join(HostAndPort address) {
            return pools().get(address);
        }
    }

    /**
     * Jedis' cluster connection provider, which can also make the pool of a node its slot cache
     * does not list yet (the cache does it itself when Jedis follows a redirection).
     */
    static final class Provider extends ClusterConnectionProvider {
        Provider(Set<HostAndPort> nodes, JedisClientConfig config, GenericObjectPoolConfig<Connection> pool) {
            super(nodes, config, pool);
        }

        ConnectionPool join(HostAndPort address) {
            return cache.setupNodeIfNotExist(address);
        }
    }

    private record Kept<P, N>(P pool, N node) {
    }

    private final SlotCache<P> cache;
    private final Function<P, N> make;
    private final Executor renewals;
    private final LongSupplier nanoTime;
    private final Map<HostAndPort, Kept<P, N>> kept = new ConcurrentHashMap<>();
    private final AtomicBoolean renewing = new AtomicBoolean();
    /** When the last renewal ended; guarded by {@code renewing} for writes. */
    private volatile long lastRenewalNanos;
    private volatile boolean closed;

    /**
     * @param make     what to keep for a master, given its pool (called once per master and pool)
     * @param renewals runs each renewal (a new daemon thread, in production)
     */
    ClusterNodes(SlotCache<P> cache, Function<P, N> make, Executor renewals, LongSupplier nanoTime) {
        this.cache = cache;
        this.make = make;
        this.renewals = renewals;
        this.nanoTime = nanoTime;
        this.lastRenewalNanos = nanoTime.getAsLong() - RENEW_GAP.toNanos();
    }

    /** Over the slot cache of a Jedis cluster client's connection provider, renewals on threads of their own. */
    static <N> ClusterNodes<ConnectionPool, N> of(Provider provider, Function<ConnectionPool, N> make) {
        SlotCache<ConnectionPool> cache = new SlotCache<>() {
            @Override
            public HostAndPort master(int slot) {
                return provider.getNode(slot);
            }

            @Override
            public Map<HostAndPort, ConnectionPool> pools() {
                Map<HostAndPort, ConnectionPool> out = new HashMap<>();
                provider.getNodes().forEach((address, pool) -> out.put(HostAndPort.from(address), pool));
                return out;
            }

            @Override
            public void renew() {
                provider.renewSlotCache();
            }

            @Override
            public ConnectionPool join(HostAndPort address) {
                return provider.join(address);
            }
        };
        return new ClusterNodes<>(cache, make, ConnectingPort.threadPerAttempt("tollgate-redis-slots"), System::nanoTime);
    }

    /** What is kept for the master of {@code slot}; {@code null} (and a renewal asked for) when the cache knows none. */
    N forSlot(int slot) {
        HostAndPort master = cache.master(slot);
        N node = master == null ? null : forMaster(master);
        if (node == null) {
            renewSoon();
        }
        return node;
    }

    /** What is kept for the master at {@code address}; {@code null} when the cache does not know it. */
    N forMaster(HostAndPort address) {
        Kept<P, N> k = kept.get(address);
        if (k != null) {
            return k.node();
        }
        P pool = cache.pools().get(address);
        if (pool == null) {
            return null;
        }
        return kept.computeIfAbsent(address, a -> new Kept<>(pool, make.apply(pool))).node();
    }

    /**
     * What is kept for the node a redirection ({@code MOVED}, {@code ASK}) names, its pool made if
     * the cache does not know it yet (a master added by a resharding owns no slot until the first
     * slot migrated to it is given to it); {@code null} if no pool can be had for it.
     */
    N forRedirection(HostAndPort address) {
        Kept<P, N> k = kept.get(address);
        if (k != null) {
            return k.node();
        }
        P pool = cache.join(address);
        if (pool == null) {
            return null;
        }
        return kept.computeIfAbsent(address, a -> new Kept<>(pool, make.apply(pool))).node();
    }

    /** Asks for the slot cache to be renewed, unless a renewal runs or ran less than {@link #RENEW_GAP} ago. */
    void renewSoon() {
        if (closed || nanoTime.getAsLong() - lastRenewalNanos < RENEW_GAP.toNanos() || !renewing.compareAndSet(false, true)) {
            return;
        }
        try {
            renewals.execute(this::renew);
        } catch (RuntimeException e) {
            renewing.set(false); // no thread to run it: a later failure asks again
        }
    }

    private void renew() {
        try {
            cache.renew();
            Map<HostAndPort, P> now = cache.pools();
            kept.entrySet().removeIf(e -> now.get(e.getKey()) != e.getValue().pool());
        } catch (RuntimeException e) {
            // no node answered: the next call that fails asks again
        } finally {
            lastRenewalNanos = nanoTime.getAsLong();
            synchronized (this) {
                renewing.set(false);
                notifyAll();
            }
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
        long until = System.nanoTime() + bound.toNanos();
        synchronized (this) {
            for (long left = bound.toNanos(); renewing.get() && left > 0; left = until - System.nanoTime()) {
                try {
                    wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
