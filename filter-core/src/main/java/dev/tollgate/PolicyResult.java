package dev.tollgate;

import dev.tollgate.internal.identity.ClientKeys;
import java.util.List;

/**
 * The outcome of one policy for one request.
 *
 * @param policy    the policy
 * @param clientKey the client key the policy resolved (already made safe for storage)
 * @param plan      the client's plan, {@code null} when there are no plans
 * @param limits    one state per limit that applied (the plan's), in the policy's order, then the
 *                  concurrency limit's when the policy has one ({@link #isConcurrency})
 */
public record PolicyResult(Policy policy, String clientKey, String plan, List<LimitState> limits) {

    public PolicyResult {
        limits = List.copyOf(limits);
    }

    /** The result without its client key in the clear ({@code ClientKeys.shown}): what a log line or an exception may carry. */
    @Override
    public String toString() {
        return "PolicyResult[policy=" + policy.name() + ", client=" + ClientKeys.shown(clientKey, false) + ", plan=" + plan
                + ", limits=" + limits + "]";
    }

    /** Whether some limit of this policy refuses the request. */
    public boolean denied() {
        for (int i = 0; i < limits.size(); i++) { // by index: asked for every decision, no iterator
            if (!limits.get(i).admits()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The name of the limit at {@code index}: for a rate limit its header name, for the
     * concurrency limit {@code <policy>-concurrency}.
     */
    public String limitName(int index) {
        if (isConcurrency(limits.get(index))) {
            return policy.name() + "-concurrency";
        }
        int rates = limits.size() - (!limits.isEmpty() && isConcurrency(limits.get(limits.size() - 1)) ? 1 : 0);
        return policy.limitName(index, rates);
    }

    /** Whether a state of this result is the policy's concurrency limit rather than a rate limit. */
    public boolean isConcurrency(LimitState state) {
        return policy.concurrency() != null && state.limit().equals(policy.concurrency().limit());
    }

    /** The longest wait among the limits that refuse, 0 when all admit. */
    public long retryAfterMicros() {
        long max = 0;
        for (int i = 0; i < limits.size(); i++) {
            max = Math.max(max, limits.get(i).retryAfterMicros());
        }
        return max;
    }
}
