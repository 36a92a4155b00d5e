package dev.tollgate.internal.engine;

import dev.tollgate.CircuitState;
import dev.tollgate.Decision;
import dev.tollgate.Health;
import dev.tollgate.LimitState;
import dev.tollgate.Mode;
import dev.tollgate.Permit;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.config.FailureMode;
import dev.tollgate.config.RedisSettings;
import dev.tollgate.config.StoreSettings;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.metrics.Metrics;
import dev.tollgate.internal.redis.RedisPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Asks the store for a planned request and turns its reply into a {@link Decision}; guards the
 * shared store (Redis) with a {@link Circuit}, and while it fails decides each policy by its
 * failure mode ({@code closed}: 503, {@code open}: step aside, {@code local}: the in-memory
 * fallback). Counts calls, failures and busy calls for health, JMX and metrics.
 *
 * <p>Thread-safe.
 */
public final class StoreGuard implements AutoCloseable {

    private static final Logger REDIS_LOG = Logger.getLogger("dev.tollgate.redis");

    private final BucketStore store;
    private final BucketStore fallback;
    /** The fallback when it can follow the shared store's buckets ({@link LocalStore#follow}); else {@code null}. */
    private final LocalStore follower;
    /** {@link #ask}, then the fallback follows the replies: a lease fetched for a {@code local} policy. */
    private final Function<List<BucketRequest>, List<BucketReply>> askFollowing = this::askFollowing;
    private final Function<List<BucketRequest>, List<BucketReply>> askOnly = this::ask;
    private final Circuit circuit;
    private final Metrics metrics;
    private final LongAdder calls = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder busy = new LongAdder();
    /** How often, at most, {@link Messages#REDIS_BUSY} is logged while calls find the pool busy. */
    static final long BUSY_REPORT_EVERY_NANOS = 60_000_000_000L;
    private final LongSupplier nanoTime;
    private final AtomicLong nextBusyReport;
    private final AtomicLong busyReported = new AtomicLong();
    private final String target;
    private final int poolSize;
    private final long timeoutMillis;
    private volatile String lastFailure;
    private final TokenLeases leases;
    /** Slots a failed call may have left in Redis, given back when it answers again; {@code null} unguarded. */
    private final LeaseReclaimer reclaim;
    private final ThreadPoolExecutor reclaiming;
    /** Gives back what a decision of the shared store holds; kept for later when Redis does not answer. */
    private final Consumer<List<BucketRequest.Lease>> releaseShared;
    /** Checked now and then as requests are decided; {@code null} until {@link #watch}, and without Redis. */
    private volatile PolicyRecords records;

    /**
     * @param fallback the in-memory store while {@code store} (Redis) fails, or {@code null} when
     *                 {@code store} is the in-memory store itself (then nothing is guarded)
     * @param metrics  where measurements go; {@code null} for what {@code tollgate.metrics} says
     */
    public StoreGuard(TollgateConfig config, BucketStore store, BucketStore fallback, LongSupplier nanoTime,
                      Metrics metrics, String name) {
        this.store = store;
        this.fallback = fallback;
        this.follower = fallback instanceof LocalStore l ? l : null;
        RedisSettings redis = config.store().guard();
        String target = config.store() instanceof StoreSettings.OnRedis ? redis.describe() : store.name();
        this.circuit = fallback == null ? null : new Circuit(redis.circuitFailures(), redis.circuitOpenFor(), nanoTime, target);
        this.leases = fallback == null ? null : new TokenLeases(config.store().localMaxKeys(), nanoTime);
        // one daemon thread, only while there is something to give back
        this.reclaiming = fallback == null ? null : new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "tollgate-" + name + "-reclaim");
                    t.setDaemon(true);
                    return t;
                });
        this.reclaim = fallback == null ? null : new LeaseReclaimer(store, nanoTime, reclaiming);
        this.releaseShared = reclaim == null ? store::release : reclaim::release;
        this.nanoTime = nanoTime;
        this.nextBusyReport = new AtomicLong(nanoTime.getAsLong());
        this.target = target;
        this.poolSize = redis.poolSize();
        this.timeoutMillis = budgetNanos(config) / 1_000_000L;
        this.metrics = metrics != null ? metrics : Metrics.create(config.runtime().metrics(), name,
                () -> circuit == null ? 0 : circuit.stateCode(), () -> circuit == null ? 0 : circuit.downNanos());
    }

    public Metrics metrics() {
        return metrics;
    }

    /** The shared store (Redis), or the in-memory one when no Redis is configured: for an operator's inspect and reset. */
    public BucketStore store() {
        return store;
    }

    /** Whether a shared store is guarded (Redis with a fallback), as opposed to the in-memory store alone. */
    public boolean guarded() {
        return fallback != null;
    }

    /** Keeps the records of the namespace's policies ({@link PolicyRecords}) from the decisions on: the shared store's. */
    void watch(PolicyRecords records) {
        this.records = records;
    }

    /** Opens the circuit: the store did not answer at start. */
    public void failedAtStart(RuntimeException e) {
        circuit.open(e);
        lastFailure = e.toString();
    }

    /**
     * The decision for a planned request: from this node's token lease when its one bucket's
     * policy prefetches, else the store's, or the failure modes' while it fails.
     */
    public Decision decide(TollgateConfig c, RequestPlan plan) {
        if (fallback == null) {
            return toDecision(plan.plan(), plan.buckets(), store.acquire(plan.requests()), Decision.Source.LOCAL,
                    store::release);
        }
        PolicyRecords r = records;
        if (r != null) {
            r.tick(c, reclaiming); // at most once a minute, on the reclaiming thread: the namespace's policy records
        }
        // Leasing answers a request of one bucket only: across policies all-or-nothing needs the store.
        if (plan.buckets().size() == 1) {
            RequestPlan.Bucket b = plan.buckets().get(0);
            if (b.request() instanceof BucketRequest.Take take && TokenLeases.applies(take, b.policy().prefetch())) {
                TokenLeases.Take t = leases.take(take, b.policy().prefetch(), c, budgetNanos(c),
                        follows(c, b.policy()) ? askFollowing : askOnly);
                if (t.outcome() == TokenLeases.Outcome.LEASED) {
                    return toDecision(plan.plan(), plan.buckets(), List.of(t.reply()),
                            t.fetched() ? Decision.Source.REDIS : Decision.Source.LEASE, releaseShared);
                }
                if (t.outcome() == TokenLeases.Outcome.STORE_FAILED) {
                    return degraded(c, plan);
                }
            }
        }
        List<BucketReply> reply = ask(plan.requests());
        if (reply == null) {
            return degraded(c, plan);
        }
        follow(c, plan, reply);
        return toDecision(plan.plan(), plan.buckets(), reply, Decision.Source.REDIS, releaseShared);
    }

    /** Whether the fallback follows the shared store's buckets of policy {@code p}: its failure mode is {@code local}. */
    private boolean follows(TollgateConfig c, Policy p) {
        return follower != null && (p.failureMode() != null ? p.failureMode() : c.store().failureMode()) == FailureMode.LOCAL;
    }

    /**
     * The fallback's buckets of {@code local} policies follow what the shared store answered, so
     * that while it fails this node continues from the shared buckets as it last saw them
     * ({@link LocalStore#follow}). A bucket took its cost when every enforcing bucket admitted
     * the request and its own limits did (a shadow bucket's), as {@link BucketStore#acquire} says.
     */
    private void follow(TollgateConfig c, RequestPlan plan, List<BucketReply> reply) {
        List<RequestPlan.Bucket> buckets = plan.buckets();
        if (buckets.size() == 1) {
            RequestPlan.Bucket b = buckets.get(0);
            if (follows(c, b.policy())) {
                BucketReply r = reply.get(0);
                follower.follow(b.request(), r, r.admits());
            }
            return;
        }
        boolean passed = BucketReply.enforcingAdmit(plan.requests(), reply);
        for (int i = 0; i < buckets.size(); i++) {
            RequestPlan.Bucket b = buckets.get(i);
            if (follows(c, b.policy())) {
                BucketReply r = reply.get(i);
                follower.follow(b.request(), r, passed && r.admits());
            }
        }
    }

    /** {@link #ask} for requests that all follow (a lease's fetch: one bucket of a {@code local} policy). */
    private List<BucketReply> askFollowing(List<BucketRequest> requests) {
        List<BucketReply> reply = ask(requests);
        if (reply != null) {
            boolean passed = BucketReply.enforcingAdmit(requests, reply);
            for (int i = 0; i < requests.size(); i++) {
                BucketReply r = reply.get(i);
                follower.follow(requests.get(i), r, passed && r.admits());
            }
        }
        return reply;
    }

    /** One guarded call of the store; {@code null} when it gave no verdict (circuit open, pool busy, failure). */
    private List<BucketReply> ask(List<BucketRequest> requests) {
        Circuit.Call call = circuit.tryCall();
        if (call == null) {
            return null;
        }
        try (call) { // closed without a verdict (busy, an Error), a probe is handed to the next request
            calls.increment();
            long start = System.nanoTime();
            try {
                List<BucketReply> reply = store.acquire(requests);
                metrics.redisCall(System.nanoTime() - start, null);
                call.succeeded();
                reclaim.redisAnswered();
                return reply;
            } catch (RedisPort.BusyException e) {
                countBusy(); // this node's pool was full: no verdict on Redis' health
            } catch (RedisPort.SplitKeysException e) {
                // a slot migration kept the keys apart for longer than the budget, even one by one:
                // Redis is healthy, so no verdict on it, and this request follows the failure mode
                REDIS_LOG.log(Level.FINE, "a request's keys were split by a slot migration for longer than its budget", e);
                reclaim.add(requests); // a group of its keys may have taken its lease before
            } catch (RuntimeException e) {
                metrics.redisCall(System.nanoTime() - start, e);
                failures.increment();
                lastFailure = e.toString();
                call.failed(e);
                REDIS_LOG.log(Level.FINE, "a Redis call failed", e);
                // the script may have run and its reply been lost: a lease it took would hold a slot for nobody
                reclaim.add(requests);
            }
        }
        return null;
    }

    /**
     * Counts a call that found no pooled connection free in time. Nothing about Redis' health, so
     * the circuit does not hear of it, but the operator must: the requests it concerns were decided
     * by the failure mode. Logged at the first one, then at most once a minute with the count since.
     */
    private void countBusy() {
        busy.increment();
        long now = nanoTime.getAsLong();
        long due = nextBusyReport.get();
        if (now - due >= 0 && nextBusyReport.compareAndSet(due, now + BUSY_REPORT_EVERY_NANOS)) {
            long total = busy.sum();
            long since = total - busyReported.getAndSet(total);
            if (since > 0) {
                REDIS_LOG.warning(Messages.redisBusy(target, since, poolSize, timeoutMillis));
            }
        }
    }

    private static long budgetNanos(TollgateConfig c) {
        return c.store().guard().timeout().toNanos();
    }

    /**
     * Pauses a gate ({@link BucketStore#pause}) in the in-memory fallback and, while the circuit
     * lets calls through, in the shared store: a node that decides locally during an outage
     * honours the pauses it set itself. A failure counts against the circuit like a decision's.
     *
     * @return µs until the gate opens, as the shared store says, else as the fallback says
     */
    public long pause(String gateKey, long pauseMicros) {
        if (fallback == null) {
            return store.pause(gateKey, pauseMicros);
        }
        long left = fallback.pause(gateKey, pauseMicros);
        Circuit.Call call = circuit.tryCall();
        if (call != null) {
            try (call) {
                calls.increment();
                try {
                    left = store.pause(gateKey, pauseMicros);
                    call.succeeded();
                } catch (RedisPort.BusyException e) {
                    countBusy();
                } catch (RuntimeException e) {
                    failures.increment();
                    lastFailure = e.toString();
                    call.failed(e);
                    REDIS_LOG.log(Level.FINE, "a Redis call failed", e);
                }
            }
        }
        return left;
    }

    /**
     * The decision while Redis fails, each policy by its failure mode: {@code closed} policies
     * refuse the request with 503, {@code open} ones step aside (reported with no limits),
     * {@code local} ones decide with this node's memory.
     */
    private Decision degraded(TollgateConfig c, RequestPlan plan) {
        List<PolicyResult> closed = new ArrayList<>(0);
        List<PolicyResult> open = new ArrayList<>(0);
        List<RequestPlan.Bucket> local = new ArrayList<>(plan.buckets().size());
        for (RequestPlan.Bucket b : plan.buckets()) {
            Policy p = b.policy();
            FailureMode mode = p.failureMode() != null ? p.failureMode() : c.store().failureMode();
            if (mode == FailureMode.LOCAL) {
                local.add(b);
            } else {
                List<PolicyResult> to = mode == FailureMode.CLOSED && p.mode() == Mode.ENFORCE ? closed : open;
                if (to.isEmpty() || to.get(to.size() - 1).policy() != p) { // a policy's rate and lease buckets: one result
                    to.add(new PolicyResult(p, b.client(), plan.plan(), List.of()));
                }
            }
        }
        if (!closed.isEmpty()) {
            return new Decision(Decision.Verdict.UNAVAILABLE, closed, 1_000_000, Decision.Source.NONE);
        }
        if (local.isEmpty()) {
            return new Decision(Decision.Verdict.ALLOW, open, 0, Decision.Source.NONE);
        }
        RequestPlan locally = new RequestPlan(plan.plan(), local, null);
        Decision d = toDecision(plan.plan(), local, fallback.acquire(locally.requests()), Decision.Source.LOCAL,
                fallback::release);
        if (open.isEmpty()) {
            return d;
        }
        List<PolicyResult> all = new ArrayList<>(d.results());
        all.addAll(open);
        return new Decision(d.verdict(), all, d.retryAfterMicros(), d.source(), d.permit());
    }

    /**
     * The decision from the store's replies, one per bucket: refused when an enforced policy
     * refuses. A policy's rate bucket and lease bucket (they follow each other) make one result.
     * An admitted request holds the leases that {@code store} took: those of every bucket that
     * admitted it (shadow ones too).
     */
    static Decision toDecision(String plan, List<RequestPlan.Bucket> buckets, List<BucketReply> replies,
                               Decision.Source source, Consumer<List<BucketRequest.Lease>> release) {
        if (buckets.size() == 1 && !(buckets.get(0).request() instanceof BucketRequest.Lease)) {
            return oneBucket(plan, buckets.get(0), replies.get(0), source);
        }
        PolicyResult[] results = new PolicyResult[buckets.size()];
        int count = 0;
        List<BucketRequest.Lease> taken = null; // made at the first lease taken: most requests hold none
        for (int i = 0; i < buckets.size(); i++) {
            RequestPlan.Bucket b = buckets.get(i);
            BucketReply reply = replies.get(i);
            List<LimitState> states = reply.limits();
            if (b.request() instanceof BucketRequest.Lease lease && reply.admits()) {
                if (taken == null) {
                    taken = new ArrayList<>(1);
                }
                taken.add(lease);
            }
            if (count > 0 && results[count - 1].policy() == b.policy()) {
                PolicyResult rates = results[--count];
                List<LimitState> both = new ArrayList<>(rates.limits());
                both.addAll(states);
                states = both;
            }
            results[count++] = new PolicyResult(b.policy(), b.client(), plan, states);
        }
        boolean denied = false;
        long retry = 0;
        for (int i = 0; i < count; i++) {
            PolicyResult r = results[i];
            if (r.policy().mode() == Mode.ENFORCE && r.denied()) {
                denied = true;
                retry = Math.max(retry, r.retryAfterMicros());
            }
        }
        List<BucketRequest.Lease> held = taken;
        Permit permit = denied || held == null ? Permit.NONE : Permit.releasing(() -> release.accept(held));
        return new Decision(denied ? Decision.Verdict.DENY : Decision.Verdict.ALLOW, RequestPlan.listOf(results, count),
                retry, source, permit);
    }

    /** {@link #toDecision} for one policy's rate bucket (nearly every request): nothing to merge, no lease to hold. */
    private static Decision oneBucket(String plan, RequestPlan.Bucket b, BucketReply reply, Decision.Source source) {
        PolicyResult r = new PolicyResult(b.policy(), b.client(), plan, reply.limits());
        boolean denied = b.policy().mode() == Mode.ENFORCE && r.denied();
        return new Decision(denied ? Decision.Verdict.DENY : Decision.Verdict.ALLOW, List.of(r),
                denied ? r.retryAfterMicros() : 0, source, Permit.NONE);
    }

    public long calls() {
        return calls.sum();
    }

    public long failures() {
        return failures.sum();
    }

    public long busy() {
        return busy.sum();
    }

    public String lastFailure() {
        return lastFailure;
    }

    /** The circuit's state, or {@code null} with the in-memory store alone. */
    public CircuitState circuitState() {
        return circuit == null ? null : circuit.state();
    }

    /** Where the store stands, for readiness checks. */
    public Health health(String name, TollgateConfig c) {
        if (circuit == null) {
            return new Health(name, true, "memory", "none", false, 0, 0, null);
        }
        CircuitState s = circuit.state();
        boolean fallbackNow = s != CircuitState.CLOSED;
        // Not ready only if some request would now get a 503: an enforcing policy whose own failure
        // mode, or the global one it inherits, is closed. A global 'closed' that every policy
        // overrides, or a closed shadow policy (it never refuses), serves everything (issue 21).
        boolean closedPolicy = false;
        for (Policy p : c.policies()) {
            FailureMode mode = p.failureMode() != null ? p.failureMode() : c.store().failureMode();
            closedPolicy |= mode == FailureMode.CLOSED && p.mode() == Mode.ENFORCE;
        }
        return new Health(name, !(fallbackNow && closedPolicy), "redis", s.name().toLowerCase(Locale.ROOT), fallbackNow,
                calls.sum(), failures.sum(), lastFailure);
    }

    @Override
    public void close() {
        if (reclaiming != null) {
            reclaiming.shutdownNow();
        }
        metrics.close();
        store.close();
        if (fallback != null) {
            fallback.close();
        }
    }
}
