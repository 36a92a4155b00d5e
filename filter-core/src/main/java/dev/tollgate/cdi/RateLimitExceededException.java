package dev.tollgate.cdi;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.PolicyResult;
import java.util.ArrayList;
import java.util.List;

/**
 * A call to a {@link RateLimited} method was refused: a policy's limit is spent (the answer is
 * 429, or the policy's own refusal status), or the store failed under the {@code closed} failure
 * mode (503). The method did not run. It carries what the filters would have answered, so
 * {@code dev.tollgate.jaxrs.RateLimitExceededMapper} (in {@code filter-jaxrs}) writes the very same
 * response: status, {@code Retry-After}, {@code RateLimit} fields and problem body.
 *
 * <p>Unchecked; thrown from an EJB it reaches the caller wrapped as the container wraps any
 * system exception. It has no stack trace (a refusal is flow control, cheap to make under load).
 * The retry-after is accurate at the time of the refusal only. Immutable; thread-safe.
 */
public class RateLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Decision decision;
    private final transient HttpAnswer answer;
    private final List<String> policies;
    private final long retryAfterSeconds;

    /**
     * @param decision the refusing decision ({@link Decision#allowed()} false)
     * @param answer   what the filters would answer for it ({@code RateLimiter.answer(decision)})
     * @param where    what was called, for the message, e.g. {@code ReportService#export}
     */
    public RateLimitExceededException(Decision decision, HttpAnswer answer, String where) {
        super(message(decision, answer, where), null, false, false);
        this.decision = decision;
        this.answer = answer;
        this.policies = names(decision);
        this.retryAfterSeconds = retryAfterSeconds(decision, answer);
    }

    /** The decision: its verdict ({@code DENY} or {@code UNAVAILABLE}), every policy's result, its source. */
    public Decision decision() {
        return decision;
    }

    /** The names of the enforcing policies that refused the call (empty when the store was unavailable). */
    public List<String> policies() {
        return policies;
    }

    /**
     * Seconds until a call may pass again, as the {@code Retry-After} of {@link #answer()} says
     * (jitter included); 0 when it says nothing.
     */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** The answer the filters would give: status, headers, problem body. */
    public HttpAnswer answer() {
        return answer;
    }

    private static List<String> names(Decision decision) {
        List<String> out = new ArrayList<>(1);
        for (PolicyResult r : decision.denying()) {
            out.add(r.policy().name());
        }
        return List.copyOf(out);
    }

    private static long retryAfterSeconds(Decision decision, HttpAnswer answer) {
        for (HttpAnswer.Header h : answer.headers()) {
            if (h.name().equalsIgnoreCase("Retry-After")) {
                try {
                    return Long.parseLong(h.value().trim());
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        return (decision.retryAfterMicros() + 999_999) / 1_000_000;
    }

    private static String message(Decision decision, HttpAnswer answer, String where) {
        return (decision.verdict() == Decision.Verdict.UNAVAILABLE
                ? "rate limit store unavailable for " + where
                : "rate limit exceeded for " + where + " by " + names(decision))
                + "; retry after " + retryAfterSeconds(decision, answer) + " s";
    }
}
