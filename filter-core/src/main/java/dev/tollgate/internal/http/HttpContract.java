package dev.tollgate.internal.http;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.HttpAnswer.Header;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Mode;
import dev.tollgate.PolicyResult;
import dev.tollgate.Refusal;
import dev.tollgate.config.HeaderStyle;
import dev.tollgate.internal.local.Gcra;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a decision into headers and, on refusal, a status and a problem document. Shared by the
 * servlet and JAX-RS adapters so that both speak exactly the same HTTP.
 *
 * <p>Headers follow draft-ietf-httpapi-ratelimit-headers-11: for each limit of each enforcing
 * policy that applied, {@code RateLimit-Policy: "<name>";q=<burst>;w=<seconds to refill the burst>}
 * and {@code RateLimit: "<name>";r=<remaining>;t=<seconds until more quota>} (on a refusal by
 * that limit, {@code t} is the seconds until it would admit the request). Shadow policies are
 * invisible to clients.
 *
 * <p>The draft has no field for a concurrency limit: its state is in no header. A request it
 * refuses gets {@code Retry-After} (until the oldest slot's lease expires: by then a slot is free
 * unless another request took it) and a problem naming the policy and saying it is a concurrency
 * limit; the rate limits of the request keep their fields.
 */
public final class HttpContract {

    public static final String QUOTA_EXCEEDED = Refusal.QUOTA_EXCEEDED;
    public static final String REDUCED_CAPACITY = "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    private HttpContract() {
    }

    /** The answer while no limiter runs (see {@link dev.tollgate.adapter.Integration#notStartedAnswer()}). */
    public static HttpAnswer notStarted() {
        return new HttpAnswer(503, List.of(new Header("Retry-After", "1")), "application/problem+json",
                "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
                        + "\"detail\":\"The rate limiter did not start.\"}");
    }

    public static HttpAnswer answer(Decision decision, HeaderStyle style) {
        return answer(decision, style, 0);
    }

    /**
     * @param jitterSeconds the most whole seconds added at random to {@code Retry-After}, so that
     *                      refused clients do not all come back at once; never subtracted
     */
    public static HttpAnswer answer(Decision decision, HeaderStyle style, long jitterSeconds) {
        // Sized for the most an answer adds: two draft, three legacy, Retry-After, then a shaped
        // refusal's own headers; made into a list once, without the copies of a growing list.
        Header[] headers = null;
        int n = 0;
        if (style.draft()) {
            headers = new Header[6];
            n = draft(decision, headers, n);
        }
        if (style.legacy()) {
            if (headers == null) {
                headers = new Header[6];
            }
            n = legacy(decision, headers, n);
        }
        switch (decision.verdict()) {
            case ALLOW:
                return n == 0 ? HttpAnswer.PASS : new HttpAnswer(0, listOf(headers, n), null, null);
            case DENY: {
                long seconds = retryAfterSeconds(decision.retryAfterMicros())
                        + (jitterSeconds > 0 ? java.util.concurrent.ThreadLocalRandom.current().nextLong(jitterSeconds + 1) : 0);
                List<PolicyResult> denying = decision.denying(); // once: shape and problem both read it
                Refusal shape = shape(denying);
                List<Header> extra = shape.headers();
                if (headers == null || n + 1 + extra.size() > headers.length) {
                    headers = headers == null ? new Header[1 + extra.size()] : Arrays.copyOf(headers, n + 1 + extra.size());
                }
                headers[n++] = new Header("Retry-After", Long.toString(seconds));
                for (int i = 0; i < extra.size(); i++) {
                    headers[n++] = extra.get(i);
                }
                return new HttpAnswer(shape.status(), listOf(headers, n), "application/problem+json",
                        problem(denying, seconds, shape));
            }
            default: {
                List<Header> all = new ArrayList<>(n + 1);
                for (int i = 0; i < n; i++) {
                    all.add(headers[i]);
                }
                all.add(new Header("Retry-After", "1"));
                StringBuilder names = new StringBuilder();
                for (PolicyResult r : decision.results()) {
                    names.append(names.length() > 0 ? "," : "").append('"').append(r.policy().name()).append('"');
                }
                return new HttpAnswer(503, all, "application/problem+json",
                        "{\"type\":\"" + REDUCED_CAPACITY + "\","
                                + "\"title\":\"Request cannot be satisfied due to temporary server capacity constraints\","
                                + "\"status\":503,"
                                + "\"detail\":\"The rate limiter cannot reach its store, and these policies refuse requests"
                                + " until it can.\",\"violated-policies\":[" + names + "],\"retry-after\":1}");
            }
        }
    }

    /**
     * An immutable list of the first {@code n} headers, which {@link HttpAnswer} keeps without
     * copying it again: up to three made directly, more through one copy of the array.
     */
    private static List<Header> listOf(Header[] h, int n) {
        return switch (n) {
            case 0 -> List.of();
            case 1 -> List.of(h[0]);
            case 2 -> List.of(h[0], h[1]);
            case 3 -> List.of(h[0], h[1], h[2]);
            default -> List.of(Arrays.copyOf(h, n));
        };
    }

    /**
     * The first refusing policy in configuration order shapes the refusal: one answer has one
     * status, and the order of {@code tollgate.policies} is the operator's to choose.
     */
    static Refusal shape(Decision decision) {
        return shape(decision.denying());
    }

    private static Refusal shape(List<PolicyResult> denying) {
        return denying.isEmpty() ? Refusal.STANDARD : denying.get(0).policy().refusal();
    }

    /** Whole seconds, rounded up, at least 1: never earlier than the moment the request could pass. */
    public static long retryAfterSeconds(long micros) {
        return Math.max(1, Gcra.ceilDiv(micros, 1_000_000));
    }

    static long seconds(long micros) {
        return Gcra.ceilDiv(micros, 1_000_000);
    }

    /**
     * {@code RateLimit-Policy} and {@code RateLimit}. What is fixed for a policy and its limits
     * (names, quotas, windows) is written once per policy ({@link PolicyTexts}); only the state
     * (remaining, seconds) is written per request.
     */
    private static int draft(Decision decision, Header[] headers, int n) {
        List<PolicyResult> results = decision.results();
        String policy = null;
        StringBuilder state = null;
        for (int p = 0; p < results.size(); p++) { // by index: no iterator per request
            PolicyResult r = results.get(p);
            if (r.policy().mode() != Mode.ENFORCE) {
                continue;
            }
            PolicyTexts texts = PolicyTexts.of(r);
            if (texts.draftPolicy() == null) {
                continue; // only a concurrency limit: no field
            }
            policy = policy == null ? texts.draftPolicy() : policy + ", " + texts.draftPolicy();
            List<LimitState> limits = r.limits();
            for (int i = 0; i < limits.size(); i++) {
                String name = texts.draftState(i);
                if (name == null) {
                    continue;
                }
                LimitState s = limits.get(i);
                if (state == null) {
                    state = new StringBuilder(texts.draftPolicy().length() + 8);
                } else {
                    state.append(", ");
                }
                long t = s.admits() ? s.nextMicros() : s.retryAfterMicros();
                state.append(name).append(s.remaining()).append(";t=").append(seconds(t));
            }
        }
        if (policy != null) {
            headers[n++] = new Header("RateLimit-Policy", policy);
            headers[n++] = new Header("RateLimit", state.toString());
        }
        return n;
    }

    /** The legacy trio, for the limit closest to refusing (fewest remaining, then longest reset). */
    private static int legacy(Decision decision, Header[] headers, int n) {
        LimitState binding = null;
        for (PolicyResult r : decision.results()) {
            if (r.policy().mode() != Mode.ENFORCE) {
                continue;
            }
            for (LimitState s : r.limits()) {
                if (r.isConcurrency(s)) {
                    continue;
                }
                if (binding == null || s.remaining() < binding.remaining()
                        || (s.remaining() == binding.remaining() && s.resetMicros() > binding.resetMicros())) {
                    binding = s;
                }
            }
        }
        if (binding != null) {
            headers[n++] = new Header("X-RateLimit-Limit", Long.toString(binding.limit().capacity()));
            headers[n++] = new Header("X-RateLimit-Remaining", Long.toString(binding.remaining()));
            headers[n++] = new Header("X-RateLimit-Reset", Long.toString(seconds(binding.resetMicros())));
        }
        return n;
    }

    /**
     * The problem document. Every refusal answers one, so it is written into one builder sized
     * once, not assembled from pieces, and the parts a refusal does not have are never made.
     */
    private static String problem(List<PolicyResult> denying, long seconds, Refusal shape) {
        if (denying.size() == 1) {
            // One refusing policy, the common case: everything but the seconds is the policy's,
            // written once for the limits that refused ({@link PolicyTexts#problem}).
            PolicyTexts.Problem fixed = PolicyTexts.of(denying.get(0)).problem(denying.get(0));
            if (fixed != null) {
                return fixed.body(seconds);
            }
        }
        return problemOf(denying, seconds, shape);
    }

    /** The problem document written in full, for more than one refusing policy. */
    private static String problemOf(List<PolicyResult> denying, long seconds, Refusal shape) {
        PolicyTexts.Problem parts = problemParts(denying, shape);
        return parts.head() + seconds + parts.middle() + seconds + '}';
    }

    /**
     * The problem document but its seconds, which come after {@code head} and after
     * {@code middle}, followed by a closing brace; what {@link PolicyTexts} keeps for one policy.
     */
    static PolicyTexts.Problem problemParts(List<PolicyResult> denying, Refusal shape) {
        StringBuilder violated = new StringBuilder(32);
        StringBuilder policies = null;
        StringBuilder concurrent = null;
        StringBuilder quotas = null;
        for (int p = 0; p < denying.size(); p++) {
            PolicyResult r = denying.get(p);
            boolean rate = false;
            boolean quota = false;
            List<LimitState> limits = r.limits();
            for (int i = 0; i < limits.size(); i++) {
                LimitState s = limits.get(i);
                if (!s.admits() && r.isConcurrency(s)) {
                    concurrent = concurrent == null ? new StringBuilder() : concurrent.append(", ");
                    concurrent.append('\'').append(r.policy().name()).append("' (").append(s.limit().capacity())
                            .append(" in flight)");
                } else if (!s.admits() && s.limit().isCalendar()) {
                    quota = true;
                } else if (!s.admits()) {
                    rate = true;
                }
            }
            if (quota) {
                // A calendar quota is not a rate: its client waits for the reset, so say so.
                quotas = quotas == null ? new StringBuilder() : quotas.append(", ");
                quotas.append('\'').append(r.policy().name()).append('\'');
            }
            if (rate) {
                policies = policies == null ? new StringBuilder() : policies.append(", ");
                policies.append('\'').append(r.policy().name()).append('\'');
            }
            for (int i = 0; i < limits.size(); i++) {
                if (!limits.get(i).admits()) {
                    if (violated.length() > 0) {
                        violated.append(',');
                    }
                    violated.append('"').append(r.limitName(i)).append('"');
                }
            }
        }
        // Policy names are restricted to [A-Za-z0-9_.-], so they need no JSON escaping.
        StringBuilder body = new StringBuilder(200 + shape.type().length() + violated.length() * 3);
        body.append("{\"type\":\"").append(json(shape.type())).append("\",")
                .append("\"title\":\"").append(json(shape.title())).append("\",")
                .append("\"status\":").append(shape.status()).append(',')
                .append("\"detail\":\"");
        if (policies != null) {
            body.append("Rate limit of policy ").append(policies).append(" exceeded; ");
        }
        if (quotas != null) {
            body.append("Calendar quota of policy ").append(quotas).append(" used up; ");
        }
        if (concurrent != null) {
            body.append("Concurrency limit of policy ").append(concurrent).append(" reached; ");
        }
        String head = body.append("retry in ").toString();
        body.setLength(0);
        String middle = body.append(" s.\",").append("\"violated-policies\":[").append(violated).append("],")
                .append("\"retry-after\":").toString();
        return new PolicyTexts.Problem(head, middle);
    }

    /** Type and title hold no control character ({@link Refusal}); quotes and backslashes are escaped. */
    private static String json(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
