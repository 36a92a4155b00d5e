package dev.tollgate.internal.http;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.HttpAnswer.Header;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.Refusal;
import dev.tollgate.RequestMatcher;
import dev.tollgate.config.HeaderStyle;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** How a refusal is shaped per policy, and that the unshaped answer is byte for byte the standard one. */
class HttpContractRefusalTest {

    static final Limit LIMIT = Limit.parse("1/s").get(0);
    static final Refusal NGINX = new Refusal(503, "https://example.com/problems/partner", "Partner \"quota\" used up",
            List.of(new Header("X-Reason", "quota"), new Header("Cache-Control", "no-store")));

    static PolicyResult result(String name, Refusal refusal, boolean refused) {
        Policy p = Policy.of(name, List.of(LIMIT), r -> null, RequestMatcher.ALL).withRefusal(refusal);
        long retry = refused ? 1_000_000 : 0;
        return new PolicyResult(p, "ip=192.0.2.1", null, List.of(new LimitState(LIMIT, refused ? 0 : 1, 0, 0, retry)));
    }

    static HttpAnswer deny(PolicyResult... results) {
        return HttpContract.answer(new Decision(Decision.Verdict.DENY, List.of(results), 1_000_000, Decision.Source.LOCAL),
                HeaderStyle.NONE);
    }

    @Test
    void anUnshapedRefusalIsTodaysAnswerExactly() {
        HttpAnswer a = deny(result("default", Refusal.STANDARD, true));
        assertEquals(429, a.status());
        assertEquals(List.of(new Header("Retry-After", "1")), a.headers());
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\",\"status\":429,"
                + "\"detail\":\"Rate limit of policy 'default' exceeded; retry in 1 s.\","
                + "\"violated-policies\":[\"default\"],\"retry-after\":1}", a.body());
    }

    @Test
    void aShapedRefusalHasItsStatusTypeTitleAndHeadersAfterTollgatesOwn() {
        HttpAnswer a = deny(result("partner", NGINX, true));
        assertEquals(503, a.status());
        assertEquals(List.of(new Header("Retry-After", "1"), new Header("X-Reason", "quota"),
                new Header("Cache-Control", "no-store")), a.headers());
        assertEquals("{\"type\":\"https://example.com/problems/partner\","
                + "\"title\":\"Partner \\\"quota\\\" used up\",\"status\":503,"
                + "\"detail\":\"Rate limit of policy 'partner' exceeded; retry in 1 s.\","
                + "\"violated-policies\":[\"partner\"],\"retry-after\":1}", a.body());
    }

    @Test
    void aSpentCalendarQuotaIsCalledAQuotaNotARate() {
        Limit monthly = Limit.parse("3/month calendar").get(0).inZone(java.time.ZoneOffset.UTC);
        Policy p = Policy.builder("monthly").limits(monthly).key(r -> null, "custom")
                .algorithm(dev.tollgate.Algorithm.CALENDAR).build();
        PolicyResult spent = new PolicyResult(p, "ip=192.0.2.1", null,
                List.of(new LimitState(monthly, 0, 0, 0, 1_000_000)));
        HttpAnswer a = deny(spent, result("default", Refusal.STANDARD, true));
        assertTrue(a.body().contains("\"detail\":\"Rate limit of policy 'default' exceeded; "
                + "Calendar quota of policy 'monthly' used up; retry in 1 s.\""), a.body());
    }

    @Test
    void aPolicyThatAdmitsDoesNotShapeTheRefusalOfAnother() {
        HttpAnswer a = deny(result("partner", NGINX, false), result("default", Refusal.STANDARD, true));
        assertEquals(429, a.status());
        assertFalse(a.headers().contains(new Header("X-Reason", "quota")));
    }

    @Test
    void anAllowedRequestCarriesNoRefusalHeader() {
        HttpAnswer a = HttpContract.answer(new Decision(Decision.Verdict.ALLOW, List.of(result("partner", NGINX, false)),
                0, Decision.Source.LOCAL), HeaderStyle.NONE);
        assertTrue(a.passes());
        assertEquals(List.of(), a.headers());
    }

    /**
     * Reference model: the answer's status, type, title and extra headers are those of the first
     * refusing policy in order, and the standard ones when that policy shapes nothing.
     */
    @Test
    void theFirstRefusingPolicyInOrderShapesTheWholeAnswer() {
        qt(300).forAll(policies()).checkAssert(HttpContractRefusalTest::theFirstRefusingPolicyInOrderShapesTheWholeAnswer);
    }

    private static void theFirstRefusingPolicyInOrderShapesTheWholeAnswer(List<Shaped> policies) {
        List<PolicyResult> results = new ArrayList<>();
        for (int i = 0; i < policies.size(); i++) {
            results.add(result("p" + i, policies.get(i).refusal(), policies.get(i).refused()));
        }
        Refusal expected = policies.stream().filter(Shaped::refused).map(Shaped::refusal).findFirst().orElse(Refusal.STANDARD);
        HttpAnswer a = deny(results.toArray(PolicyResult[]::new));
        assertEquals(expected.status(), a.status());
        assertTrue(a.body().contains("\"status\":" + expected.status() + ","), a.body());
        assertTrue(a.body().startsWith("{\"type\":\"" + expected.type() + "\",\"title\":\""
                + expected.title().replace("\"", "\\\"") + "\","), a.body());
        List<Header> extra = a.headers().subList(1, a.headers().size());
        assertEquals(expected.headers(), extra);
    }

    record Shaped(Refusal refusal, boolean refused) {
    }

    static Gen<List<Shaped>> policies() {
        Gen<Refusal> shaped = ints(400, 599).zip(
                of("https://example.com/a", "urn:x:quota", "about:blank", Refusal.QUOTA_EXCEEDED),
                of("Slow down", "Too \"many\"", Refusal.QUOTA_EXCEEDED_TITLE),
                of(List.<Header>of(), List.of(new Header("X-Reason", "quota")),
                        List.of(new Header("Cache-Control", "no-store"), new Header("X-A", "1 2"))),
                Refusal::new);
        Gen<Refusal> any = frequency(weight(1, just(Refusal.STANDARD)), weight(2, shaped));
        return lists(any.zip(bools(), Shaped::new), 1, 5);
    }
}
