package dev.tollgate.internal.engine;

import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.strings;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.text.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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

    static final String ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    /** Each setting unset about 5% of the time. */
    static <T> Gen<Optional<T>> optional(Gen<T> value) {
        return value.toOptionals(5);
    }

    /** The first five settings of a {@link Generated}, drawn together. */
    private record Head(Optional<String> mode, Optional<Integer> cost, Optional<String> failureMode,
                        Optional<Integer> status, Optional<String> type) {
    }

    static Gen<Generated> policies() {
        Gen<Optional<String>> mode = optional(of("enforce", "shadow"));
        Gen<Optional<Integer>> cost = optional(ints(1, 20));
        Gen<Optional<String>> failureMode = optional(of("local", "open", "closed"));
        Gen<Optional<Integer>> status = optional(Generate.oneOf(just(429), ints(400, 599)));
        Gen<Optional<String>> type = optional(Generate.oneOf(just(STANDARD_TYPE),
                strings(ALPHA, 1, 12).map(s -> "https://example.com/problems/" + s)));
        Gen<Optional<String>> title = optional(Generate.oneOf(just(STANDARD_TITLE),
                strings("abcdefghijklmnopqrstuvwxyz -é", 1, 40).map(s -> "Q" + s.strip())));
        Gen<Optional<String>> header = optional(strings(ALPHA + "0123456789", 1, 20));
        Gen<Optional<Duration>> maxWait = optional(Generate.oneOf(just(5_000L), longs(0, 600_000)).map(Duration::ofMillis));
        Gen<Optional<Duration>> maxPause = optional(Generate.oneOf(just(300L), longs(1, 86_400)).map(s -> Duration.ofSeconds(s)));
        Gen<Optional<Duration>> hold = optional(longs(200, 10_000).map(Duration::ofMillis));
        Gen<Head> head = mode.zip(cost, failureMode, status, type, Head::new);
        return head.zip(title, header, maxWait, maxPause, (h, ti, he, w, p) -> new Generated(h.mode(), h.cost(),
                h.failureMode(), h.status(), h.type(), ti, he, w, p, Optional.empty()))
                .zip(hold, (g, ho) -> new Generated(g.mode(), g.cost(), g.failureMode(), g.status(), g.type(),
                        g.title(), g.header(), g.maxWait(), g.maxPause(), ho));
    }

    @Test
    void theDescriptionShowsWhatDiffersFromTheDefaultsAndNothingElse() {
        qt(1000).forAll(policies()).checkAssert(this::theDescriptionShowsWhatDiffersFromTheDefaultsAndNothingElse);
    }

    private void theDescriptionShowsWhatDiffersFromTheDefaultsAndNothingElse(Generated g) {
        String d = ConfigDescription.of(ConfigDescriptionTest.policy(g.config()));
        for (String expected : g.shown()) {
            assertTrue(d.contains(expected), () -> "\"" + expected + "\" in " + d + " for " + g.config());
        }
        for (String absent : g.notShown()) {
            assertFalse(d.contains(absent), () -> "no \"" + absent + "\" in " + d + " for " + g.config());
        }
    }
}
