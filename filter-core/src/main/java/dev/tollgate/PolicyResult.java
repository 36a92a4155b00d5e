package dev.tollgate;

import java.util.List;

/**
 * The outcome of one policy for one request.
 *
 * @param policy    the policy
 * @param clientKey the client key the policy resolved (already made safe for storage)
 * @param plan      the client's plan, {@code null} when there are no plans
 * @param limits    one state per limit that applied (the plan's), in the policy's order
 */
public record PolicyResult(Policy policy, String clientKey, String plan, List<LimitState> limits) {

    public PolicyResult {
        limits = List.copyOf(limits);
    }

    /** Whether some limit of this policy refuses the request. */
    public boolean denied() {
        for (LimitState s : limits) {
            if (!s.admits()) {
                return true;
            }
        }
        return false;
    }

    /** The header name of the limit at {@code index}. */
    public String limitName(int index) {
        return policy.limitName(index, limits.size());
    }

    /** The longest wait among the limits that refuse, 0 when all admit. */
    public long retryAfterMicros() {
        long max = 0;
        for (LimitState s : limits) {
            max = Math.max(max, s.retryAfterMicros());
        }
        return max;
    }
}
