package dev.tollgate.internal.http;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import java.util.List;

/**
 * What {@link HttpContract} writes for a policy and its limits that does not change from one
 * request to the next, written once instead of per answer: the {@code RateLimit-Policy} items
 * (names, quotas, windows), each limit's {@code RateLimit} name, and the problem document of a
 * refusal by this policy alone but for its seconds, per set of refusing limits. Each text is the
 * one {@link HttpContract} would write in full (the same code writes both), and is kept only for
 * the policy object and the limits it was written for: a result of another policy, of another
 * plan's limits, or of a configuration reloaded since is written again.
 *
 * <p>Bounded: {@value #SLOTS} slots, by the policy object's identity; a slot holds the newest
 * policy that falls in it, so more policies in use than slots only cost a rewrite now and then.
 * A slot may keep a policy of an earlier configuration (a few hundred bytes) until another takes
 * its place.
 *
 * <p>Thread-safe without a lock: an instance is immutable but for its cache of problem parts,
 * whose elements are immutable values written racily; a thread that does not see another's
 * write writes the same text again.
 */
final class PolicyTexts {

    /** A power of two. */
    static final int SLOTS = 64;
    /** The most limits whose refusal sets are kept (2^4 sets); a policy with more writes its problem in full. */
    private static final int MAX_KEPT_LIMITS = 4;

    private static final PolicyTexts[] CACHE = new PolicyTexts[SLOTS];

    /**
     * A problem document cut around its seconds: {@code head + seconds + middle + seconds + "}"}.
     * The last document written is kept with its seconds: refusals of one window mostly say the
     * same seconds, and then they answer the same string (which lets an adapter keep its bytes).
     */
    static final class Problem {
        private final String head;
        private final String middle;
        /** Written and read without a lock: an immutable value; a thread that misses another's write writes its own. */
        private Written last;

        private record Written(long seconds, String body) {
        }

        Problem(String head, String middle) {
            this.head = head;
            this.middle = middle;
        }

        String head() {
            return head;
        }

        String middle() {
            return middle;
        }

        /** The document for these seconds. */
        String body(long seconds) {
            Written w = last;
            if (w != null && w.seconds() == seconds) {
                return w.body();
            }
            String body = head + seconds + middle + seconds + '}';
            last = new Written(seconds, body);
            return body;
        }
    }

    private final Policy policy;
    private final Limit[] limits;
    private final String draftPolicy;
    private final String[] draftState;
    private final Problem[] problems;

    private PolicyTexts(PolicyResult r) {
        this.policy = r.policy();
        List<LimitState> states = r.limits();
        this.limits = new Limit[states.size()];
        this.draftState = new String[states.size()];
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < states.size(); i++) {
            LimitState s = states.get(i);
            limits[i] = s.limit();
            if (r.isConcurrency(s)) {
                continue; // the draft has no field for it
            }
            Limit l = s.limit();
            String name = r.limitName(i);
            if (items.length() > 0) {
                items.append(", ");
            }
            items.append('"').append(name).append("\";q=").append(l.capacity())
                    .append(";w=").append(Math.max(1, HttpContract.seconds(l.microsToFill())));
            draftState[i] = '"' + name + "\";r=";
        }
        this.draftPolicy = items.length() == 0 ? null : items.toString();
        this.problems = states.size() <= MAX_KEPT_LIMITS ? new Problem[1 << states.size()] : null;
    }

    /** The texts of a result's policy and limits, kept or written now. */
    static PolicyTexts of(PolicyResult r) {
        Policy p = r.policy();
        int slot = System.identityHashCode(p) & (SLOTS - 1);
        PolicyTexts t = CACHE[slot];
        if (t != null && t.fits(p, r.limits())) {
            return t;
        }
        t = new PolicyTexts(r);
        CACHE[slot] = t;
        return t;
    }

    /** Whether these texts were written for this policy object and limits equal to these, in order. */
    private boolean fits(Policy p, List<LimitState> states) {
        if (policy != p || limits.length != states.size()) {
            return false;
        }
        for (int i = 0; i < limits.length; i++) {
            Limit l = states.get(i).limit();
            if (limits[i] != l && !limits[i].equals(l)) {
                return false;
            }
        }
        return true;
    }

    /** This result's {@code RateLimit-Policy} items, {@code null} when it has no rate limit. */
    String draftPolicy() {
        return draftPolicy;
    }

    /** The start of limit {@code i}'s {@code RateLimit} item, up to its remaining tokens; {@code null} for the concurrency limit. */
    String draftState(int i) {
        return draftState[i];
    }

    /**
     * The problem document of a refusal by this result's policy alone, cut around its seconds;
     * {@code null} when the policy has more limits than are kept.
     */
    Problem problem(PolicyResult r) {
        if (problems == null) {
            return null;
        }
        List<LimitState> states = r.limits();
        int refusing = 0;
        for (int i = 0; i < states.size(); i++) {
            if (!states.get(i).admits()) {
                refusing |= 1 << i;
            }
        }
        Problem p = problems[refusing];
        if (p == null) {
            p = HttpContract.problemParts(List.of(r), policy.refusal());
            problems[refusing] = p;
        }
        return p;
    }
}
