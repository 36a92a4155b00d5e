package dev.tollgate.internal.http;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.tollgate.Algorithm;
import dev.tollgate.Concurrency;
import dev.tollgate.Decision;
import dev.tollgate.HttpAnswer;
import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Mode;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import dev.tollgate.Refusal;
import dev.tollgate.config.HeaderStyle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link HttpContract} keeps what a policy and its limits always write ({@link PolicyTexts}):
 * every answer it gives must still be, byte for byte, the one its former code writes
 * ({@link HttpContractReference}, the reference model), whatever the policies (rates, a calendar
 * quota, plans with limits of their own, a concurrency limit, shadow mode, a shaped refusal), the
 * states, the verdict and the header style, and whichever answers came before: the texts are
 * kept across calls, so each try answers several decisions in a row, over a pool of policies
 * larger than the cache's slots (slots are taken over) and over policies made anew that equal
 * a kept one without being it.
 */
class HttpContractTextsProperties {

    static final List<Limit> RATES = Limit.parse("10/s burst 20; 1000/day; 5/min burst 7");
    static final List<Limit> GOLD = Limit.parse("100/s burst 200; 50000/day");
    static final Limit QUOTA = Limit.parse("1000/month calendar").get(0);
    static final Refusal SHAPED = new Refusal(503, "https://example.com/problems/partner", "Partner \"quota\" \\ used up",
            List.of(new HttpAnswer.Header("X-Reason", "quota"), new HttpAnswer.Header("Cache-Control", "no-store")));
    static final String[] NAMES = {"default", "api", "partner.v2", "a-b_c"};

    /** More policies than {@link PolicyTexts#SLOTS}, made once: kept texts are found, and slots change hands. */
    static final List<Policy> POOL = pool();

    private static List<Policy> pool() {
        List<Policy> out = new ArrayList<>();
        for (int i = 0; out.size() < PolicyTexts.SLOTS * 2; i++) {
            out.add(policy(NAMES[i % NAMES.length] + (i / NAMES.length == 0 ? "" : "-" + i / NAMES.length), i % 7,
                    i % 2 == 0 ? Mode.ENFORCE : Mode.SHADOW, i % 3 == 0 ? SHAPED : Refusal.STANDARD));
        }
        return out;
    }

    /**
     * A policy of one of seven kinds: one, two or three rates; a calendar quota; two rates with a
     * plan of its own; a concurrency limit alone; two rates and a concurrency limit.
     */
    static Policy policy(String name, int kind, Mode mode, Refusal refusal) {
        List<Limit> limits = switch (kind) {
            case 0 -> RATES.subList(0, 1);
            case 1 -> RATES.subList(0, 2);
            case 2 -> RATES;
            case 3 -> List.of(QUOTA);
            case 5 -> List.of();
            default -> RATES.subList(0, 2);
        };
        Map<String, List<Limit>> plans = kind == 4 ? Map.of("gold", GOLD) : Map.of();
        Concurrency concurrency = kind == 5 || kind == 6 ? new Concurrency(3, Duration.ofMinutes(1)) : null;
        return Policy.builder(name).limits(limits).planLimits(plans).key(r -> null, "custom").mode(mode)
                .algorithm(kind == 3 ? Algorithm.CALENDAR : Algorithm.TOKEN_BUCKET).concurrency(concurrency).refusal(refusal).build();
    }

    static Gen<Policy> anyPolicy() {
        Gen<Policy> fresh = of(NAMES).zip(ints(0, 6), of(Mode.ENFORCE, Mode.SHADOW), of(Refusal.STANDARD, SHAPED),
                HttpContractTextsProperties::policy);
        return frequency(weight(3, of(POOL)), weight(1, fresh));
    }

    /** The numbers a result is made of: per limit, what remains, two times and the wait when it refuses. */
    record States(List<Long> remaining, List<Long> times, List<Long> retries) {
    }

    /** One result of a policy: its (or its plan's) limits, each admitting or refusing, then the concurrency limit's state. */
    static Gen<PolicyResult> result() {
        Gen<States> numbers = lists(longs(0, 3), 4).zip(lists(longs(0, 90_000_000L), 4),
                lists(longs(1, 90_000_000L), 4), States::new);
        return anyPolicy().zip(bools(), numbers, bools(), (p, gold, n, copyLimits) -> {
            List<Long> remaining = n.remaining();
            List<Long> times = n.times();
            List<Long> retries = n.retries();
            List<Limit> limits = gold && !p.planLimits().isEmpty() ? p.limitsFor("gold") : p.limits();
            List<LimitState> states = new ArrayList<>();
            for (int i = 0; i < limits.size(); i++) {
                boolean refuses = remaining.get(i) == 0;
                // a limit equal to the policy's but not the same object, as a store might give back
                Limit l = copyLimits ? Limit.parse(limits.get(i).text()).get(0) : limits.get(i);
                states.add(new LimitState(l, remaining.get(i), times.get(i), times.get(3 - i),
                        refuses ? retries.get(i) : 0));
            }
            if (p.concurrency() != null) {
                boolean refuses = remaining.get(3) == 0;
                states.add(new LimitState(p.concurrency().limit(), remaining.get(3), 0, times.get(3),
                        refuses ? retries.get(3) : 0));
            }
            return new PolicyResult(p, "header.x-client-id=c", gold ? "gold" : null, states);
        });
    }

    static Gen<Decision> decision() {
        return uniqueByName(result(), 0, 3).zip(
                of(Decision.Verdict.values()),
                // mostly a few seconds, so that refusals in a row often say the same seconds (a kept document)
                frequency(weight(1, longs(0, 3_000_000L)), weight(1, longs(0, 90_000_000L))),
                (results, verdict, retry) -> new Decision(verdict, results, retry, Decision.Source.REDIS));
    }

    /**
     * {@code min} to {@code max} results of policies with distinct names, in the order drawn: the
     * first of that many distinct names among twice as many drawn (fewer only when the draws
     * repeat a name that often).
     */
    static Gen<List<PolicyResult>> uniqueByName(Gen<PolicyResult> result, int min, int max) {
        return ints(min, max).zip(lists(result, 2 * max + 2), (size, drawn) -> {
            Set<String> names = new HashSet<>();
            List<PolicyResult> out = new ArrayList<>(size);
            for (PolicyResult r : drawn) {
                if (out.size() < size && names.add(r.policy().name())) {
                    out.add(r);
                }
            }
            return out;
        });
    }

    /** Several decisions answered in a row: texts kept by one are used by the next. */
    static Gen<List<Decision>> decisions() {
        return lists(decision(), 1, 6);
    }

    @Test
    void everyAnswerIsTheReferenceAnswerByteForByte() {
        qt(1000).forAll(decisions(), of(HeaderStyle.values()))
                .checkAssert(HttpContractTextsProperties::everyAnswerIsTheReferenceAnswerByteForByte);
    }

    private static void everyAnswerIsTheReferenceAnswerByteForByte(List<Decision> decisions, HeaderStyle style) {
        for (Decision d : decisions) {
            HttpAnswer want = HttpContractReference.answer(d, style, 0);
            HttpAnswer got = HttpContract.answer(d, style, 0);
            assertEquals(want.status(), got.status());
            assertEquals(want.headers(), got.headers());
            assertEquals(want.contentType(), got.contentType());
            assertEquals(want.body(), got.body());
            assertEquals(want, got);
        }
    }

    /** A kept text is the one written anew for the same policy and limits: asked twice, the same object comes back. */
    @Test
    void aPolicysTextsAreKeptForItsLimits() {
        qt(200).forAll(result()).checkAssert(HttpContractTextsProperties::aPolicysTextsAreKeptForItsLimits);
    }

    private static void aPolicysTextsAreKeptForItsLimits(PolicyResult r) {
        PolicyTexts first = PolicyTexts.of(r);
        assertSame(first, PolicyTexts.of(r));
        assertSame(first, PolicyTexts.of(new PolicyResult(r.policy(), "other", r.plan(), r.limits())));
    }
}
