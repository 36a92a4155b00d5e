package dev.tollgate;

import dev.tollgate.config.FailureMode;
import dev.tollgate.spi.KeyResolver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named rule: which requests it covers, what identifies a client, and the limits each client
 * gets (per plan, when there are plans). All limits of a policy live in one bucket key and are
 * checked together.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name       the policy's name, also used in Redis keys and response headers
 * @param limits     one or more limits, all of which must admit a request (the default plan's)
 * @param planLimits limits of other plans, by plan name; a plan not listed uses {@code limits}
 * @param key        what identifies a client
 * @param keyText    how {@code key} was written, for logs and messages
 * @param match      which requests the policy covers ({@link RequestMatcher#ALL} when not set)
 * @param mode       enforce or only observe
 * @param cost       tokens a request takes from each limit; at most every capacity
 * @param algorithm  token bucket or sliding log
 * @param failureMode what this policy does while Redis fails; {@code null} for the global mode
 * @param concurrency at most this many requests of one client in flight, or {@code null} for no such
 *                    limit; a policy with one may have no rate limits ({@code limits} empty)
 * @param refusal    how this policy's refusal is answered ({@code null}: {@link Refusal#STANDARD})
 * @param prefetch   token leasing ({@link Prefetch}), or {@code null} for a store call per request;
 *                   only for token-bucket rate limits without concurrency, at most the smallest burst
 * @param outbound   how it limits outbound calls ({@code null}: {@link Outbound#DEFAULT})
 */
public record Policy(String name, List<Limit> limits, Map<String, List<Limit>> planLimits, KeyResolver key,
                     String keyText, RequestMatcher match, Mode mode, Costs cost, Algorithm algorithm,
                     FailureMode failureMode, Concurrency concurrency, Refusal refusal, Prefetch prefetch,
                     Outbound outbound) {

    /** The characters a policy name may use; it goes into Redis keys and header values as is. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    public Policy {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("policy name '" + name
                    + "' must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit");
        }
        limits = List.copyOf(limits);
        planLimits = Map.copyOf(planLimits);
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(cost, "cost");
        Objects.requireNonNull(algorithm, "algorithm");
        keyText = keyText == null ? "?" : keyText;
        refusal = refusal == null ? Refusal.STANDARD : refusal;
        outbound = outbound == null ? Outbound.DEFAULT : outbound;
        List<List<Limit>> all = new ArrayList<>(planLimits.values());
        all.add(limits);
        for (List<Limit> set : all) {
            if (set.isEmpty() && concurrency == null) {
                throw new IllegalArgumentException("policy '" + name + "' has no limit");
            }
            for (Limit limit : set) {
                requireCostFits(limit, cost.max());
                requireAlgorithmFits(limit, algorithm);
            }
        }
        if (prefetch != null) {
            requirePrefetchFits(algorithm, concurrency);
            for (List<Limit> set : all) {
                for (Limit limit : set) {
                    requirePrefetchFits(limit, prefetch);
                }
            }
        }
    }

    /** A policy refused with its own answer, without token leasing, with the default outbound settings. */
    public Policy(String name, List<Limit> limits, Map<String, List<Limit>> planLimits, KeyResolver key,
                  String keyText, RequestMatcher match, Mode mode, Costs cost, Algorithm algorithm,
                  FailureMode failureMode, Concurrency concurrency, Refusal refusal) {
        this(name, limits, planLimits, key, keyText, match, mode, cost, algorithm, failureMode, concurrency, refusal,
                null, Outbound.DEFAULT);
    }

    /** A policy refused with the standard answer (the form before refusals could be shaped). */
    public Policy(String name, List<Limit> limits, Map<String, List<Limit>> planLimits, KeyResolver key,
                  String keyText, RequestMatcher match, Mode mode, Costs cost, Algorithm algorithm,
                  FailureMode failureMode, Concurrency concurrency) {
        this(name, limits, planLimits, key, keyText, match, mode, cost, algorithm, failureMode, concurrency,
                Refusal.STANDARD, null, Outbound.DEFAULT);
    }

    /** A policy with the default outbound settings (the form before outbound calls could be limited). */
    public Policy(String name, List<Limit> limits, Map<String, List<Limit>> planLimits, KeyResolver key,
                  String keyText, RequestMatcher match, Mode mode, Costs cost, Algorithm algorithm,
                  FailureMode failureMode, Concurrency concurrency, Refusal refusal, Prefetch prefetch) {
        this(name, limits, planLimits, key, keyText, match, mode, cost, algorithm, failureMode, concurrency, refusal,
                prefetch, Outbound.DEFAULT);
    }

    /** This policy, its refusals answered as {@code shaped} says. */
    public Policy withRefusal(Refusal shaped) {
        return new Policy(name, limits, planLimits, key, keyText, match, mode, cost, algorithm, failureMode,
                concurrency, shaped, prefetch, outbound);
    }

    /**
     * One call takes the prefetched tokens from every limit at once, so each limit must hold them;
     * and a node may take k tokens every hold even for a client that uses one, so k per hold must
     * stay within the rate, or leasing alone would empty the bucket of a client under its limit.
     *
     * @throws IllegalArgumentException saying why it could not
     */
    public static void requirePrefetchFits(Limit limit, Prefetch prefetch) {
        long tokens = prefetch.tokens();
        if (tokens > limit.capacity()) {
            throw new IllegalArgumentException("a prefetch of " + tokens + " tokens could never be taken from '" + limit
                    + "', whose burst is " + limit.capacity());
        }
        long perHold = maxPrefetch(limit, prefetch.hold());
        if (tokens > perHold) {
            throw new IllegalArgumentException("a prefetch of " + tokens + " tokens every " + prefetch.hold().toMillis()
                    + " ms takes more than '" + limit + "' refills in that time (" + perHold + "): a client under its"
                    + " limit would find its bucket emptied by tokens a node drops");
        }
    }

    /** The most tokens a limit refills in {@code hold}: what one node may take per hold. */
    public static long maxPrefetch(Limit limit, java.time.Duration hold) {
        long holdMicros = hold.toNanos() / 1000;
        if (Math.multiplyHigh(holdMicros, limit.refillTokens()) != 0) {
            return Long.MAX_VALUE;
        }
        return holdMicros * limit.refillTokens() / limit.refillPeriodMicros();
    }

    /**
     * Leasing keeps the token bucket's bound only: a sliding log or a calendar quota would count
     * handed-out tokens at the moment they were taken (a window's promise broken), and a
     * concurrency slot is taken per request anyway.
     *
     * @throws IllegalArgumentException saying why leasing does not fit
     */
    public static void requirePrefetchFits(Algorithm algorithm, Concurrency concurrency) {
        if (algorithm != Algorithm.TOKEN_BUCKET) {
            throw new IllegalArgumentException("prefetch leases token-bucket tokens only; a "
                    + (algorithm == Algorithm.SLIDING_LOG ? "sliding log" : "calendar quota")
                    + " counts every request at the moment it is admitted");
        }
        if (concurrency != null) {
            throw new IllegalArgumentException("prefetch cannot save the store call that takes a concurrency slot;"
                    + " put the concurrency limit in a policy of its own");
        }
    }

    /** This policy, limiting outbound calls as {@code calls} says. */
    public Policy withOutbound(Outbound calls) {
        return new Policy(name, limits, planLimits, key, keyText, match, mode, cost, algorithm, failureMode,
                concurrency, refusal, prefetch, calls);
    }

    /** A policy of one token-bucket limit set, for every request, by address. */
    public static Policy of(String name, List<Limit> limits, KeyResolver key, RequestMatcher match) {
        return new Policy(name, limits, Map.of(), key, "custom", match, Mode.ENFORCE, Costs.ONE, Algorithm.TOKEN_BUCKET, null, null);
    }

    /**
     * A request of the highest cost must be able to pass the limit.
     *
     * @throws IllegalArgumentException saying why it could not
     */
    public static void requireCostFits(Limit limit, long maxCost) {
        if (maxCost > limit.capacity()) {
            throw new IllegalArgumentException("a request costing " + maxCost + " tokens could never pass '" + limit
                    + "', whose burst is " + limit.capacity());
        }
    }

    /**
     * A sliding log needs a whole number of requests per window, and at most
     * {@value Algorithm#MAX_LOG_ENTRIES} of them; calendar quotas and rates do not share a policy.
     *
     * @throws IllegalArgumentException saying why the limit does not fit the algorithm
     */
    public static void requireAlgorithmFits(Limit limit, Algorithm algorithm) {
        if (limit.isCalendar() != (algorithm == Algorithm.CALENDAR)) {
            throw new IllegalArgumentException("'" + limit + "': a policy's limits are all calendar quotas or all"
                    + " rates; put the " + (limit.isCalendar() ? "calendar quota" : "rate") + " in a policy of its own"
                    + " (all policies of a request are checked all-or-nothing)");
        }
        if (algorithm == Algorithm.SLIDING_LOG) {
            if (!limit.isCountPerWindow()) {
                throw new IllegalArgumentException("'" + limit + "': the sliding log counts a whole number of requests"
                        + " per window; it takes no burst and no fraction");
            }
            if (limit.capacity() > Algorithm.MAX_LOG_ENTRIES) {
                throw new IllegalArgumentException("'" + limit + "': the sliding log keeps one entry per request in the"
                        + " window, at most " + Algorithm.MAX_LOG_ENTRIES + " per client; use the token bucket for more");
            }
        }
    }

    /** The limits for a plan ({@code null}: no plans, the default limits). */
    public List<Limit> limitsFor(String plan) {
        if (plan == null) {
            return limits;
        }
        return planLimits.getOrDefault(plan, limits);
    }

    /** Every plan's limits, the default ones first. */
    public Map<String, List<Limit>> allLimits() {
        Map<String, List<Limit>> all = new LinkedHashMap<>();
        all.put("", limits);
        all.putAll(planLimits);
        return all;
    }

    /**
     * Whether {@code match} was configured (even as {@code /**}); {@code false} when it is the
     * default {@link RequestMatcher#ALL}. A limiter applies a policy that code of its application
     * names ({@code @RateLimited}, {@link Integration#declareNamedInCode}) by path only when it has
     * a match of its own.
     */
    public boolean hasOwnMatch() {
        return match != RequestMatcher.ALL;
    }

    /**
     * The name the limit at {@code index} of a set of {@code count} limits carries in the
     * {@code RateLimit} and {@code RateLimit-Policy} headers: the policy's name when it has one
     * limit, else the name with {@code -1}, {@code -2}, ...
     */
    public String limitName(int index, int count) {
        return count == 1 ? name : name + "-" + (index + 1);
    }
}
