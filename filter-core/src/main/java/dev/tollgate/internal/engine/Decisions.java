package dev.tollgate.internal.engine;

import dev.tollgate.Decision;
import dev.tollgate.Policy;
import dev.tollgate.RequestView;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.metrics.Metrics;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The request path behind {@code RateLimiter}: plans a request ({@link RequestPlanner}: client
 * keys, costs, the deny cache), has the {@link StoreGuard} decide it, and records the decision
 * (denial log, metrics); the same for an outbound call to a remote and its pause. Whatever goes
 * wrong unexpectedly is logged and lets the request through: nothing here throws for what a
 * request or the store does.
 *
 * <p>Thread-safe. The configuration in force is the caller's, passed to every call.
 */
public final class Decisions {

    private static final Logger LOG = Logger.getLogger("dev.tollgate");

    private final RequestPlanner planner;
    private final StoreGuard guard;
    private final Metrics metrics;
    private final DenialLog denials = new DenialLog();

    /**
     * @param fallback the in-memory store while {@code store} (Redis) fails, or {@code null} when
     *                 {@code store} is the in-memory store itself
     * @param metrics  where measurements go; {@code null} for what {@code tollgate.metrics} says
     */
    public Decisions(TollgateConfig config, BucketStore store, BucketStore fallback, LongSupplier nanoTime,
                     Metrics metrics, String name) {
        this.guard = new StoreGuard(config, store, fallback, nanoTime, metrics, name);
        this.planner = new RequestPlanner(config.store().localMaxKeys(), nanoTime);
        this.metrics = guard.metrics();
    }

    /** The guard around the store: its counters, circuit and health. */
    public StoreGuard guard() {
        return guard;
    }

    /** Forgets what was planned and cached under an older configuration (after a reload). */
    public void clear() {
        planner.clear();
    }

    /** Entries in the deny cache, refusals and askings (for tests). */
    public int denyCacheSize() {
        return planner.denyCacheSize();
    }

    /**
     * The decision for a request under {@code policies} (none: {@link Decision#noPolicy()}),
     * each request costing {@code costOverride} tokens ({@code 0}: what the policies say).
     */
    public Decision decide(TollgateConfig c, RequestView request, List<Policy> policies, long costOverride) {
        if (policies.isEmpty()) {
            return Decision.noPolicy();
        }
        try {
            RequestPlan plan = planner.plan(c, request, policies, costOverride, c.store().denyCache() && guard.guarded());
            if (plan == null) {
                return Decision.noPolicy(); // allow-listed
            }
            Decision known = planner.cached(plan, c);
            if (known != null) {
                metrics.cachedDecision(known);
                return known;
            }
            Decision d;
            try {
                d = guard.decide(c, plan);
            } catch (RuntimeException | Error e) {
                planner.abandoned(plan); // whoever waits for this answer asks for itself
                throw e;
            }
            planner.remember(plan, c, d);
            denials.record(d, c.runtime().clearClientKeys());
            metrics.decision(d, guard.guarded());
            return d;
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(Level.SEVERE, Messages.internalError("unexpected error deciding a request; it goes through unlimited"), e);
            return Decision.noPolicy();
        }
    }

    /**
     * The decision for an outbound call to {@code remote} under {@code policy} ({@link RemotePlans}):
     * {@link Decision#noPolicy()} when Tollgate is off, the policy does not exist or has no rate
     * limits. Never throws.
     */
    public Decision decideRemote(TollgateConfig c, String policy, String remote, String method, String path) {
        if (!c.enabled()) {
            return Decision.noPolicy();
        }
        try {
            Policy p = c.policy(policy).orElse(null);
            RequestPlan plan = p == null ? null : RemotePlans.plan(c, p, remote, Math.max(1, p.cost().of(method, path)));
            if (plan == null) {
                return Decision.noPolicy();
            }
            Decision d = guard.decide(c, plan);
            metrics.decision(d, guard.guarded());
            return d;
        } catch (RuntimeException | StackOverflowError e) {
            LOG.log(Level.SEVERE, Messages.internalError("unexpected error deciding an outbound call; it goes through"), e);
            return Decision.noPolicy();
        }
    }

    /**
     * Pauses outbound calls to {@code remote} under {@code policy} for {@code pause}, clamped to
     * the policy's {@code max-pause} (a negative one is 0). Never throws.
     *
     * @return how long calls are paused from now on; {@link Duration#ZERO} when Tollgate is off,
     *         the policy does not exist or has no rate limits, or the store could not be asked
     */
    public Duration pauseRemote(TollgateConfig c, String policy, String remote, Duration pause) {
        try {
            Policy p = c.policy(policy).orElse(null);
            if (!c.enabled() || p == null || p.limits().isEmpty()) {
                return Duration.ZERO;
            }
            // never beyond the policy's max-pause, whatever the caller read from a remote
            Duration clamped = pause.isNegative() ? Duration.ZERO : pause.compareTo(p.outbound().maxPause()) > 0
                    ? p.outbound().maxPause() : pause;
            long micros = clamped.toNanos() / 1000;
            return Duration.ofNanos(guard.pause(RemotePlans.gateKey(c, p, remote), micros) * 1000);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, Messages.internalError("unexpected error pausing outbound calls; they are not paused"), e);
            return Duration.ZERO;
        }
    }
}
