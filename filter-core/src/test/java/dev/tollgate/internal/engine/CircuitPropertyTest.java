package dev.tollgate.internal.engine;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.CircuitState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The circuit's liveness, over random interleavings of several callers: calls that succeed, fail,
 * find the pool busy, end in an {@link Error}, leave without a verdict, or never come back, and
 * clock steps. Each caller settles its call the way {@code RateLimiter.acquire} does.
 */
class CircuitPropertyTest {

    static final long OPEN_FOR_NANOS = Duration.ofSeconds(1).toNanos();
    static final int CALLERS = 3;
    /** Held, so that the level set below stays: thousands of generated outages would each log twice. */
    static final Logger REDIS_LOG = Logger.getLogger("dev.tollgate.redis");

    @BeforeAll
    static void quiet() {
        REDIS_LOG.setLevel(Level.OFF);
    }

    @AfterAll
    static void loud() {
        REDIS_LOG.setLevel(null);
    }

    /** How a call ends: with a verdict on Redis, or without one. */
    enum Outcome {
        SUCCESS, FAILURE, BUSY, ERROR, ABANDONED
    }

    sealed interface Step permits Begin, End, Lose, Advance {
    }

    /** The caller asks whether it may call Redis (if it holds no call already). */
    record Begin(int caller) implements Step {
    }

    /** The caller's call ends so. */
    record End(int caller, Outcome outcome) implements Step {
    }

    /** The caller's thread never comes back: its call is never settled. */
    record Lose(int caller) implements Step {
    }

    record Advance(long millis) implements Step {
    }

    /** A call the circuit allowed, as the test tracks it. */
    record Held(Object call, boolean probe, long grantedAtNanos, Model.Grant expected) {
    }

    /**
     * Drives the circuit as {@code RateLimiter.acquire} does: a verdict when Redis gave one, then
     * the call is closed (try-with-resources), whatever ended it.
     */
    static final class Driver {
        final Circuit circuit;

        Driver(Circuit circuit) {
            this.circuit = circuit;
        }

        /** The call, or null when the circuit refuses. */
        Object tryCall() {
            return circuit.tryCall();
        }

        void end(Object call, Outcome outcome) {
            try (Circuit.Call c = (Circuit.Call) call) {
                switch (outcome) {
                    case SUCCESS -> c.succeeded();
                    case FAILURE -> c.failed(new IllegalStateException("connection refused"));
                    default -> {
                        // BusyException, an Error or any other exit: no verdict
                    }
                }
            }
        }
    }

    /**
     * The reference state machine. Closed, every call is allowed and {@code threshold} failures in
     * a row open it. Open, nothing is allowed until the open period has passed; then one call is
     * the probe (half-open). The probe's success closes, its failure opens for a new period, and
     * an end without a verdict (busy, an error, abandoned) opens with the period already over, so
     * the next call probes. A probe unsettled for a whole open period counts as lost: the next call
     * probes. A verdict counts only for the state in which its call was allowed.
     */
    static final class Model {
        record Grant(long epoch, boolean probe) {
        }

        final int threshold;
        CircuitState state = CircuitState.CLOSED;
        long epoch;
        int failures;
        long untilNanos;

        Model(int threshold) {
            this.threshold = threshold;
        }

        void open(long now) {
            epoch++;
            state = CircuitState.OPEN;
            untilNanos = now + OPEN_FOR_NANOS;
        }

        Grant tryCall(long now) {
            if (state == CircuitState.CLOSED) {
                return new Grant(epoch, false);
            }
            if (now - untilNanos < 0) {
                return null;
            }
            epoch++;
            state = CircuitState.HALF_OPEN;
            untilNanos = now + OPEN_FOR_NANOS;
            return new Grant(epoch, true);
        }

        void end(Grant g, Outcome outcome, long now) {
            if (g.epoch() != epoch) {
                return;
            }
            boolean verdict = outcome == Outcome.SUCCESS || outcome == Outcome.FAILURE;
            if (state == CircuitState.CLOSED) {
                if (outcome == Outcome.SUCCESS) {
                    failures = 0;
                } else if (outcome == Outcome.FAILURE && ++failures >= threshold) {
                    failures = 0;
                    open(now);
                }
                return;
            }
            epoch++;
            if (outcome == Outcome.SUCCESS) {
                state = CircuitState.CLOSED;
                failures = 0;
            } else {
                state = CircuitState.OPEN;
                untilNanos = verdict ? now + OPEN_FOR_NANOS : now;
            }
        }
    }

    /** A circuit, its clock, the model and the callers' calls, run step by step. */
    static final class Run {
        final AtomicLong nanos = new AtomicLong(7_000_000_000L);
        final Circuit circuit;
        final Driver driver;
        final Model model;
        final Map<Integer, Held> held = new HashMap<>();
        final List<Held> lost = new ArrayList<>();
        final List<String> trace = new ArrayList<>();
        final boolean checked;

        /** @param checked whether every step is held to the model */
        Run(int threshold, boolean startsOpen, boolean checked) {
            this.checked = checked;
            circuit = new Circuit(threshold, Duration.ofNanos(OPEN_FOR_NANOS), nanos::get, "redis://test");
            driver = new Driver(circuit);
            model = new Model(threshold);
            if (startsOpen) {
                circuit.open(new IllegalStateException("not reachable at start"));
                model.open(nanos.get());
            }
        }

        void apply(Step step) {
            long now = nanos.get();
            if (step instanceof Begin b) {
                if (held.containsKey(b.caller())) {
                    return;
                }
                boolean probe = circuit.state() != CircuitState.CLOSED;
                Model.Grant expected = model.tryCall(now);
                Object call = driver.tryCall();
                trace.add(step + " -> " + (call != null ? "allowed" : "refused") + ", " + circuit.state());
                if (checked) {
                    assertEquals(expected != null, call != null, "allowed as the model says, after " + trace);
                }
                if (call != null) {
                    held.put(b.caller(), new Held(call, probe, now, expected));
                    if (checked) {
                        assertTrue(probesInFlight() <= 1, "at most one probe in flight, after " + trace);
                    }
                }
            } else if (step instanceof End e) {
                Held h = held.remove(e.caller());
                if (h == null) {
                    return;
                }
                model.end(h.expected(), e.outcome(), now);
                driver.end(h.call(), e.outcome());
                trace.add(step + " -> " + circuit.state());
            } else if (step instanceof Lose l) {
                Held h = held.remove(l.caller());
                if (h != null) {
                    lost.add(h);
                    trace.add(step.toString());
                }
            } else if (step instanceof Advance a) {
                nanos.addAndGet(a.millis() * 1_000_000L);
                trace.add(step.toString());
            }
            if (checked) {
                assertEquals(model.state, circuit.state(), "the state the model is in, after " + trace);
            }
        }

        /** Probes allowed less than an open period ago and not settled, lost ones included. */
        long probesInFlight() {
            long now = nanos.get();
            return java.util.stream.Stream.concat(held.values().stream(), lost.stream())
                    .filter(h -> h.probe() && now - h.grantedAtNanos() < OPEN_FOR_NANOS)
                    .count();
        }
    }

    static Gen<List<Step>> histories() {
        Gen<Integer> caller = ints(0, CALLERS - 1);
        Gen<Step> begin = caller.map(Begin::new);
        Gen<Step> end = caller.zip(of(Outcome.values()), End::new);
        Gen<Step> lose = caller.map(Lose::new);
        Gen<Step> advance = longs(0, 2_500).map(Advance::new);
        return lists(frequency(
                        weight(4, begin),
                        weight(4, end),
                        weight(1, lose),
                        weight(3, advance)), 0, 60);
    }

    static Gen<Integer> thresholds() {
        return ints(1, 4);
    }

    static Gen<List<Outcome>> inFlightEnds() {
        return lists(of(Outcome.values()), CALLERS);
    }

    /**
     * Whatever happened before, once Redis answers: the calls in flight end any way they do (those
     * asked before may still fail) or never, one open period passes, and then the next call is
     * allowed and, when it succeeds, the circuit is closed.
     */
    @Test
    void onceRedisAnswersTheCircuitClosesWithinOneOpenPeriodAndOneCall() {
        qt(400).forAll(histories(), thresholds(), bools(), inFlightEnds())
                .checkAssert(this::onceRedisAnswersTheCircuitClosesWithinOneOpenPeriodAndOneCall);
    }

    private void onceRedisAnswersTheCircuitClosesWithinOneOpenPeriodAndOneCall(
            List<Step> history, int threshold, boolean startsOpen, List<Outcome> inFlightEnd) {
        Run run = new Run(threshold, startsOpen, false);
        history.forEach(run::apply);
        for (int c = 0; c < CALLERS; c++) {
            run.apply(new End(c, inFlightEnd.get(c)));
        }
        run.apply(new Advance(OPEN_FOR_NANOS / 1_000_000));
        Object call = run.driver.tryCall();
        assertNotNull(call, "one open period after Redis answers, a call is allowed; after " + run.trace);
        run.driver.end(call, Outcome.SUCCESS);
        assertEquals(CircuitState.CLOSED, run.circuit.state(), "it succeeded, so the circuit is closed; after " + run.trace);
    }

    /** Every step follows the reference state machine, and at most one probe is in flight at a time. */
    @Test
    void transitionsFollowTheReferenceModelWithOneProbeAtATime() {
        qt(400).forAll(histories(), thresholds(), bools())
                .checkAssert(this::transitionsFollowTheReferenceModelWithOneProbeAtATime);
    }

    private void transitionsFollowTheReferenceModelWithOneProbeAtATime(List<Step> history, int threshold, boolean startsOpen) {
        Run run = new Run(threshold, startsOpen, true);
        history.forEach(run::apply);
    }
}
