package dev.tollgate;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.FailureMode;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.BucketKeys;
import dev.tollgate.internal.Circuit;
import dev.tollgate.internal.ClientRequest;
import dev.tollgate.internal.DenialLog;
import dev.tollgate.internal.DenyCache;
import dev.tollgate.internal.HttpContract;
import dev.tollgate.internal.JedisPort;
import dev.tollgate.internal.LocalStore;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.Metrics;
import dev.tollgate.internal.MicroClock;
import dev.tollgate.internal.RateLimiterMXBean;
import dev.tollgate.internal.RedisPort;
import dev.tollgate.internal.RedisStore;
import dev.tollgate.spi.BucketRequest;
import dev.tollgate.spi.BucketStore;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.ObjectName;

/**
 * The decision engine: finds the policies that cover a request, resolves each one's client key,
 * checks all their limits in one atomic store call, and turns the result into a {@link Decision}
 * and an {@link HttpAnswer}.
 *
 * <p>{@link #check} never throws: a store failure is handled by the configured
 * {@link FailureMode}, and anything unexpected lets the request through and is logged.
 *
 * <p>The configuration can change while it runs ({@link #reload()}, {@code tollgate.reload-interval},
 * or the JMX operation); the Redis connection cannot.
 *
 * <p>Thread-safe; create one per filter and {@link #close()} it when the filter is destroyed.
 */
public final class RateLimiter implements AutoCloseable {

    private static final Logger REDIS_LOG = Logger.getLogger("dev.tollgate.redis");
    private static final Logger LOG = Logger.getLogger("dev.tollgate");
    private static final Logger CONFIG_LOG = Logger.getLogger("dev.tollgate.config");
    private static final Set<RateLimiter> LIVE = ConcurrentHashMap.newKeySet();

    private volatile TollgateConfig config;
    private final String name;
    private final BucketStore store;
    private final BucketStore fallback;
    private final DenialLog denials = new DenialLog();
    private final Circuit circuit;
    private final Metrics metrics;
    private final LongAdder redisCalls = new LongAdder();
    private final LongAdder redisFailures = new LongAdder();
    private final LongAdder redisBusy = new LongAdder();
    private final DenyCache denyCache;
    private volatile String lastFailure;
    private final Supplier<TollgateConfig> reloader;
    /** Policies and costs named outside the configuration ({@code @RateLimited}), kept valid across reloads. */
    private final Set<Requirement> requirements = ConcurrentHashMap.newKeySet();
    private ScheduledExecutorService reloading;
    private ObjectName mbean;

    RateLimiter(TollgateConfig config, BucketStore store, BucketStore fallback) {
        this(config, store, fallback, System::nanoTime, null, "test", null);
    }

    /** With a clock for the circuit, for tests. */
    RateLimiter(TollgateConfig config, BucketStore store, BucketStore fallback, LongSupplier nanoTime) {
        this(config, store, fallback, nanoTime, null, "test", null);
    }

    /**
     * @param metrics  where measurements go; {@code null} for what {@code tollgate.metrics} says
     * @param reloader reads the configuration again, or {@code null} when it cannot change
     */
    RateLimiter(TollgateConfig config, BucketStore store, BucketStore fallback, LongSupplier nanoTime,
                Metrics metrics, String name, Supplier<TollgateConfig> reloader) {
        this.config = config;
        this.name = name;
        this.store = store;
        this.fallback = fallback;
        this.reloader = reloader;
        RedisSettings redis = config.redis();
        this.circuit = fallback == null ? null : new Circuit(
                redis == null ? 3 : redis.circuitFailures(),
                redis == null ? Duration.ofSeconds(1) : redis.circuitOpenFor(),
                nanoTime, redis == null ? store.name() : redis.describe());
        this.denyCache = new DenyCache(config.localMaxKeys(), nanoTime);
        this.metrics = metrics != null ? metrics : Metrics.create(config.metrics(), name,
                () -> circuit == null ? 0 : circuit.stateCode(), () -> circuit == null ? 0 : circuit.downNanos());
    }

    /** {@link #create(TollgateConfig, String, Supplier)} for a configuration that never changes. */
    public static RateLimiter create(TollgateConfig config) {
        return create(config, "tollgate", null);
    }

    /**
     * Builds the engine and its stores: Redis when one is configured (with the in-memory store
     * as the fallback of {@code failure-mode=local}), else the in-memory store. An unreachable
     * Redis does not stop start-up: the failure mode applies until it answers.
     *
     * @param name     a name for logs, metrics, JMX and health (the filter's name)
     * @param reloader reads the configuration again for {@link #reload()}; {@code null} if it cannot change
     */
    public static RateLimiter create(TollgateConfig config, String name, Supplier<TollgateConfig> reloader) {
        LocalStore local = new LocalStore(config.localMaxKeys(), MicroClock.SYSTEM);
        RateLimiter limiter;
        if (config.redis() == null) {
            limiter = new RateLimiter(config, local, null, System::nanoTime, null, name, reloader);
            LOG.info(() -> Messages.STARTED + ": Tollgate '" + name + "' " + (config.enabled() ? "on" : "OFF")
                    + ", in-memory store, " + describe(config));
        } else {
            RedisStore redis = new RedisStore(JedisPort.create(config.redis()));
            limiter = new RateLimiter(config, redis, local, System::nanoTime, null, name, reloader);
            LOG.info(() -> Messages.STARTED + ": Tollgate '" + name + "' " + (config.enabled() ? "on" : "OFF") + ", store "
                    + config.redis().describe() + " (timeout " + config.redis().timeout().toMillis() + " ms, failure mode "
                    + config.failureMode().name().toLowerCase(Locale.ROOT) + "), " + describe(config));
            try {
                redis.load(BucketKeys.key(config.keyPrefix(), "load", "tollgate"));
            } catch (RuntimeException e) {
                limiter.circuit.open(e);
                limiter.lastFailure = e.toString();
                REDIS_LOG.warning(() -> Messages.REDIS_NOT_READY + ": " + config.redis().describe()
                        + " does not answer (" + e + "); the failure mode applies until it does");
            }
        }
        limiter.start();
        return limiter;
    }

    /** Registers with JMX and for health, and starts polling the configuration if asked to. */
    private void start() {
        LIVE.add(this);
        if (config.jmx()) {
            try {
                ObjectName on = new ObjectName("dev.tollgate:type=RateLimiter,name=" + ObjectName.quote(name));
                var server = ManagementFactory.getPlatformMBeanServer();
                if (!server.isRegistered(on)) {
                    server.registerMBean(new Management(), on);
                    mbean = on;
                }
            } catch (Exception | LinkageError e) {
                LOG.log(Level.FINE, "not registered with JMX", e);
            }
        }
        Duration every = config.reloadInterval();
        if (reloader != null && !every.isZero()) {
            reloading = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "tollgate-reload-" + name);
                t.setDaemon(true);
                return t;
            });
            reloading.scheduleWithFixedDelay(this::reloadQuietly, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (RuntimeException e) {
            // reload() logged it; the configuration in force stays
        }
    }

    /**
     * Reads the configuration again and, if it changed, puts it in force for the next request.
     * Buckets keep their state: a client keeps the time it owes (a larger burst or rate applies
     * at once, a smaller burst caps the debt); a policy whose number of limits changed starts
     * full. Redis connection settings are not changed by a reload.
     *
     * @return whether the configuration changed
     * @throws ConfigException when the new configuration is not valid; the old one stays in force
     */
    public synchronized boolean reload() {
        if (reloader == null) {
            return false;
        }
        TollgateConfig next;
        try {
            next = reloader.get();
        } catch (ConfigException e) {
            CONFIG_LOG.severe(() -> Messages.RELOAD_REFUSED + ": the configuration of '" + name
                    + "' did not change, because: " + e.getMessage());
            throw e;
        }
        TollgateConfig now = config;
        if (next.fingerprint().equals(now.fingerprint())) {
            return false;
        }
        List<String> problems = new ArrayList<>(0);
        for (Requirement r : requirements) {
            r.check(next, problems);
        }
        if (!problems.isEmpty()) {
            ConfigException e = new ConfigException(problems);
            CONFIG_LOG.severe(() -> Messages.RELOAD_REFUSED + ": the configuration of '" + name
                    + "' did not change, because: " + e.getMessage());
            throw e;
        }
        if (!Objects.equals(next.redis(), now.redis())) {
            CONFIG_LOG.warning(() -> Messages.RELOADED + ": Redis settings of '" + name
                    + "' changed; they take effect at the next start, the rest now");
            next = next.withRedis(now.redis());
        }
        config = next;
        denyCache.clear();
        TollgateConfig applied = next;
        CONFIG_LOG.info(() -> Messages.RELOADED + ": the configuration of '" + name + "' changed and is in force: "
                + describe(applied));
        return true;
    }

    /**
     * Declares that code outside the configuration decides under a policy at a fixed cost (JAX-RS
     * {@code @RateLimited(value, cost)}): the policy must exist, and a request of that cost must
     * be able to pass every limit of it (every plan's), now and after every reload. A reload that
     * would break it is refused, and the configuration in force stays: otherwise a burst made
     * smaller than the cost would refuse every such request forever while promising a
     * {@code Retry-After}, and a removed policy would leave the method unlimited.
     *
     * @param cost  tokens per request, or 0 for the policy's own {@code cost}
     * @param where what names it, for messages, e.g. {@code @RateLimited(cost = 5) on Api#export}
     * @throws ConfigException when the configuration in force does not allow it (nothing is kept then)
     */
    public void requirePolicy(String policy, long cost, String where) {
        Requirement r = new Requirement(policy, cost, where);
        List<String> problems = new ArrayList<>(0);
        r.check(config, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        requirements.add(r);
    }

    private record Requirement(String policy, long cost, String where) {
        void check(TollgateConfig c, List<String> problems) {
            Policy p = c.policy(policy).orElse(null);
            if (p == null) {
                problems.add(Messages.UNKNOWN_POLICY + ": " + where + " names the policy '" + policy
                        + "', which the configuration does not declare in " + dev.tollgate.config.ConfigKeys.POLICIES);
                return;
            }
            if (cost < 0) {
                problems.add(Messages.BAD_VALUE + ": " + where + ": a cost must be at least 1 (or 0 for the policy's own)");
                return;
            }
            for (List<Limit> set : p.allLimits().values()) {
                for (Limit l : set) {
                    try {
                        Policy.requireCostFits(l, cost);
                    } catch (IllegalArgumentException e) {
                        problems.add(Messages.BAD_VALUE + ": " + where + ", policy '" + p.name() + "' (tollgate.policy."
                                + p.name() + ".limits): " + e.getMessage());
                        return;
                    }
                }
            }
        }
    }

    static String describe(TollgateConfig config) {
        StringBuilder sb = new StringBuilder("key prefix '").append(config.keyPrefix()).append("'; ");
        if (!config.clientAddresses().trusted().isEmpty()) {
            sb.append("trusted proxies [").append(config.clientAddresses().trusted()).append("]; ");
        }
        if (!config.allowList().isEmpty()) {
            sb.append("allow-list [").append(config.allowList()).append("]; ");
        }
        if (!config.plans().isEmpty()) {
            sb.append("plans ").append(config.plans()).append("; ");
        }
        boolean first = true;
        for (Policy p : config.policies()) {
            if (!first) {
                sb.append("; ");
            }
            first = false;
            sb.append("policy ").append(p.name()).append(" [").append(p.mode().name().toLowerCase(Locale.ROOT))
                    .append(", limits ").append(p.limits()).append(", key ").append(p.keyText())
                    .append(", match ").append(p.match())
                    .append(p.cost() != Costs.ONE ? ", cost " + p.cost() : "")
                    .append(p.algorithm() != Algorithm.TOKEN_BUCKET ? ", sliding log" : "")
                    .append(p.planLimits().isEmpty() ? "" : ", plan limits " + p.planLimits())
                    .append(p.failureMode() == null ? "" : ", failure mode " + p.failureMode().name().toLowerCase(Locale.ROOT))
                    .append(']');
        }
        return sb.toString();
    }

    /** The configuration in force now. */
    public TollgateConfig config() {
        return config;
    }

    /** Decides for the policies whose {@code match} covers the request. */
    public Decision check(RequestView request) {
        TollgateConfig c = config;
        if (!c.enabled()) {
            return Decision.noPolicy();
        }
        return decide(c, request, matching(c, request), 0);
    }

    /** The configured policies whose {@code match} covers the request, in configured order. */
    public List<Policy> matching(RequestView request) {
        return matching(config, request);
    }

    private static List<Policy> matching(TollgateConfig c, RequestView request) {
        List<Policy> applicable = new ArrayList<>(2);
        String method = safe(request::method);
        String path = safe(request::path);
        for (Policy p : c.policies()) {
            if (p.match().matches(method, path)) {
                applicable.add(p);
            }
        }
        return applicable;
    }

    /** Decides for the given policies, whatever their {@code match} says (JAX-RS {@code @RateLimited}). */
    public Decision check(RequestView request, Collection<Policy> policies) {
        return check(request, policies, 0);
    }

    /**
     * Decides for the given policies, each request costing {@code cost} tokens instead of what
     * the policies' {@code cost} says ({@code 0}: what they say). A policy given by an older
     * configuration is decided with its current definition, if it still exists.
     */
    public Decision check(RequestView request, Collection<Policy> policies, long cost) {
        TollgateConfig c = config;
        if (!c.enabled()) {
            return Decision.noPolicy();
        }
        List<Policy> current = new ArrayList<>(policies.size());
        for (Policy p : policies) {
            c.policy(p.name()).ifPresent(current::add);
        }
        return decide(c, request, current, cost);
    }

    /** The headers, status and body for a decision. */
    public HttpAnswer answer(Decision decision) {
        TollgateConfig c = config;
        return HttpContract.answer(decision, c.headers(), c.retryAfterJitter().toSeconds());
    }

    private Decision decide(TollgateConfig c, RequestView original, List<Policy> policies, long costOverride) {
        if (policies.isEmpty()) {
            return Decision.noPolicy();
        }
        try {
            ClientRequest request = new ClientRequest(original, c.clientAddresses());
            if (!c.allowList().isEmpty() && c.allowList().allows(request, request.clientBytes())) {
                return Decision.noPolicy();
            }
            String plan = c.plans().select(request, request.fromTrustedProxy());
            String method = request.method();
            String path = request.path();
            List<BucketRequest> calls = new ArrayList<>(policies.size());
            List<String> clients = new ArrayList<>(policies.size());
            List<List<Limit>> limits = new ArrayList<>(policies.size());
            boolean cache = c.denyCache() && fallback != null;
            // The deny cache's question: every bucket of the request and its cost (see DenyCache).
            StringBuilder cacheKey = cache ? new StringBuilder() : null;
            for (Policy p : policies) {
                String client = BucketKeys.client(resolve(p, request));
                List<Limit> set = p.limitsFor(plan);
                clients.add(client);
                limits.add(set);
                long cost = costOverride > 0 ? costOverride : p.cost().of(method, path);
                String bucket = BucketKeys.bucketName(p, plan);
                String key = c.compactKeys() ? BucketKeys.compactKey(c.keyPrefix(), bucket, client, cluster(c), p.algorithm())
                        : BucketKeys.key(c.keyPrefix(), bucket, client, p.algorithm());
                if (cache) {
                    cacheKey.append(key).append('\u0000').append(cost).append('\u0000').append(p.mode()).append('\u0000');
                }
                calls.add(new BucketRequest(key, set, cost, p.mode() == Mode.ENFORCE, p.algorithm()));
            }
            String cached = cache ? cacheKey.toString() : null;
            List<PolicyResult> known = cache ? denyCache.refused(cached, c) : null;
            if (known != null) {
                long retry = 0;
                for (PolicyResult r : known) {
                    metrics.denyCacheHit(r.policy().name());
                    retry = Math.max(retry, r.retryAfterMicros());
                }
                Decision d = new Decision(Decision.Verdict.DENY, known, retry, Decision.Source.CACHE);
                metrics.decision(d, true);
                return d;
            }
            Decision d = acquire(c, policies, clients, limits, plan, calls);
            if (cache && d.verdict() == Decision.Verdict.DENY && d.source() == Decision.Source.REDIS) {
                denyCache.remember(cached, c, d.denying());
            }
            denials.record(d);
            metrics.decision(d, fallback != null);
            return d;
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(Level.SEVERE, Messages.INTERNAL_ERROR + ": unexpected error deciding a request; it goes through unlimited", e);
            return Decision.noPolicy();
        }
    }

    private static boolean cluster(TollgateConfig c) {
        return c.redis() != null && c.redis().topology() == RedisSettings.Topology.CLUSTER;
    }

    private static String resolve(Policy p, RequestView request) {
        String key;
        try {
            key = p.key().resolve(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, Messages.INTERNAL_ERROR + ": the key resolver of policy '" + p.name()
                    + "' failed; the peer address is used", e);
            key = null;
        }
        if (key == null) {
            key = "ip=" + request.clientAddress();
        }
        return key;
    }

    /** Calls made to Redis so far (each one decision; the circuit skips calls while it is open). */
    public long redisCalls() {
        return redisCalls.sum();
    }

    /** Calls to Redis that failed or timed out so far. */
    public long redisFailures() {
        return redisFailures.sum();
    }

    /**
     * Requests decided without Redis because no pooled connection was free in time (this node
     * busier than {@code tollgate.redis.pool-size}); they do not count against Redis' health.
     */
    public long redisBusy() {
        return redisBusy.sum();
    }

    /** The circuit around Redis, or {@code null} with the in-memory store alone. */
    public Circuit.State circuitState() {
        return circuit == null ? null : circuit.state();
    }

    /** Where this limiter stands, for readiness checks. */
    public Health health() {
        TollgateConfig c = config;
        if (circuit == null) {
            return new Health(name, true, "memory", "none", false, 0, 0, null);
        }
        Circuit.State s = circuit.state();
        boolean fallbackNow = s != Circuit.State.CLOSED;
        boolean closedPolicy = c.failureMode() == FailureMode.CLOSED;
        for (Policy p : c.policies()) {
            closedPolicy |= p.failureMode() == FailureMode.CLOSED;
        }
        return new Health(name, !(fallbackNow && closedPolicy), "redis", s.name().toLowerCase(Locale.ROOT), fallbackNow,
                redisCalls.sum(), redisFailures.sum(), lastFailure);
    }

    /** Every limiter open in this class loader (this application), for health checks. */
    public static List<RateLimiter> live() {
        return List.copyOf(LIVE);
    }

    private Decision acquire(TollgateConfig c, List<Policy> policies, List<String> clients, List<List<Limit>> limits,
                             String plan, List<BucketRequest> calls) {
        if (fallback == null) {
            return toDecision(policies, clients, limits, plan, store.acquire(calls), Decision.Source.LOCAL);
        }
        Circuit.Call call = circuit.tryCall();
        if (call != null) {
            try (call) { // closed without a verdict (busy, an Error), a probe is handed to the next request
                redisCalls.increment();
                long start = System.nanoTime();
                try {
                    long[] reply = store.acquire(calls);
                    metrics.redisCall(System.nanoTime() - start, true);
                    call.succeeded();
                    return toDecision(policies, clients, limits, plan, reply, Decision.Source.REDIS);
                } catch (RedisPort.BusyException e) {
                    redisBusy.increment(); // this node's pool was full: no verdict on Redis' health
                } catch (RuntimeException e) {
                    metrics.redisCall(System.nanoTime() - start, false);
                    redisFailures.increment();
                    lastFailure = e.toString();
                    call.failed(e);
                    REDIS_LOG.log(Level.FINE, "a Redis call failed", e);
                }
            }
        }
        return degraded(c, policies, clients, limits, plan, calls);
    }

    /**
     * The decision while Redis fails, each policy by its failure mode: {@code closed} policies
     * refuse the request with 503, {@code open} ones step aside (reported with no limits),
     * {@code local} ones decide with this node's memory.
     */
    private Decision degraded(TollgateConfig c, List<Policy> policies, List<String> clients, List<List<Limit>> limits,
                              String plan, List<BucketRequest> calls) {
        List<PolicyResult> closed = new ArrayList<>(0);
        List<PolicyResult> open = new ArrayList<>(0);
        List<Integer> local = new ArrayList<>(policies.size());
        for (int i = 0; i < policies.size(); i++) {
            Policy p = policies.get(i);
            FailureMode mode = p.failureMode() != null ? p.failureMode() : c.failureMode();
            if (mode == FailureMode.CLOSED && p.mode() == Mode.ENFORCE) {
                closed.add(new PolicyResult(p, clients.get(i), plan, List.of()));
            } else if (mode == FailureMode.LOCAL) {
                local.add(i);
            } else {
                open.add(new PolicyResult(p, clients.get(i), plan, List.of()));
            }
        }
        if (!closed.isEmpty()) {
            return new Decision(Decision.Verdict.UNAVAILABLE, closed, 1_000_000, Decision.Source.NONE);
        }
        if (local.isEmpty()) {
            return new Decision(Decision.Verdict.ALLOW, open, 0, Decision.Source.NONE);
        }
        List<Policy> p2 = new ArrayList<>(local.size());
        List<String> c2 = new ArrayList<>(local.size());
        List<List<Limit>> l2 = new ArrayList<>(local.size());
        List<BucketRequest> r2 = new ArrayList<>(local.size());
        for (int i : local) {
            p2.add(policies.get(i));
            c2.add(clients.get(i));
            l2.add(limits.get(i));
            r2.add(calls.get(i));
        }
        Decision d = toDecision(p2, c2, l2, plan, fallback.acquire(r2), Decision.Source.LOCAL);
        if (open.isEmpty()) {
            return d;
        }
        List<PolicyResult> all = new ArrayList<>(d.results());
        all.addAll(open);
        return new Decision(d.verdict(), all, d.retryAfterMicros(), d.source());
    }

    static Decision toDecision(List<Policy> policies, List<String> clients, List<List<Limit>> limits, String plan,
                               long[] reply, Decision.Source source) {
        List<PolicyResult> results = new ArrayList<>(policies.size());
        boolean denied = false;
        long retry = 0;
        int at = 0;
        for (int i = 0; i < policies.size(); i++) {
            Policy p = policies.get(i);
            List<LimitState> states = new ArrayList<>(limits.get(i).size());
            for (Limit l : limits.get(i)) {
                states.add(new LimitState(l, reply[at], reply[at + 1], reply[at + 2], reply[at + 3]));
                at += 4;
            }
            PolicyResult r = new PolicyResult(p, clients.get(i), plan, states);
            if (p.mode() == Mode.ENFORCE && r.denied()) {
                denied = true;
                retry = Math.max(retry, r.retryAfterMicros());
            }
            results.add(r);
        }
        return new Decision(denied ? Decision.Verdict.DENY : Decision.Verdict.ALLOW, results, retry, source);
    }

    private static String safe(Supplier<String> s) {
        try {
            return s.get();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public void close() {
        LIVE.remove(this);
        if (reloading != null) {
            reloading.shutdownNow();
        }
        if (mbean != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(mbean);
            } catch (Exception e) {
                LOG.log(Level.FINE, "not unregistered from JMX", e);
            }
        }
        metrics.close();
        store.close();
        if (fallback != null) {
            fallback.close();
        }
    }

    /** The JMX view. */
    private final class Management implements RateLimiterMXBean {
        @Override
        public String getCircuit() {
            return health().circuit();
        }

        @Override
        public boolean isReady() {
            return health().ready();
        }

        @Override
        public boolean isFallback() {
            return health().fallback();
        }

        @Override
        public long getRedisCalls() {
            return redisCalls.sum();
        }

        @Override
        public long getRedisFailures() {
            return redisFailures.sum();
        }

        @Override
        public String getLastFailure() {
            return lastFailure;
        }

        @Override
        public String getConfiguration() {
            return describe(config);
        }

        @Override
        public String reload() {
            try {
                return RateLimiter.this.reload() ? "changed and in force" : "unchanged";
            } catch (ConfigException e) {
                return "refused, the previous configuration stays: " + e.getMessage();
            }
        }
    }
}
