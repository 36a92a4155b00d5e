package dev.tollgate.faults;

import dev.tollgate.Decision;
import dev.tollgate.NodeClocks;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One limiter node: a {@link RateLimiter} of its own (configuration, Redis connections, memory),
 * reaching Redis through its own {@link FaultProxy} (or the Cluster directly). Its configuration
 * is a map the nemesis changes; {@link #reload()} reads it again, as {@code reload-interval} or JMX
 * would. {@link #kill()} drops the limiter without releasing anything, as a crashed process would.
 * Thread-safe.
 */
final class Node implements AutoCloseable {

    /** The API policy's limits, one list per variant; the rolling changes move nodes between them. */
    static final List<List<Rate>> API_VARIANTS = List.of(
            List.of(Rate.perSecond(5, 10)),
            List.of(Rate.perSecond(5, 10), Rate.perMinute(40)),
            List.of(Rate.perSecond(8, 6)),
            List.of(Rate.perMinute(40), Rate.perSecond(5, 10)));
    /**
     * A calendar quota: at most {@code count} per hour of {@code zone}, and when {@code perDay > 0}
     * at most that many per day of it too, the day's limit written first when {@code dayFirst}.
     */
    record Quota(int count, String zone, int perDay, boolean dayFirst) {
        Quota(int count, String zone) {
            this(count, zone, 0, false);
        }

        /** As Tollgate's configuration writes it. */
        String limits() {
            String hour = count + "/hour calendar";
            if (perDay == 0) {
                return hour;
            }
            String day = perDay + "/day calendar";
            return dayFirst ? day + "; " + hour : hour + "; " + day;
        }

        @Override
        public String toString() {
            return limits() + " in " + zone;
        }
    }

    /**
     * The quota policy's limits and zone, one per variant: a zone change moves the hour's boundaries
     * (by 30 or 45 minutes); a reload adds a day's limit, removes it, or puts it before the hour
     * (issue 28: a stored state is matched by its window, not by its position).
     */
    static final List<Quota> QUOTA_VARIANTS = List.of(new Quota(12, "UTC"), new Quota(12, "Asia/Kolkata"),
            new Quota(8, "Pacific/Chatham"), new Quota(12, "UTC", 30, false), new Quota(10, "UTC", 30, true));
    /** The slots policy's concurrency, one per variant. */
    static final List<Integer> SLOT_VARIANTS = List.of(2, 1, 3);
    static final long LEASE_MICROS = 5_000_000;

    final int id;
    final FaultProxy proxy;
    /** How far this node's clock is off the system's, in µs (negative: behind); Redis' {@code TIME} is the system's. */
    final long clockOffsetMicros;
    private final Map<String, String> config = new ConcurrentHashMap<>();
    private volatile RateLimiter limiter;
    /** Bumped at each kill: a slot taken before it is never released (the process that held it is gone). */
    private volatile int epoch;
    private volatile boolean dead;

    Node(int id, FaultProxy proxy, Map<String, String> redis, String failureMode) {
        this(id, proxy, redis, failureMode, Map.of());
    }

    /** @param extra settings over the harness' own (a scenario's policies) */
    Node(int id, FaultProxy proxy, Map<String, String> redis, String failureMode, Map<String, String> extra) {
        this(id, proxy, redis, failureMode, extra, 0);
    }

    /** @param clockOffsetMicros how far the node's clock is off the system's (and Redis'): negative, behind */
    Node(int id, FaultProxy proxy, Map<String, String> redis, String failureMode, Map<String, String> extra,
         long clockOffsetMicros) {
        this.id = id;
        this.proxy = proxy;
        this.clockOffsetMicros = clockOffsetMicros;
        config.put("tollgate.redis.timeout", "150ms");
        config.put("tollgate.redis.failure-mode", failureMode);
        config.put("tollgate.redis.circuit.open-for", "300ms");
        config.put("tollgate.redis.key-prefix", "faults:");
        config.put("tollgate.metrics", "none");
        config.put("tollgate.jmx", "false");
        config.put("tollgate.policies", "api,slots,quota");
        config.put("tollgate.policy.quota.key", "header:X-Api-Key");
        config.put("tollgate.policy.quota.match", "/quota/**");
        config.put("tollgate.policy.api.key", "header:X-Api-Key");
        config.put("tollgate.policy.api.match", "/api/**");
        config.put("tollgate.policy.slots.key", "header:X-Api-Key");
        config.put("tollgate.policy.slots.match", "/slots/**");
        config.put("tollgate.policy.slots.concurrency-lease", (LEASE_MICROS / 1000) + "ms");
        variants(0, 0, 0);
        config.putAll(redis);
        config.putAll(extra);
        limiter = NodeClocks.create(load(), "node-" + id, this::load, clockOffsetMicros);
    }

    private TollgateConfig load() {
        return TollgateConfig.load(ConfigLookup.of(ConfigSources.of("node " + id, new HashMap<>(config))), null);
    }

    /** Sets the policies' variants in the node's configuration; in force at the next {@link #reload()}. */
    void variants(int api, int slots, int quota) {
        config.put("tollgate.policy.api.limits", Rate.text(API_VARIANTS.get(api)));
        config.put("tollgate.policy.slots.concurrency", Integer.toString(SLOT_VARIANTS.get(slots)));
        config.put("tollgate.policy.quota.limits", QUOTA_VARIANTS.get(quota).limits());
        config.put("tollgate.policy.quota.zone", QUOTA_VARIANTS.get(quota).zone());
    }

    /** Sets one key of the node's configuration; in force at the next {@link #reload()}. */
    void set(String key, String value) {
        config.put(key, value);
    }

    void reload() {
        RateLimiter l = limiter;
        if (!dead) {
            l.reload();
        }
    }

    String keyPrefix() {
        return config.get("tollgate.redis.key-prefix");
    }

    int epoch() {
        return epoch;
    }

    boolean dead() {
        return dead;
    }

    /** The decision, or an exception when the node is dead or dying. */
    Decision check(RequestView request) {
        if (dead) {
            throw new IllegalStateException("node " + id + " is dead");
        }
        return limiter.check(request);
    }

    /**
     * Waits until this node's decisions come from Redis (its first connection may take longer than
     * the budget on a loaded machine, and the circuit then opens for a while): asks for a client of
     * its own until Redis answers, at most 20 s.
     */
    void awaitRedis() {
        long until = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < until) {
            Decision d = check(dev.tollgate.testing.TestRequest.get("/api/ready").header("X-Api-Key", "sk_ready_" + id));
            if (d.source() == Decision.Source.REDIS) {
                return;
            }
            Workload.sleepMicros(50_000);
        }
        throw new AssertionError("node " + id + " never heard Redis in 20 s");
    }

    /** Releases a slot, unless the node died since it was taken. */
    void release(Decision d, int takenInEpoch) {
        if (!dead && takenInEpoch == epoch) {
            d.permit().release();
        }
    }

    /** A crash: nothing is released, the slots this node holds stay taken in Redis until their lease ends. */
    void kill() {
        dead = true;
        epoch++;
        limiter.close();
    }

    /** Starts again with the configuration it has now. */
    void restart() {
        limiter = NodeClocks.create(load(), "node-" + id, this::load, clockOffsetMicros);
        dead = false;
    }

    @Override
    public void close() {
        if (!dead) {
            limiter.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }
}
