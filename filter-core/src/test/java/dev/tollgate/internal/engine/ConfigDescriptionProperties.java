package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.internal.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The description of generated policies against a model of what it must show: each optional
 * setting either unset, written as its default, or another value; the model says which text
 * must appear and which must not (a setting at its default is not shown).
 */
class ConfigDescriptionProperties {

    /** One generated policy: each field empty when unset. */
    record Generated(Optional<String> mode, Optional<Integer> cost, Optional<String> failureMode,
                     Optional<Integer> status, Optional<String> type, Optional<String> title, Optional<String> header,
                     Optional<Duration> maxWait, Optional<Duration> maxPause, Optional<Duration> prefetchHold) {

        Map<String, String> config() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("tollgate.policies", "p");
            m.put("tollgate.policy.p.limits", "10/s burst 20");
            mode.ifPresent(v -> m.put("tollgate.policy.p.mode", v));
            cost.ifPresent(v -> m.put("tollgate.policy.p.cost", Integer.toString(v)));
            failureMode.ifPresent(v -> m.put("tollgate.policy.p.failure-mode", v));
            status.ifPresent(v -> m.put("tollgate.policy.p.refusal-status", Integer.toString(v)));
            type.ifPresent(v -> m.put("tollgate.policy.p.refusal-type", v));
            title.ifPresent(v -> m.put("tollgate.policy.p.refusal-title", v));
            header.ifPresent(v -> m.put("tollgate.policy.p.refusal-headers", "X-Reason: " + v));
            maxWait.ifPresent(v -> m.put("tollgate.policy.p.max-wait", v.toMillis() + "ms"));
            maxPause.ifPresent(v -> m.put("tollgate.policy.p.max-pause", v.toSeconds() + "s"));
            prefetchHold.ifPresent(v -> {
                m.put("tollgate.policy.p.prefetch", "2");
                m.put("tollgate.policy.p.prefetch-hold", v.toMillis() + "ms");
            });
            return m;
        }

        /** The model: the texts the description must show. */
        List<String> shown() {
            List<String> out = new ArrayList<>();
            out.add("policy p [" + mode.orElse("enforce") + ", limits [10/s burst 20], key ip, match ");
            cost.filter(c -> c != 1).ifPresent(c -> out.add(", cost " + c));
            failureMode.ifPresent(f -> out.add(", failure mode " + f));
            List<String> refusal = new ArrayList<>();
            status.filter(s -> s != 429).ifPresent(s -> refusal.add("status " + s));
            type.filter(t -> !t.equals(STANDARD_TYPE)).ifPresent(t -> refusal.add("type " + t));
            title.filter(t -> !t.equals(STANDARD_TITLE)).ifPresent(t -> refusal.add("title '" + t + "'"));
            header.ifPresent(h -> refusal.add("headers [X-Reason: " + h + "]"));
            if (!refusal.isEmpty()) {
                out.add(", refusal " + refusal + (maxWaitShown() || maxPauseShown() ? ", max-" : "]"));
            }
            if (maxWaitShown()) {
                out.add(", max-wait " + Durations.format(maxWait.get()));
            }
            if (maxPauseShown()) {
                out.add(", max-pause " + Durations.format(maxPause.get()) + "]");
            }
            prefetchHold.ifPresent(h -> out.add(", prefetch 2 (hold " + Durations.format(h) + ")"));
            return out;
        }

        /** The model: the texts the description must not show. */
        List<String> notShown() {
            List<String> out = new ArrayList<>();
            if (cost.filter(c -> c != 1).isEmpty()) {
                out.add(", cost ");
            }
            if (failureMode.isEmpty()) {
                out.add(", failure mode ");
            }
            if (status.filter(s -> s != 429).isEmpty() && type.filter(t -> !t.equals(STANDARD_TYPE)).isEmpty()
                    && title.filter(t -> !t.equals(STANDARD_TITLE)).isEmpty() && header.isEmpty()) {
                out.add(", refusal ");
            }
            if (!maxWaitShown()) {
                out.add(", max-wait ");
            }
            if (!maxPauseShown()) {
                out.add(", max-pause ");
            }
            if (prefetchHold.isEmpty()) {
                out.add(", prefetch ");
            }
            return out;
        }

        boolean maxWaitShown() {
            return maxWait.filter(w -> !w.equals(Duration.ofSeconds(5))).isPresent();
        }

        boolean maxPauseShown() {
            return maxPause.filter(p -> !p.equals(Duration.ofMinutes(5))).isPresent();
        }
    }

    static final String STANDARD_TYPE = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    static final String STANDARD_TITLE = "Request cannot be satisfied as assigned quota has been exceeded";

    @Provide
    Arbitrary<Generated> policies() {
        Arbitrary<Optional<String>> mode = Arbitraries.of("enforce", "shadow").optional();
        Arbitrary<Optional<Integer>> cost = Arbitraries.integers().between(1, 20).optional();
        Arbitrary<Optional<String>> failureMode = Arbitraries.of("local", "open", "closed").optional();
        Arbitrary<Optional<Integer>> status = Arbitraries.oneOf(Arbitraries.just(429), Arbitraries.integers().between(400, 599))
                .optional();
        Arbitrary<Optional<String>> type = Arbitraries.oneOf(Arbitraries.just(STANDARD_TYPE),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12).map(s -> "https://example.com/problems/" + s))
                .optional();
        Arbitrary<Optional<String>> title = Arbitraries.oneOf(Arbitraries.just(STANDARD_TITLE),
                Arbitraries.strings().withCharRange('a', 'z').withChars(' ', '-', 'é').ofMinLength(1).ofMaxLength(40)
                        .map(s -> "Q" + s.strip())).optional();
        Arbitrary<Optional<String>> header = Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(20).optional();
        Arbitrary<Optional<Duration>> maxWait = Arbitraries.oneOf(Arbitraries.just(5_000L),
                Arbitraries.longs().between(0, 600_000)).map(Duration::ofMillis).optional();
        Arbitrary<Optional<Duration>> maxPause = Arbitraries.oneOf(Arbitraries.just(300L),
                Arbitraries.longs().between(1, 86_400)).map(Duration::ofSeconds).optional();
        Arbitrary<Optional<Duration>> hold = Arbitraries.longs().between(200, 10_000).map(Duration::ofMillis).optional();
        return Combinators.combine(mode, cost, failureMode, status, type, title, header, maxWait)
                .as((m, c, f, s, t, ti, h, w) -> new Generated(m, c, f, s, t, ti, h, w, Optional.empty(), Optional.empty()))
                .flatMap(g -> Combinators.combine(maxPause, hold).as((p, ho) -> new Generated(g.mode(), g.cost(),
                        g.failureMode(), g.status(), g.type(), g.title(), g.header(), g.maxWait(), p, ho)));
    }

    @Property
    void theDescriptionShowsWhatDiffersFromTheDefaultsAndNothingElse(@ForAll("policies") Generated g) {
        String d = ConfigDescription.of(ConfigDescriptionTest.policy(g.config()));
        for (String expected : g.shown()) {
            assertTrue(d.contains(expected), () -> "\"" + expected + "\" in " + d + " for " + g.config());
        }
        for (String absent : g.notShown()) {
            assertFalse(d.contains(absent), () -> "no \"" + absent + "\" in " + d + " for " + g.config());
        }
    }
}
