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
import java.util.List;

/**
 * The reference model of {@link HttpContract}'s answers: its code as it was before it kept the
 * fixed texts of a policy ({@link PolicyTexts}) and listed headers without copies, kept here
 * unchanged (but for its name and what only the production class needs) so that
 * {@code HttpContractTextsProperties} can hold the new code's every byte to it.
 */
final class HttpContractReference {

    static final String REDUCED_CAPACITY = "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    private HttpContractReference() {
    }

    /**
     * @param jitterSeconds the most whole seconds added at random to {@code Retry-After}, so that
     *                      refused clients do not all come back at once; never subtracted
     */
    static HttpAnswer answer(Decision decision, HeaderStyle style, long jitterSeconds) {
        List<Header> headers = new ArrayList<>(4);
        if (style.draft()) {
            draft(decision, headers);
        }
        if (style.legacy()) {
            legacy(decision, headers);
        }
        switch (decision.verdict()) {
            case ALLOW:
                return headers.isEmpty() ? HttpAnswer.PASS : new HttpAnswer(0, headers, null, null);
            case DENY: {
                long seconds = retryAfterSeconds(decision.retryAfterMicros())
                        + (jitterSeconds > 0 ? java.util.concurrent.ThreadLocalRandom.current().nextLong(jitterSeconds + 1) : 0);
                headers.add(new Header("Retry-After", Long.toString(seconds)));
                List<PolicyResult> denying = decision.denying(); // once: shape and problem both read it
                Refusal shape = shape(denying);
                if (!shape.headers().isEmpty()) {
                    headers.addAll(shape.headers());
                }
                return new HttpAnswer(shape.status(), headers, "application/problem+json", problem(denying, seconds, shape));
            }
            default: {
                headers.add(new Header("Retry-After", "1"));
                StringBuilder names = new StringBuilder();
                for (PolicyResult r : decision.results()) {
                    names.append(names.length() > 0 ? "," : "").append('"').append(r.policy().name()).append('"');
                }
                return new HttpAnswer(503, headers, "application/problem+json",
                        "{\"type\":\"" + REDUCED_CAPACITY + "\","
                                + "\"title\":\"Request cannot be satisfied due to temporary server capacity constraints\","
                                + "\"status\":503,"
                                + "\"detail\":\"The rate limiter cannot reach its store, and these policies refuse requests"
                                + " until it can.\",\"violated-policies\":[" + names + "],\"retry-after\":1}");
            }
        }
    }

    private static Refusal shape(List<PolicyResult> denying) {
        return denying.isEmpty() ? Refusal.STANDARD : denying.get(0).policy().refusal();
    }

    /** Whole seconds, rounded up, at least 1: never earlier than the moment the request could pass. */
    static long retryAfterSeconds(long micros) {
        return Math.max(1, Gcra.ceilDiv(micros, 1_000_000));
    }

    private static long seconds(long micros) {
        return Gcra.ceilDiv(micros, 1_000_000);
    }

    private static void draft(Decision decision, List<Header> headers) {
        StringBuilder policy = new StringBuilder();
        StringBuilder state = new StringBuilder();
        for (PolicyResult r : decision.results()) {
            if (r.policy().mode() != Mode.ENFORCE) {
                continue;
            }
            List<LimitState> limits = r.limits();
            for (int i = 0; i < limits.size(); i++) {
                LimitState s = limits.get(i);
                if (r.isConcurrency(s)) {
                    continue;
                }
                Limit l = s.limit();
                String name = r.limitName(i);
                if (policy.length() > 0) {
                    policy.append(", ");
                    state.append(", ");
                }
                policy.append('"').append(name).append("\";q=").append(l.capacity())
                        .append(";w=").append(Math.max(1, seconds(l.microsToFill())));
                long t = s.admits() ? s.nextMicros() : s.retryAfterMicros();
                state.append('"').append(name).append("\";r=").append(s.remaining())
                        .append(";t=").append(seconds(t));
            }
        }
        if (policy.length() > 0) {
            headers.add(new Header("RateLimit-Policy", policy.toString()));
            headers.add(new Header("RateLimit", state.toString()));
        }
    }

    /** The legacy trio, for the limit closest to refusing (fewest remaining, then longest reset). */
    private static void legacy(Decision decision, List<Header> headers) {
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
            headers.add(new Header("X-RateLimit-Limit", Long.toString(binding.limit().capacity())));
            headers.add(new Header("X-RateLimit-Remaining", Long.toString(binding.remaining())));
            headers.add(new Header("X-RateLimit-Reset", Long.toString(seconds(binding.resetMicros()))));
        }
    }

    /**
     * The problem document. Every refusal answers one, so it is written into one builder sized
     * once, not assembled from pieces, and the parts a refusal does not have are never made.
     */
    private static String problem(List<PolicyResult> denying, long seconds, Refusal shape) {
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
        return body.append("retry in ").append(seconds).append(" s.\",")
                .append("\"violated-policies\":[").append(violated).append("],")
                .append("\"retry-after\":").append(seconds).append('}').toString();
    }

    /** Type and title hold no control character ({@link Refusal}); quotes and backslashes are escaped. */
    private static String json(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}

