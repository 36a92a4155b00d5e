package dev.tollgate.internal.engine;

import dev.tollgate.Limit;
import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.Messages;
import java.util.List;

/**
 * Code outside the configuration decides under {@code policy} at a fixed {@code cost} (JAX-RS
 * {@code @RateLimited}): the policy must exist, and a request of that cost must be able to pass
 * every limit of it, under every configuration put in force. See {@code RateLimiter.requirePolicy}.
 *
 * @param cost  tokens per request, or 0 for the policy's own
 * @param where what names it, for messages
 */
public record PolicyRequirement(String policy, long cost, String where) {
    /** Adds to {@code problems} why {@code c} does not allow this requirement, if it does not. */
    public void check(TollgateConfig c, List<String> problems) {
        Policy p = c.policy(policy).orElse(null);
        if (p == null) {
            problems.add(Messages.undeclaredPolicy(where, policy));
            return;
        }
        if (cost < 0) {
            problems.add(Messages.bad(where + ": a cost must be at least 1 (or 0 for the policy's own)"));
            return;
        }
        for (List<Limit> set : p.allLimits().values()) {
            for (Limit l : set) {
                try {
                    Policy.requireCostFits(l, cost);
                } catch (IllegalArgumentException e) {
                    problems.add(Messages.bad(where + ", policy '" + p.name() + "' (tollgate.policy."
                            + p.name() + ".limits): " + e.getMessage()));
                    return;
                }
            }
        }
    }
}
