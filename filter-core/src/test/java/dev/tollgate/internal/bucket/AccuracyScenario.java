package dev.tollgate.internal.bucket;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * A random life of a rate limiter as the stores see it: two policies, two clients, two plans,
 * and a sequence of requests (over one or both policies, enforcing or shadow, with costs), clock
 * steps, reloads that change a policy's limits (capacity, rate, number of limits) or roll them
 * back, plan changes,
 * algorithm switches, cost and mode changes, and restarts of the store. {@link AccuracyRun}
 * plays it against a store and {@link BucketModel} at once.
 *
 * @param setup   the configuration at the start
 * @param actions what happens, in order
 */
public record AccuracyScenario(Setup setup, List<Action> actions) {

    static final int POLICIES = 2;
    static final int CLIENTS = 2;
    static final int PLANS = 2;

    /**
     * One limit as configured, {@code count/window [burst b]}. A token bucket holds the burst (or
     * count) and refills count per window; a sliding log admits count per window (a burst is
     * dropped when a policy becomes a log, as the configuration requires).
     */
    record LimitSpec(int count, long windowMicros, int burst) {
        Limit limit(Algorithm algorithm) {
            int capacity = algorithm == Algorithm.TOKEN_BUCKET && burst > 0 ? burst : count;
            String text = count + "/" + windowMicros + "us" + (capacity != count ? " burst " + capacity : "");
            return new Limit(capacity, count, windowMicros, windowMicros, text);
        }

        @Override
        public String toString() {
            return count + "/" + windowMicros + "us" + (burst > 0 ? " burst " + burst : "");
        }
    }

    /** A policy as configured at the start. */
    record PolicySetup(Algorithm algorithm, boolean enforcing, int cost, List<List<LimitSpec>> plans) {
        @Override
        public String toString() {
            return (algorithm == Algorithm.TOKEN_BUCKET ? "bucket" : "log") + (enforcing ? "" : " shadow")
                    + " cost " + cost + " plans " + plans;
        }
    }

    /** The configuration at the start; {@code compactKeys} picks the key format. */
    record Setup(List<PolicySetup> policies, List<Integer> clientPlans, boolean compactKeys) {
        @Override
        public String toString() {
            return "policies " + policies + ", client plans " + clientPlans + (compactKeys ? ", compact keys" : "");
        }
    }

    /** One step. */
    interface Action {
        void run(AccuracyRun run);
    }

    /** A request of a client through the policies in {@code policies} (a bit mask). */
    record Send(int client, int policies) implements Action {
        public void run(AccuracyRun run) {
            run.send(client, policies);
        }
    }

    /** A request; if refused, the clock moves by exactly its Retry-After and it is sent again. */
    record SendAndRetry(int client, int policies) implements Action {
        public void run(AccuracyRun run) {
            run.sendAndRetry(client, policies);
        }
    }

    /** A request through one policy; then the first limit's {@code t} (time to one more token) is probed. */
    record ProbeNext(int client, int policy) implements Action {
        public void run(AccuracyRun run) {
            run.probeNext(client, policy);
        }
    }

    record Advance(long micros) implements Action {
        public void run(AccuracyRun run) {
            run.advance(micros);
        }
    }

    /** A reload that gives one plan of one policy other limits. */
    record Reload(int policy, int plan, List<LimitSpec> limits) implements Action {
        public void run(AccuracyRun run) {
            run.reload(policy, plan, limits);
        }
    }

    /** A reload that restores one plan of one policy to its limits at the start (an operator's roll-back). */
    record RollBack(int policy, int plan) implements Action {
        public void run(AccuracyRun run) {
            run.rollBack(policy, plan);
        }
    }

    record ChangePlan(int client, int plan) implements Action {
        public void run(AccuracyRun run) {
            run.changePlan(client, plan);
        }
    }

    record SwitchAlgorithm(int policy) implements Action {
        public void run(AccuracyRun run) {
            run.switchAlgorithm(policy);
        }
    }

    record SetCost(int policy, int cost) implements Action {
        public void run(AccuracyRun run) {
            run.setCost(policy, cost);
        }
    }

    record SetMode(int policy, boolean enforcing) implements Action {
        public void run(AccuracyRun run) {
            run.setMode(policy, enforcing);
        }
    }

    /** The store loses every bucket (a Redis restart without persistence; a new JVM). */
    record Restart() implements Action {
        public void run(AccuracyRun run) {
            run.restart();
        }
    }

    @Override
    public String toString() {
        return setup + "\n  " + actions.stream().map(Object::toString).collect(Collectors.joining("\n  "));
    }

    // ---- generators ----------------------------------------------------------------------------

    static Arbitrary<LimitSpec> limits() {
        Arbitrary<Integer> count = Arbitraries.integers().between(1, 6);
        Arbitrary<Long> window = Arbitraries.of(1_000L, 7_000L, 100_000L, 1_000_000L, 3_000_000L, 60_000_000L);
        Arbitrary<Integer> burst = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0)),
                Tuple.of(1, Arbitraries.integers().between(1, 8)));
        return Combinators.combine(count, window, burst).as(LimitSpec::new);
    }

    static Arbitrary<List<LimitSpec>> limitSets() {
        Arbitrary<Integer> size = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(1)), Tuple.of(3, Arbitraries.just(2)),
                Tuple.of(1, Arbitraries.just(3)));
        return size.flatMap(n -> limits().list().ofSize(n));
    }

    static Arbitrary<PolicySetup> policies() {
        Arbitrary<Algorithm> algorithm = Arbitraries.frequencyOf(Tuple.of(7, Arbitraries.just(Algorithm.TOKEN_BUCKET)),
                Tuple.of(3, Arbitraries.just(Algorithm.SLIDING_LOG)));
        Arbitrary<Boolean> enforcing = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false)));
        Arbitrary<Integer> cost = Arbitraries.integers().between(1, 3);
        return Combinators.combine(algorithm, enforcing, cost, limitSets().list().ofSize(PLANS)).as(PolicySetup::new);
    }

    static Arbitrary<Setup> setups() {
        return Combinators.combine(policies().list().ofSize(POLICIES),
                Arbitraries.integers().between(0, PLANS - 1).list().ofSize(CLIENTS),
                Arbitraries.of(false, true)).as(Setup::new);
    }

    static Arbitrary<Long> steps() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(0L)),
                Tuple.of(3, Arbitraries.longs().between(1, 10)),
                Tuple.of(5, Arbitraries.longs().between(1, 200_000)),
                Tuple.of(5, Arbitraries.longs().between(1, 3_000_000)),
                Tuple.of(2, Arbitraries.longs().between(1, 200_000_000)));
    }

    static Arbitrary<Action> anyAction() {
        Arbitrary<Integer> client = Arbitraries.integers().between(0, CLIENTS - 1);
        Arbitrary<Integer> policy = Arbitraries.integers().between(0, POLICIES - 1);
        Arbitrary<Integer> mask = Arbitraries.integers().between(1, (1 << POLICIES) - 1);
        return Arbitraries.frequencyOf(
                Tuple.of(30, Combinators.combine(client, mask).as(Send::new)),
                Tuple.of(12, Combinators.combine(client, mask).as(SendAndRetry::new)),
                Tuple.of(8, Combinators.combine(client, policy).as(ProbeNext::new)),
                Tuple.of(25, steps().map(Advance::new)),
                Tuple.of(7, Combinators.combine(policy, Arbitraries.integers().between(0, PLANS - 1), limitSets()).as(Reload::new)),
                Tuple.of(3, Combinators.combine(policy, Arbitraries.integers().between(0, PLANS - 1)).as(RollBack::new)),
                Tuple.of(4, Combinators.combine(client, Arbitraries.integers().between(0, PLANS - 1)).as(ChangePlan::new)),
                Tuple.of(4, policy.map(SwitchAlgorithm::new)),
                Tuple.of(3, Combinators.combine(policy, Arbitraries.integers().between(1, 3)).as(SetCost::new)),
                Tuple.of(2, Combinators.combine(policy, Arbitraries.of(true, false)).as(SetMode::new)),
                Tuple.of(2, Arbitraries.just(new Restart())));
    }

    public static Arbitrary<AccuracyScenario> scenarios(int maxActions) {
        return Combinators.combine(setups(), anyAction().list().ofMinSize(1).ofMaxSize(maxActions)
                        .withSizeDistribution(RandomDistribution.uniform()))
                .as((s, a) -> new AccuracyScenario(s, new ArrayList<>(a)));
    }
}
