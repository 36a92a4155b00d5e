package dev.tollgate;

import dev.tollgate.config.FailureMode;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.BucketKeys;
import dev.tollgate.internal.Circuit;
import dev.tollgate.internal.ClientRequest;
import dev.tollgate.internal.DenialLog;
import dev.tollgate.internal.HttpContract;
import dev.tollgate.internal.JedisPort;
import dev.tollgate.internal.LocalStore;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.MicroClock;
import dev.tollgate.internal.RedisStore;
import dev.tollgate.spi.BucketRequest;
import dev.tollgate.spi.BucketStore;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The decision engine: finds the policies that cover a request, resolves each one's client key,
 * checks all their limits in one atomic store call, and turns the result into a {@link Decision}
 * and an {@link HttpAnswer}.
 *
 * <p>{@link #check} never throws: a store failure is handled by the configured
 * {@link FailureMode}, and anything unexpected lets the request through and is logged.
 *
 * <p>Thread-safe; create one per filter and {@link #close()} it when the filter is destroyed.
 */
public final class RateLimiter implements AutoCloseable {

    private static final Logger REDIS_LOG = Logger.getLogger("dev.tollgate.redis");
    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private final TollgateConfig config;
    private final BucketStore store;
    private final BucketStore fallback;
    private final DenialLog denials = new DenialLog();
    private final Circuit circuit;
    private final LongAdder redisCalls = new LongAdder();
    private final LongAdder redisFailures = new LongAdder();

    RateLimiter(TollgateConfig config, BucketStore store, BucketStore fallback) {
        this(config, store, fallback, System::nanoTime);
    }

    /** With a clock for the circuit, for tests. */
    RateLimiter(TollgateConfig config, BucketStore store, BucketStore fallback, LongSupplier nanoTime) {
        this.config = config;
        this.store = store;
        this.fallback = fallback;
        RedisSettings redis = config.redis();
        this.circuit = fallback == null ? null : new Circuit(
                redis == null ? 3 : redis.circuitFailures(),
                redis == null ? Duration.ofSeconds(1) : redis.circuitOpenFor(),
                nanoTime, redis == null ? store.name() : redis.describe());
    }

    /**
     * Builds the engine and its stores: Redis when {@code tollgate.redis.uri} is set (with the
     * in-memory store as the fallback of {@code failure-mode=local}), else the in-memory store.
     * An unreachable Redis does not stop start-up: the failure mode applies until it answers.
     */
    public static RateLimiter create(TollgateConfig config) {
        LocalStore local = new LocalStore(config.localMaxKeys(), MicroClock.SYSTEM);
        if (config.redis() == null) {
            LOG.info(() -> Messages.STARTED + ": Tollgate " + (config.enabled() ? "on" : "OFF") + ", in-memory store, "
                    + describe(config));
            return new RateLimiter(config, local, null);
        }
        RedisStore redis = new RedisStore(JedisPort.create(config.redis()));
        RateLimiter limiter = new RateLimiter(config, redis, local);
        LOG.info(() -> Messages.STARTED + ": Tollgate " + (config.enabled() ? "on" : "OFF") + ", store "
                + config.redis().describe() + " (timeout " + config.redis().timeout().toMillis() + " ms, failure mode "
                + config.failureMode().name().toLowerCase(java.util.Locale.ROOT) + "), " + describe(config));
        try {
            redis.load(BucketKeys.key(config.keyPrefix(), "load", "tollgate"));
        } catch (RuntimeException e) {
            limiter.circuit.open(e);
            REDIS_LOG.warning(() -> Messages.REDIS_NOT_READY + ": " + config.redis().describe()
                    + " does not answer (" + e + "); the failure mode applies until it does");
        }
        return limiter;
    }

    private static String describe(TollgateConfig config) {
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
            sb.append("policy ").append(p.name()).append(" [").append(p.mode().name().toLowerCase(java.util.Locale.ROOT))
                    .append(", limits ").append(p.limits()).append(", key ").append(p.keyText())
                    .append(", match ").append(p.match())
                    .append(p.cost() != Costs.ONE ? ", cost " + p.cost() : "")
                    .append(p.algorithm() != Algorithm.TOKEN_BUCKET ? ", sliding log" : "")
                    .append(p.planLimits().isEmpty() ? "" : ", plan limits " + p.planLimits())
                    .append(p.failureMode() == null ? "" : ", failure mode " + p.failureMode().name().toLowerCase(java.util.Locale.ROOT))
                    .append(']');
        }
        return sb.toString();
    }

    public TollgateConfig config() {
        return config;
    }

    /** Decides for the policies whose {@code match} covers the request. */
    public Decision check(RequestView request) {
        if (!config.enabled()) {
            return Decision.noPolicy();
        }
        return decide(request, matching(request), 0);
    }

    /** The configured policies whose {@code match} covers the request, in configured order. */
    public List<Policy> matching(RequestView request) {
        List<Policy> applicable = new ArrayList<>(2);
        String method = safe(request::method);
        String path = safe(request::path);
        for (Policy p : config.policies()) {
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
     * the policies' {@code cost} says ({@code 0}: what they say).
     */
    public Decision check(RequestView request, Collection<Policy> policies, long cost) {
        if (!config.enabled()) {
            return Decision.noPolicy();
        }
        return decide(request, List.copyOf(policies), cost);
    }

    /** The headers, status and body for a decision. */
    public HttpAnswer answer(Decision decision) {
        return HttpContract.answer(decision, config.headers(), config.retryAfterJitter().toSeconds());
    }

    private Decision decide(RequestView original, List<Policy> policies, long costOverride) {
        if (policies.isEmpty()) {
            return Decision.noPolicy();
        }
        try {
            ClientRequest request = new ClientRequest(original, config.clientAddresses());
            if (!config.allowList().isEmpty() && config.allowList().allows(request, request.clientBytes())) {
                return Decision.noPolicy();
            }
            String plan = config.plans().select(request, request.fromTrustedProxy());
            String method = request.method();
            String path = request.path();
            List<BucketRequest> calls = new ArrayList<>(policies.size());
            List<String> clients = new ArrayList<>(policies.size());
            List<List<Limit>> limits = new ArrayList<>(policies.size());
            for (Policy p : policies) {
                String client = BucketKeys.client(resolve(p, request));
                List<Limit> set = p.limitsFor(plan);
                clients.add(client);
                limits.add(set);
                long cost = costOverride > 0 ? costOverride : p.cost().of(method, path);
                calls.add(new BucketRequest(BucketKeys.key(config.keyPrefix(), p.name(), client),
                        set, cost, p.mode() == Mode.ENFORCE, p.algorithm()));
            }
            Decision d = acquire(policies, clients, limits, plan, calls);
            denials.record(d);
            return d;
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(Level.SEVERE, Messages.INTERNAL_ERROR + ": unexpected error deciding a request; it goes through unlimited", e);
            return Decision.noPolicy();
        }
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

    /** The circuit around Redis, or {@code null} with the in-memory store alone. */
    public Circuit.State circuitState() {
        return circuit == null ? null : circuit.state();
    }

    private Decision acquire(List<Policy> policies, List<String> clients, List<List<Limit>> limits, String plan,
                             List<BucketRequest> calls) {
        if (fallback == null) {
            return toDecision(policies, clients, limits, plan, store.acquire(calls), Decision.Source.LOCAL);
        }
        if (circuit.allowsCall()) {
            redisCalls.increment();
            try {
                long[] reply = store.acquire(calls);
                circuit.success();
                return toDecision(policies, clients, limits, plan, reply, Decision.Source.REDIS);
            } catch (RuntimeException e) {
                redisFailures.increment();
                circuit.failure(e);
                REDIS_LOG.log(Level.FINE, "a Redis call failed", e);
            }
        }
        return degraded(policies, clients, limits, plan, calls);
    }

    /**
     * The decision while Redis fails, each policy by its failure mode: {@code closed} policies
     * refuse the request with 503, {@code open} ones step aside, {@code local} ones decide with
     * this node's memory.
     */
    private Decision degraded(List<Policy> policies, List<String> clients, List<List<Limit>> limits, String plan,
                              List<BucketRequest> calls) {
        List<PolicyResult> closed = new ArrayList<>(0);
        List<Integer> local = new ArrayList<>(policies.size());
        for (int i = 0; i < policies.size(); i++) {
            Policy p = policies.get(i);
            FailureMode mode = p.failureMode() != null ? p.failureMode() : config.failureMode();
            if (mode == FailureMode.CLOSED && p.mode() == Mode.ENFORCE) {
                closed.add(new PolicyResult(p, clients.get(i), plan, List.of()));
            } else if (mode == FailureMode.LOCAL) {
                local.add(i);
            }
        }
        if (!closed.isEmpty()) {
            return new Decision(Decision.Verdict.UNAVAILABLE, closed, 1_000_000, Decision.Source.NONE);
        }
        if (local.isEmpty()) {
            return Decision.noPolicy();
        }
        if (local.size() == policies.size()) {
            return toDecision(policies, clients, limits, plan, fallback.acquire(calls), Decision.Source.LOCAL);
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
        return toDecision(p2, c2, l2, plan, fallback.acquire(r2), Decision.Source.LOCAL);
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

    private static String safe(java.util.function.Supplier<String> s) {
        try {
            return s.get();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public void close() {
        store.close();
        if (fallback != null) {
            fallback.close();
        }
    }
}
