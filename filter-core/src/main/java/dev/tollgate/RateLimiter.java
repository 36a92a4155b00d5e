package dev.tollgate;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.FailureMode;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.engine.ConfigReloads;
import dev.tollgate.internal.engine.Decisions;
import dev.tollgate.internal.engine.Engines;
import dev.tollgate.internal.engine.NamedPolicies;
import dev.tollgate.internal.engine.PolicyRequirement;
import dev.tollgate.internal.engine.RequestPlanner;
import dev.tollgate.internal.engine.StoreGuard;
import dev.tollgate.internal.http.HttpContract;
import dev.tollgate.internal.local.MicroClock;
import dev.tollgate.internal.metrics.Metrics;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.ObjectName;

/**
 * The decision engine's public face: finds the policies that cover a request, has the engine
 * ({@code internal.engine.Decisions}) plan it (client keys, costs, the deny cache) and decide it
 * with the store (circuit, failure modes), and turns the {@link Decision} into an
 * {@link HttpAnswer}. It owns the configuration in force and its reloads; the stores and their
 * start-up are {@code internal.engine.Engines}'.
 *
 * <p>{@link #check} never throws for what a request or the store does: a store failure is
 * handled by the configured {@link FailureMode}, and anything unexpected lets the request through
 * and is logged. Only a cost given in code that a limit could never admit is refused, with an
 * {@link IllegalArgumentException} ({@link #check(RequestView, Collection, long)}).
 *
 * <p>The configuration can change while it runs ({@link #reload()}, {@code tollgate.reload-interval},
 * or the JMX operation); the Redis connection cannot.
 *
 * <p>Thread-safe; create one per filter and {@link #close()} it when the filter is destroyed.
 */
public final class RateLimiter implements AutoCloseable {

    private static final Set<RateLimiter> LIVE = ConcurrentHashMap.newKeySet();

    private volatile TollgateConfig config;
    private final String name;
    private final Decisions decisions;
    private final StoreGuard guard;
    private final ConfigReloads reloads;
    /** The policies code of this limiter's application names: by {@code match} only with a match of their own. */
    private final NamedPolicies named;
    private ObjectName mbean;

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
        this(config, store, fallback, nanoTime, metrics, name, reloader, NamedPolicies.NONE);
    }

    /** @param named the policies code of the limiter's application names */
    RateLimiter(TollgateConfig config, BucketStore store, BucketStore fallback, LongSupplier nanoTime,
                Metrics metrics, String name, Supplier<TollgateConfig> reloader, NamedPolicies named) {
        this.named = named;
        this.config = config;
        this.name = name;
        this.reloads = new ConfigReloads(name, reloader, this::reload);
        this.decisions = new Decisions(config, store, fallback, nanoTime, metrics, name);
        this.guard = decisions.guard();
    }

    /** The store this limiter decides with, for an operator's look at one client ({@link RateLimiterJmx#inspect}). */
    BucketStore store() {
        return guard.store();
    }

    /** {@link #create(TollgateConfig, String, Supplier)} for a configuration that never changes. */
    public static RateLimiter create(TollgateConfig config) {
        return create(config, "tollgate", null);
    }

    /**
     * {@link #create(TollgateConfig, String, Supplier, ClassLoader)} for the application of the
     * calling thread's context class loader (the application's, while a container starts it).
     */
    public static RateLimiter create(TollgateConfig config, String name, Supplier<TollgateConfig> reloader) {
        return create(config, name, reloader, Thread.currentThread().getContextClassLoader());
    }

    /**
     * Builds the engine and its stores: Redis when one is configured (with the in-memory store
     * as the fallback of {@code failure-mode=local}), else the in-memory store. An unreachable
     * Redis does not stop start-up: the failure mode applies until it answers.
     *
     * @param name        a name for logs, metrics, JMX and health (the filter's name)
     * @param reloader    reads the configuration again for {@link #reload()}; {@code null} if it cannot change
     * @param application the application's class loader (a servlet context's): the policies its
     *                    code names ({@link dev.tollgate.adapter.Integration#declareNamedInCode}) apply by {@code match}
     *                    only when they have a {@code match} of their own ({@link #check(RequestView)})
     */
    public static RateLimiter create(TollgateConfig config, String name, Supplier<TollgateConfig> reloader,
                                     ClassLoader application) {
        return create(config, name, reloader, application, null);
    }

    /**
     * For tests: {@link #create(TollgateConfig, String, Supplier, ClassLoader)} on a node whose own
     * clock (µs since the epoch) is {@code nodeClock} instead of the system's ({@code null}), as a
     * host whose clock is hours off would be.
     */
    static RateLimiter create(TollgateConfig config, String name, Supplier<TollgateConfig> reloader,
                              ClassLoader application, MicroClock nodeClock) {
        Engines.Stores stores = Engines.open(config, nodeClock);
        RateLimiter limiter = new RateLimiter(config, stores.store(), stores.fallback(), System::nanoTime, null, name,
                reloader, NamedPolicies.of(application));
        Engines.start(config, name, stores, limiter.guard);
        LIVE.add(limiter); // for health, then JMX, then the polling of the configuration if asked to
        limiter.mbean = config.runtime().jmx() ? RateLimiterJmx.register(limiter, name) : null;
        limiter.reloads.poll(config.runtime().reloadInterval());
        return limiter;
    }

    /**
     * Reads the configuration again and, if it changed, puts it in force for the next request.
     * Buckets keep their state: a client keeps the time it owes (a larger burst or rate applies
     * at once, a smaller burst caps the debt); a limit a policy gains reads the largest debt its
     * bucket holds, capped at its own time to fill. Redis connection settings are not changed by
     * a reload.
     *
     * @return whether the configuration changed
     * @throws ConfigException when the new configuration is not valid; the old one stays in force
     */
    public synchronized boolean reload() {
        TollgateConfig next = reloads.next(config);
        if (next == null) {
            return false;
        }
        config = next; // the reloads poll at the interval it brings
        decisions.clear();
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
        reloads.require(new PolicyRequirement(policy, cost, where), config);
    }

    /** The configuration in force now. */
    public TollgateConfig config() {
        return config;
    }

    /**
     * Decides for the policies whose {@code match} covers the request: those with a {@code match}
     * of their own that covers it, and those without one ({@code /**}) that no code of the
     * application names ({@link dev.tollgate.adapter.Integration#declareNamedInCode}); a policy that code names and
     * that has no {@code match} applies only where code names it.
     */
    public Decision check(RequestView request) {
        TollgateConfig c = config;
        return c.enabled() ? decisions.decide(c, request, RequestPlanner.matching(c, named.names(), request), 0)
                : Decision.noPolicy();
    }

    /** The configured policies whose {@code match} covers the request, as {@link #check(RequestView)} finds them, in configured order. */
    public List<Policy> matching(RequestView request) {
        return RequestPlanner.matching(config, named.names(), request);
    }

    /** Decides for the given policies, whatever their {@code match} says (JAX-RS {@code @RateLimited}). */
    public Decision check(RequestView request, Collection<Policy> policies) {
        return check(request, policies, 0);
    }

    /**
     * Decides for the given policies, each request costing {@code cost} tokens instead of what
     * the policies' {@code cost} says ({@code 0}: what they say). A policy given by an older
     * configuration is decided with its current definition, if it still exists.
     *
     * @throws IllegalArgumentException when a limit of one of the policies (of any plan) could
     *         never admit a request of {@code cost}: its burst is smaller. No store is asked, and
     *         the message says which limit; a configured cost is held to the same rule at start-up
     *         and at each reload, and {@link #requirePolicy} holds code's fixed costs to it
     */
    public Decision check(RequestView request, Collection<Policy> policies, long cost) {
        TollgateConfig c = config;
        List<Policy> current = RequestPlanner.current(c, policies);
        PolicyRequirement.requireFits(current, cost, "RateLimiter.check(request, policies, cost)");
        return c.enabled() ? decisions.decide(c, request, current, cost) : Decision.noPolicy();
    }

    /**
     * Decides an outbound call to a remote API under a policy: the remote is the client (one
     * bucket per policy and remote, shared by every node on the same store), and the call is
     * refused while a pause set by {@link #pauseRemote} lasts, with the time left as its wait. It
     * takes the policy's {@code cost} for the call's method and path; a remote has no plan, so the
     * policy's default limits apply. Never throws, and never waits: a refusal's
     * {@link Decision#retryAfterMicros()} says how long until a call could pass.
     *
     * @param method the call's HTTP method ({@code null}: any)
     * @param path   the path of the call's URI ({@code null}: any)
     * @return {@link Decision#noPolicy()} when Tollgate is off, the policy no longer exists or has
     *         no rate limits
     */
    public Decision checkRemote(String policy, String remote, String method, String path) {
        return decisions.decideRemote(config, policy, remote, method, path);
    }

    /**
     * Pauses outbound calls to a remote under a policy, for every node sharing the store: no call
     * {@link #checkRemote} decides passes for {@code pause} from now (the store's clock places it).
     * A pause never shortens one already set. While Redis fails, this node's own memory keeps it.
     * Never throws.
     *
     * @param pause clamped to the policy's {@code max-pause}; a negative one is 0
     * @return how long calls are paused from now on, after this call ({@link Duration#ZERO} when
     *         the policy no longer exists or has no rate limits, or the store could not be asked)
     */
    public Duration pauseRemote(String policy, String remote, Duration pause) {
        return decisions.pauseRemote(config, policy, remote, pause);
    }

    /** The headers, status and body for a decision. */
    public HttpAnswer answer(Decision decision) {
        TollgateConfig c = config;
        return HttpContract.answer(decision, c.http().headers(), c.http().retryAfterJitter().toSeconds());
    }

    /** How often the configuration is read again now (for tests). */
    java.time.Duration reloadsEvery() {
        return reloads.pollingEvery();
    }

    /** Entries in the deny cache, refusals and askings (for tests). */
    int denyCacheSize() {
        return decisions.denyCacheSize();
    }

    /** Calls made to Redis so far (each one decision; the circuit skips calls while it is open). */
    public long redisCalls() {
        return guard.calls();
    }

    /** Calls to Redis that failed or timed out so far. */
    public long redisFailures() {
        return guard.failures();
    }

    /**
     * Requests decided without Redis because no pooled connection was free in time (this node
     * busier than {@code tollgate.redis.pool-size}); they do not count against Redis' health.
     */
    public long redisBusy() {
        return guard.busy();
    }

    /** The circuit around Redis, or {@code null} with the in-memory store alone. */
    public CircuitState circuitState() {
        return guard.circuitState();
    }

    /** Where this limiter stands, for readiness checks. */
    public Health health() {
        return guard.health(name, config);
    }

    /** Every limiter open in this class loader (this application), for health checks. */
    public static List<RateLimiter> live() {
        return List.copyOf(LIVE);
    }

    @Override
    public void close() {
        LIVE.remove(this);
        reloads.close();
        RateLimiterJmx.unregister(mbean);
        guard.close();
    }
}
