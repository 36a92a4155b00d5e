package dev.tollgate.internal.engine;

import dev.tollgate.Limit;
import dev.tollgate.Policy;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.config.text.ConfigMessages;
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
            problems.add(ConfigMessages.bad(where + ": a cost must be at least 1 (or 0 for the policy's own)"));
            return;
        }
        String problem = neverPasses(p, cost, where);
        if (problem != null) {
            problems.add(problem);
        }
    }

    /**
     * Refuses a cost given in code that a limit of one of {@code policies} (of any plan) could
     * never admit ({@link #neverPasses}); nothing for a cost of 0 (the policies' own). Makes
     * nothing when every limit can admit it: asked per request.
     *
     * @throws IllegalArgumentException naming {@code where}, the policy and the limit
     */
    public static void requireFits(List<Policy> policies, long cost, String where) {
        if (cost <= 0) {
            return;
        }
        for (int i = 0; i < policies.size(); i++) { // by index: no iterator per request
            String problem = neverPasses(policies.get(i), cost, where);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
        }
    }

    /**
     * Why a request costing {@code cost} could never pass {@code p} (a limit of some plan's, or the
     * default limits, whose burst is smaller), naming {@code where}, the policy and the limit; or
     * {@code null} when every limit can admit it. Makes nothing when it fits: asked per request by
     * {@code RateLimiter.check} with a cost given in code.
     */
    public static String neverPasses(Policy p, long cost, String where) {
        String problem = neverPasses(p, p.limits(), cost, where);
        if (problem == null && !p.planLimits().isEmpty()) {
            for (List<Limit> set : p.planLimits().values()) {
                problem = neverPasses(p, set, cost, where);
                if (problem != null) {
                    break;
                }
            }
        }
        return problem;
    }

    private static String neverPasses(Policy p, List<Limit> limits, long cost, String where) {
        for (int i = 0; i < limits.size(); i++) { // by index: no iterator per request
            Limit l = limits.get(i);
            if (cost > l.capacity()) {
                try {
                    Policy.requireCostFits(l, cost);
                } catch (IllegalArgumentException e) {
                    return ConfigMessages.bad(where + ", policy '" + p.name() + "' (tollgate.policy." + p.name() + ".limits): "
                            + e.getMessage());
                }
            }
        }
        return null;
    }
}
