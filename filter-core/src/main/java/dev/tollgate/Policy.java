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
 * <p>Built by {@link #builder(String)} (or read by {@code TollgateConfig.load}); a setting added
 * later is a builder method, never a broken constructor. Immutable and thread-safe.
 */
public final class Policy {

    /** The characters a policy name may use; it goes into Redis keys and header values as is. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private final String name;
    private final List<Limit> limits;
    private final Map<String, List<Limit>> planLimits;
    private final KeyResolver key;
    private final String keyText;
    private final RequestMatcher match;
    private final Mode mode;
    private final Costs cost;
    private final Algorithm algorithm;
    private final FailureMode failureMode;
    private final Concurrency concurrency;
    private final Refusal refusal;
    private final Prefetch prefetch;
    private final Outbound outbound;

    private Policy(Builder b) {
        Objects.requireNonNull(b.name, "name");
        if (!NAME.matcher(b.name).matches()) {
            throw new IllegalArgumentException("policy name '" + b.name
                    + "' must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit");
        }
        this.name = b.name;
        this.limits = List.copyOf(b.limits);
        this.planLimits = Map.copyOf(b.planLimits);
        this.key = Objects.requireNonNull(b.key, "key: what identifies a client");
        this.keyText = b.keyText == null ? "?" : b.keyText;
        this.match = Objects.requireNonNull(b.match, "match");
        this.mode = Objects.requireNonNull(b.mode, "mode");
        this.cost = Objects.requireNonNull(b.cost, "cost");
        this.algorithm = Objects.requireNonNull(b.algorithm, "algorithm");
        this.failureMode = b.failureMode;
        this.concurrency = b.concurrency;
        this.refusal = b.refusal == null ? Refusal.STANDARD : b.refusal;
        this.prefetch = b.prefetch;
        this.outbound = b.outbound == null ? Outbound.DEFAULT : b.outbound;
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

    /**
     * A policy named {@code name}: enforcing, for every request, one token per request, token
     * bucket, the global failure mode, the standard refusal, no leasing; its limits (or a
     * concurrency limit) and its key must be given.
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder holding this policy, to change some of it. */
    public Builder toBuilder() {
        Builder b = new Builder(name);
        b.limits = limits;
        b.planLimits = planLimits;
        b.key = key;
        b.keyText = keyText;
        b.match = match;
        b.mode = mode;
        b.cost = cost;
        b.algorithm = algorithm;
        b.failureMode = failureMode;
        b.concurrency = concurrency;
        b.refusal = refusal;
        b.prefetch = prefetch;
        b.outbound = outbound;
        return b;
    }

    /** The policy's name, also used in Redis keys and response headers. */
    public String name() {
        return name;
    }

    /** One or more limits, all of which must admit a request (the default plan's). */
    public List<Limit> limits() {
        return limits;
    }

    /** Limits of other plans, by plan name; a plan not listed uses {@link #limits()}. */
    public Map<String, List<Limit>> planLimits() {
        return planLimits;
    }

    /** What identifies a client. */
    public KeyResolver key() {
        return key;
    }

    /** How {@link #key()} was written, for logs and messages. */
    public String keyText() {
        return keyText;
    }

    /** Which requests the policy covers ({@link RequestMatcher#ALL} when not set). */
    public RequestMatcher match() {
        return match;
    }

    /** Enforce or only observe. */
    public Mode mode() {
        return mode;
    }

    /** Tokens a request takes from each limit; at most every capacity. */
    public Costs cost() {
        return cost;
    }

    /** Token bucket, sliding log or calendar quota. */
    public Algorithm algorithm() {
        return algorithm;
    }

    /** What this policy does while Redis fails; {@code null} for the global mode. */
    public FailureMode failureMode() {
        return failureMode;
    }

    /** At most this many requests of one client in flight, or {@code null} for no such limit; a policy with one may have no rate limits. */
    public Concurrency concurrency() {
        return concurrency;
    }

    /** How this policy's refusal is answered. */
    public Refusal refusal() {
        return refusal;
    }

    /** Token leasing, or {@code null} for a store call per request; only for token-bucket rate limits without concurrency, at most the smallest burst. */
    public Prefetch prefetch() {
        return prefetch;
    }

    /** How it limits outbound calls. */
    public Outbound outbound() {
        return outbound;
    }

    /** This policy, its refusals answered as {@code shaped} says. */
    public Policy withRefusal(Refusal shaped) {
        return toBuilder().refusal(shaped).build();
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
        return toBuilder().outbound(calls).build();
    }

    /** A policy of one token-bucket limit set, for every request, by address. */
    public static Policy of(String name, List<Limit> limits, KeyResolver key, RequestMatcher match) {
        return builder(name).limits(limits).key(key, "custom").match(match).build();
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
     * names ({@code @RateLimited}, {@link dev.tollgate.adapter.Integration#declareNamedInCode}) by path only when it has
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

    @Override
    public boolean equals(Object o) {
        return o instanceof Policy p && name.equals(p.name) && limits.equals(p.limits) && planLimits.equals(p.planLimits)
                && key.equals(p.key) && keyText.equals(p.keyText) && match.equals(p.match) && mode == p.mode
                && cost.equals(p.cost) && algorithm == p.algorithm && failureMode == p.failureMode
                && Objects.equals(concurrency, p.concurrency) && refusal.equals(p.refusal)
                && Objects.equals(prefetch, p.prefetch) && outbound.equals(p.outbound);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, limits, planLimits, keyText, mode, algorithm);
    }

    @Override
    public String toString() {
        return "Policy[name=" + name + ", limits=" + limits + ", planLimits=" + planLimits + ", key=" + keyText
                + ", match=" + match + ", mode=" + mode + ", cost=" + cost + ", algorithm=" + algorithm
                + (failureMode != null ? ", failureMode=" + failureMode : "")
                + (concurrency != null ? ", concurrency=" + concurrency : "") + (prefetch != null ? ", prefetch=" + prefetch : "")
                + "]";
    }

    /** Builds a {@link Policy}; checked as a whole by {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private List<Limit> limits = List.of();
        private Map<String, List<Limit>> planLimits = Map.of();
        private KeyResolver key;
        private String keyText;
        private RequestMatcher match = RequestMatcher.ALL;
        private Mode mode = Mode.ENFORCE;
        private Costs cost = Costs.ONE;
        private Algorithm algorithm = Algorithm.TOKEN_BUCKET;
        private FailureMode failureMode;
        private Concurrency concurrency;
        private Refusal refusal = Refusal.STANDARD;
        private Prefetch prefetch;
        private Outbound outbound = Outbound.DEFAULT;

        private Builder(String name) {
            this.name = name;
        }

        /** The default plan's limits, all of which must admit a request. */
        public Builder limits(List<Limit> all) {
            this.limits = all;
            return this;
        }

        /** The default plan's limits, all of which must admit a request. */
        public Builder limits(Limit... all) {
            return limits(List.of(all));
        }

        /** Other plans' limits, by plan name. */
        public Builder planLimits(Map<String, List<Limit>> byPlan) {
            this.planLimits = byPlan;
            return this;
        }

        /** What identifies a client, and how it was written (for logs and messages). */
        public Builder key(KeyResolver resolver, String text) {
            this.key = resolver;
            this.keyText = text;
            return this;
        }

        public Builder match(RequestMatcher requests) {
            this.match = requests;
            return this;
        }

        public Builder mode(Mode m) {
            this.mode = m;
            return this;
        }

        public Builder cost(Costs c) {
            this.cost = c;
            return this;
        }

        public Builder algorithm(Algorithm a) {
            this.algorithm = a;
            return this;
        }

        /** What this policy does while Redis fails; {@code null} for the global mode. */
        public Builder failureMode(FailureMode m) {
            this.failureMode = m;
            return this;
        }

        /** At most this many requests of one client in flight; {@code null} for no such limit. */
        public Builder concurrency(Concurrency c) {
            this.concurrency = c;
            return this;
        }

        public Builder refusal(Refusal r) {
            this.refusal = r;
            return this;
        }

        /** Token leasing; {@code null} for a store call per request. */
        public Builder prefetch(Prefetch p) {
            this.prefetch = p;
            return this;
        }

        public Builder outbound(Outbound o) {
            this.outbound = o;
            return this;
        }

        /**
         * @throws IllegalArgumentException when the policy could never work (no limit, a cost beyond a
         *                                  burst, leasing that does not fit), saying why
         */
        public Policy build() {
            return new Policy(this);
        }
    }
}
