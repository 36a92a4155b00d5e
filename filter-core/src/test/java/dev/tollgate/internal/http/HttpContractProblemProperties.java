package dev.tollgate.internal.http;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Algorithm;
import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.adapter.Integration;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.Refusal;
import dev.tollgate.config.HeaderStyle;
import dev.tollgate.testing.Gens;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The refusal's body and the decided-policies attribute, written on every refusal and so kept
 * cheap, against reference models that build them the plain way: the problem document as it was
 * assembled from concatenated pieces, and the attribute as an ordered set copied.
 */
class HttpContractProblemProperties {

    static final List<Limit> RATES = Limit.parse("10/s burst 20; 1000/day");
    static final Limit QUOTA = Limit.parse("1000/month calendar").get(0);
    /** A shaped refusal whose title needs escaping in JSON (a quote, a backslash). */
    static final Refusal SHAPED = new Refusal(503, "https://example.com/problems/partner", "Partner \"quota\" \\ used up",
            List.of(new HttpAnswer.Header("X-Reason", "quota")));

    /** One policy's result: one or two rate limits or a calendar quota, each admitting or not. */
    static Gen<PolicyResult> result() {
        Gen<String> names = of("default", "api", "partner.v2", "a-b_c");
        // six parts: the limits (how many rates, or a quota) zipped first, then the rest
        Gen<List<Limit>> limitsOf = ints(1, 2).zip(bools(), (rates, quota) -> quota ? List.of(QUOTA) : RATES.subList(0, rates));
        return names.zip(limitsOf, lists(longs(0, 3), 3), longs(1, 90_000_000L), of(Refusal.STANDARD, SHAPED),
                (name, limits, remaining, retry, refusal) -> {
                    // a policy's limits are all rates or one calendar quota
                    boolean quota = limits.get(0).isCalendar();
                    Policy p = Policy.builder(name).limits(limits).key(r -> null, "custom")
                            .algorithm(quota ? Algorithm.CALENDAR : Algorithm.TOKEN_BUCKET).refusal(refusal).build();
                    List<LimitState> states = new ArrayList<>();
                    for (int i = 0; i < limits.size(); i++) {
                        boolean refuses = remaining.get(i) == 0;
                        states.add(new LimitState(limits.get(i), remaining.get(i), 100_000, 2_000_000, refuses ? retry : 0));
                    }
                    return new PolicyResult(p, "header.x-client-id=c", null, states);
                });
    }

    @Test
    void aRefusalsBodyIsTheReferenceDocument() {
        qt(500).forAll(results()).checkAssert(HttpContractProblemProperties::aRefusalsBodyIsTheReferenceDocument);
    }

    private static void aRefusalsBodyIsTheReferenceDocument(List<PolicyResult> results) {
        Decision d = new Decision(Decision.Verdict.DENY, results, 1_000_000, Decision.Source.REDIS);
        HttpAnswer a = HttpContract.answer(d, HeaderStyle.DRAFT);
        long seconds = HttpContract.retryAfterSeconds(d.retryAfterMicros());
        Refusal shape = d.denying().isEmpty() ? Refusal.STANDARD : d.denying().get(0).policy().refusal();
        assertEquals(referenceProblem(d, seconds, shape), a.body());
        assertEquals(shape.status(), a.status());
    }

    @Test
    void theDecidedAttributeIsTheReferenceSet() {
        qt(500).forAll(results(), earlier()).checkAssert(HttpContractProblemProperties::theDecidedAttributeIsTheReferenceSet);
    }

    private static void theDecidedAttributeIsTheReferenceSet(List<PolicyResult> results, Object earlier) {
        Decision d = new Decision(Decision.Verdict.ALLOW, results, 0, Decision.Source.REDIS);
        Set<String> got = Integration.decided(earlier, d);
        Set<String> want = referenceDecided(earlier, d);
        assertEquals(want, got);
        assertEquals(List.copyOf(want).size(), got.size());
    }

    static Gen<List<PolicyResult>> results() {
        return HttpContractTextsProperties.uniqueByName(result(), 0, 3);
    }

    /** {@code null}, not a set, or a set of up to two names (each size as likely), made anew each time. */
    static Gen<Object> earlier() {
        Gen<Object> set = frequency(
                weight(2, just(List.<String>of())),
                weight(1, just(List.of("default"))), weight(1, just(List.of("other"))),
                weight(1, just(List.of("default", "other"))), weight(1, just(List.of("other", "default"))))
                .map(names -> (Object) new HashSet<>(names));
        return frequency(weight(1, Gens.<Object>just(null)), weight(1, Gens.<Object>just("not a set")), weight(1, set));
    }

    /** The attribute's value built the plain way: what was named before, then the decision's policies, in order. */
    static Set<String> referenceDecided(Object earlier, Decision decision) {
        Set<String> out = new LinkedHashSet<>();
        if (earlier instanceof Set<?> names) {
            for (Object n : names) {
                if (n instanceof String s) {
                    out.add(s);
                }
            }
        }
        for (PolicyResult r : decision.results()) {
            out.add(r.policy().name());
        }
        return Set.copyOf(out);
    }

    /** The problem document assembled piece by piece, as HttpContract wrote it before it used one builder. */
    static String referenceProblem(Decision decision, long seconds, Refusal shape) {
        StringBuilder violated = new StringBuilder();
        StringBuilder policies = new StringBuilder();
        StringBuilder concurrent = new StringBuilder();
        StringBuilder quotas = new StringBuilder();
        for (PolicyResult r : decision.denying()) {
            boolean rate = false;
            boolean quota = false;
            for (int i = 0; i < r.limits().size(); i++) {
                LimitState s = r.limits().get(i);
                if (!s.admits() && r.isConcurrency(s)) {
                    concurrent.append(concurrent.length() > 0 ? ", " : "").append('\'').append(r.policy().name())
                            .append("' (").append(s.limit().capacity()).append(" in flight)");
                } else if (!s.admits() && s.limit().isCalendar()) {
                    quota = true;
                } else if (!s.admits()) {
                    rate = true;
                }
            }
            if (quota) {
                quotas.append(quotas.length() > 0 ? ", " : "").append('\'').append(r.policy().name()).append('\'');
            }
            if (rate) {
                policies.append(policies.length() > 0 ? ", " : "").append('\'').append(r.policy().name()).append('\'');
            }
            for (int i = 0; i < r.limits().size(); i++) {
                if (!r.limits().get(i).admits()) {
                    if (violated.length() > 0) {
                        violated.append(',');
                    }
                    violated.append('"').append(r.limitName(i)).append('"');
                }
            }
        }
        return "{\"type\":\"" + shape.type().replace("\\", "\\\\").replace("\"", "\\\"") + "\","
                + "\"title\":\"" + shape.title().replace("\\", "\\\\").replace("\"", "\\\"") + "\","
                + "\"status\":" + shape.status() + ","
                + "\"detail\":\"" + (policies.length() > 0 ? "Rate limit of policy " + policies + " exceeded; " : "")
                + (quotas.length() > 0 ? "Calendar quota of policy " + quotas + " used up; " : "")
                + (concurrent.length() > 0 ? "Concurrency limit of policy " + concurrent + " reached; " : "")
                + "retry in " + seconds + " s.\","
                + "\"violated-policies\":[" + violated + "],"
                + "\"retry-after\":" + seconds + "}";
    }
}
