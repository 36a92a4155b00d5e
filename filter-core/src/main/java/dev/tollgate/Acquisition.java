package dev.tollgate;

import dev.tollgate.internal.identity.ClientKeys;
import java.time.Duration;
import java.util.List;

/**
 * What {@link Limiter#acquire} got for one client under one policy: whether the tokens were
 * taken, how many are left, how long until a refused acquire could pass, and where each of the
 * policy's limits stands. A refusal is a value, not an exception.
 *
 * <p>An acquire under a policy with a {@code concurrency} limit holds a slot while it is allowed:
 * give it back with {@link #release()} (or {@link #close()}, in a try-with-resources) when the
 * work is done. Under any other policy both do nothing.
 *
 * <p>Immutable and thread-safe (its slot is given back once, atomically).
 */
public final class Acquisition implements AutoCloseable {

    private final Decision decision;
    private final PolicyResult result;

    private Acquisition(Decision decision, PolicyResult result) {
        this.decision = decision;
        this.result = result;
    }

    /** The acquisition of {@code policy}'s tokens the engine decided. */
    static Acquisition of(Decision decision, String policy) {
        PolicyResult result = null;
        for (PolicyResult r : decision.results()) {
            if (r.policy().name().equals(policy)) {
                result = r;
            }
        }
        return new Acquisition(decision, result);
    }

    /**
     * Whether the tokens were taken (or the policy is in {@code shadow} mode, Tollgate is disabled,
     * or Redis failed under failure mode {@code open}): the work may go on.
     */
    public boolean allowed() {
        return decision.allowed();
    }

    /**
     * Whether the tokens were refused because the store failed and the policy's failure mode is
     * {@code closed} (what a filter answers with 503); {@link #retryAfter()} is then one second.
     */
    public boolean unavailable() {
        return decision.verdict() == Decision.Verdict.UNAVAILABLE;
    }

    /**
     * The fewest whole tokens any limit of the policy has left after this acquire (before it,
     * when refused); {@link Long#MAX_VALUE} when no limit was consulted (Tollgate disabled, the
     * store failed under failure mode {@code open} or {@code closed}).
     */
    public long remaining() {
        long min = Long.MAX_VALUE;
        for (LimitState s : limits()) {
            min = Math.min(min, s.remaining());
        }
        return min;
    }

    /**
     * How long until an acquire of the same cost could pass, measured when it was refused (on the
     * store's clock); {@link Duration#ZERO} when allowed. For a policy's {@code concurrency} limit
     * it is the time until the oldest slot's lease expires: a slot given back earlier frees it sooner.
     */
    public Duration retryAfter() {
        return allowed() ? Duration.ZERO : Duration.ofNanos(decision.retryAfterMicros() * 1000);
    }

    /**
     * Where each limit of the policy stands (the client's plan's rate limits in the policy's order,
     * then its concurrency limit if it has one); empty when no limit was consulted.
     */
    public List<LimitState> limits() {
        return result == null ? List.of() : result.limits();
    }

    /** The policy's limits, as configured for the client's plan (without their state). */
    public List<Limit> policyLimits() {
        return limits().stream().map(LimitState::limit).toList();
    }

    /** The policy's result in the decision, {@code null} when it has none. */
    PolicyResult result() {
        return result;
    }

    /** The whole decision: its source (Redis, this node's memory, the deny cache) and its permit. */
    public Decision decision() {
        return decision;
    }

    /**
     * Gives back the concurrency slot this acquire holds, the first time only; does nothing when it
     * holds none. Never throws.
     *
     * @return whether this call gave a slot back
     */
    public boolean release() {
        return decision.permit().release();
    }

    /** {@link #release()}, for try-with-resources. */
    @Override
    public void close() {
        release();
    }

    /** Without the client key in the clear. */
    @Override
    public String toString() {
        return "Acquisition[" + decision.verdict() + ", policy=" + (result == null ? "-" : result.policy().name())
                + ", client=" + (result == null ? "-" : ClientKeys.shown(result.clientKey(), false))
                + ", remaining=" + remaining() + ", retryAfter=" + retryAfter() + ", source=" + decision.source() + "]";
    }
}
