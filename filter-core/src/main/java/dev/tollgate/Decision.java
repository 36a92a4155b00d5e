package dev.tollgate;

import java.util.ArrayList;
import java.util.List;

/**
 * What Tollgate decided for one request.
 *
 * <p>A refusal is a value, not an exception. Immutable and thread-safe (its {@link Permit} changes
 * once, atomically, when released).
 *
 * @param verdict          allow, deny (429) or unavailable (503, Redis down in {@code closed} mode)
 * @param results          one result per policy that applied, in the order the policies are configured
 * @param retryAfterMicros when denied, how long until every refusing limit would admit the request
 * @param source           who decided
 * @param permit           the concurrency slots an admitted request holds, to {@link Permit#release()}
 *                         when its response has completed; {@link Permit#NONE} when it holds none
 */
public record Decision(Verdict verdict, List<PolicyResult> results, long retryAfterMicros, Source source,
                       Permit permit) {

    /** The three answers an adapter can give. */
    public enum Verdict {
        /** Let the request through (shadow denials included). */
        ALLOW,
        /** Answer 429 Too Many Requests. */
        DENY,
        /** Answer 503: the store failed and the failure mode is {@code closed}. */
        UNAVAILABLE
    }

    /** Where a decision came from. */
    public enum Source {
        /** The shared Redis store. */
        REDIS,
        /** The in-memory store of this node (configured, or the fallback while Redis fails). */
        LOCAL,
        /**
         * This node's memory of a refusal that Redis gave for the same bucket, cost and limits,
         * still in force (the deny cache, {@code tollgate.deny-cache}); Redis was not asked.
         */
        CACHE,
        /**
         * Tokens this node took from Redis ahead, for this bucket, with one call for many requests
         * (token leasing, {@code tollgate.policy.<name>.prefetch}); Redis was not asked for this request.
         */
        LEASE,
        /** No store: no policy applied, Tollgate is disabled, or Redis failed in open or closed mode. */
        NONE
    }

    private static final Decision NO_POLICY = new Decision(Verdict.ALLOW, List.of(), 0, Source.NONE);

    /** A decision that holds no concurrency slot. */
    public Decision(Verdict verdict, List<PolicyResult> results, long retryAfterMicros, Source source) {
        this(verdict, results, retryAfterMicros, source, Permit.NONE);
    }

    public Decision {
        results = List.copyOf(results);
        if (permit == null) {
            permit = Permit.NONE;
        }
        if (retryAfterMicros < 0) {
            throw new IllegalArgumentException("retryAfterMicros < 0");
        }
    }

    /** The decision when no policy covers the request. */
    public static Decision noPolicy() {
        return NO_POLICY;
    }

    /** Whether the request may go on to the application. */
    public boolean allowed() {
        return verdict == Verdict.ALLOW;
    }

    /** The enforcing policies that refused the request (empty when allowed). */
    public List<PolicyResult> denying() {
        List<PolicyResult> out = new ArrayList<>(1);
        for (int i = 0; i < results.size(); i++) { // by index: asked for every refusal, no iterator
            PolicyResult r = results.get(i);
            if (r.policy().mode() == Mode.ENFORCE && r.denied()) {
                out.add(r);
            }
        }
        return out;
    }

    /** The shadow policies that would have refused the request. */
    public List<PolicyResult> shadowDenying() {
        List<PolicyResult> out = new ArrayList<>(1);
        for (int i = 0; i < results.size(); i++) { // by index: asked for every refusal, no iterator
            PolicyResult r = results.get(i);
            if (r.policy().mode() == Mode.SHADOW && r.denied()) {
                out.add(r);
            }
        }
        return out;
    }
}
