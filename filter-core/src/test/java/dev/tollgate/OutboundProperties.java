package dev.tollgate;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The outbound guarantee: calls to one remote from several nodes sharing a store get at most the
 * policy's limit together (burst + rate x time in any interval), and none passes while a pause a
 * remote's answer set lasts. Two limiters (two "nodes") share one in-memory store on a clock the
 * test moves; a small reference model (one token bucket in whole microseconds per token, one
 * pause end) must agree with every decision, verdict and wait, and the bound is checked on what
 * passed.
 */
class OutboundProperties {

    /** Limits whose time per token is a whole number of µs, so the model counts in longs. */
    static final List<String> LIMITS = List.of("2/s", "5/s burst 10", "1/10s burst 3", "4/s burst 1", "100/min burst 5");
    static final long MAX_PAUSE_MICROS = 30_000_000;

    sealed interface Step permits Call, Wait, Pause {
    }

    record Call(int node) implements Step {
    }

    record Wait(long micros) implements Step {
    }

    /** A remote answered node {@code node} with a pause of {@code micros} (negative or beyond max-pause: absurd). */
    record Pause(int node, long micros) implements Step {
    }

    /** The reference: one GCRA bucket (time it is full again) and the end of the pause. */
    static final class Model {
        final long capacity;
        final long perToken;
        long tat;
        long pausedUntil;

        Model(Limit limit) {
            this.capacity = limit.capacity();
            this.perToken = limit.refillPeriodMicros() / limit.refillTokens();
        }

        /** The wait the call gets: 0 when it passes (and takes a token). */
        long call(long now) {
            long after = Math.max(tat, now) + perToken;
            long bucketWait = Math.max(0, after - now - capacity * perToken);
            long pauseWait = Math.max(0, pausedUntil - now);
            if (bucketWait == 0 && pauseWait == 0) {
                tat = after;
                return 0;
            }
            return Math.max(bucketWait, pauseWait);
        }

        long pause(long now, long micros) {
            long clamped = Math.min(Math.max(0, micros), MAX_PAUSE_MICROS);
            pausedUntil = Math.max(pausedUntil, now + clamped);
            return pausedUntil - now;
        }
    }

    @Test
    void callsFromAllNodesStayUnderTheLimitAndNoneWhilePaused() {
        qt(300).forAll(limits(), steps()).checkAssert(this::callsFromAllNodesStayUnderTheLimitAndNoneWhilePaused);
    }

    private void callsFromAllNodesStayUnderTheLimitAndNoneWhilePaused(String limits, List<Step> steps) {
        ManualClock clock = new ManualClock();
        TollgateConfig config = TestConfigs.withProviders(
                "tollgate.policies", "partner",
                "tollgate.policy.partner.limits", limits,
                "tollgate.policy.partner.max-pause", "30s");
        LocalStore shared = new LocalStore(1_000, clock::nowMicros);
        List<RateLimiter> nodes = List.of(new RateLimiter(config, shared, null, System::nanoTime), new RateLimiter(config, shared, null, System::nanoTime));
        Limit limit = config.policy("partner").orElseThrow().limits().get(0);
        Model model = new Model(limit);
        List<Long> passed = new ArrayList<>();
        List<Integer> passedAt = new ArrayList<>();
        List<long[]> pauses = new ArrayList<>(); // step index, end
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            long now = clock.nowMicros();
            if (step instanceof Wait w) {
                clock.advanceMicros(w.micros());
            } else if (step instanceof Pause p) {
                Duration left = nodes.get(p.node()).pauseRemote("partner", "api.example", Duration.ofNanos(p.micros() * 1000));
                long expected = model.pause(now, p.micros());
                assertEquals(expected, left.toNanos() / 1000, "the pause in force after " + step);
                pauses.add(new long[] {i, now + expected});
            } else if (step instanceof Call c) {
                Decision d = nodes.get(c.node()).checkRemote("partner", "api.example", "GET", "/repos");
                long expected = model.call(now);
                assertEquals(expected == 0, d.allowed(), "verdict of " + step + " at " + now);
                assertEquals(expected, d.allowed() ? 0 : d.retryAfterMicros(), "wait of " + step);
                if (d.allowed()) {
                    passed.add(now);
                    passedAt.add(i);
                }
            }
        }
        for (int k = 0; k < passed.size(); k++) {
            for (long[] p : pauses) {
                assertTrue(passedAt.get(k) < p[0] || passed.get(k) >= p[1],
                        "a call passed at " + passed.get(k) + ", before the end " + p[1] + " of a pause set earlier");
            }
        }
        for (int i = 0; i < passed.size(); i++) {
            for (int j = i; j < passed.size(); j++) {
                long span = passed.get(j) - passed.get(i);
                long most = limit.capacity() + span / model.perToken;
                assertTrue(j - i + 1 <= most, (j - i + 1) + " calls in " + span + " µs, the limit allows " + most);
            }
        }
    }

    static Gen<String> limits() {
        return of(LIMITS);
    }

    static Gen<List<Step>> steps() {
        Gen<Step> call = ints(0, 1).map(Call::new);
        Gen<Step> wait = frequency(
                weight(6, longs(1, 600_000)),
                weight(1, longs(600_000, 40_000_000))).map(Wait::new);
        Gen<Step> pause = ints(0, 1).zip(frequency(
                weight(6, longs(0, 5_000_000)),
                weight(1, longs(-10_000_000, -1)),
                weight(1, longs(30_000_000, 400L * 86_400_000_000L))), Pause::new);
        return lists(frequency(weight(10, call), weight(5, wait), weight(2, pause)), 1, 80);
    }
}
