package dev.tollgate.internal.bucket;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.quicktheories.core.Gen;

/**
 * A random life of a rate limiter as the stores see it: two policies, two clients, two plans,
 * and a sequence of requests (over one or both policies, enforcing or shadow, with costs; some
 * under another plan's limits, as a node of another configuration sends them), clock
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

    /**
     * A request of a client under another plan's limits, its own plan unchanged: a node of another
     * configuration on the same keys, as while a change rolls out.
     */
    record SendVia(int client, int policies, int plan) implements Action {
        public void run(AccuracyRun run) {
            run.sendVia(client, policies, plan);
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

    static Gen<LimitSpec> limits() {
        Gen<Integer> count = ints(1, 6);
        Gen<Long> window = of(1_000L, 7_000L, 100_000L, 1_000_000L, 3_000_000L, 60_000_000L);
        Gen<Integer> burst = frequency(weight(1, just(0)), weight(1, ints(1, 8)));
        return count.zip(window, burst, LimitSpec::new);
    }

    static Gen<List<LimitSpec>> limitSets() {
        Gen<Integer> size = frequency(weight(6, just(1)), weight(3, just(2)), weight(1, just(3)));
        return size.flatMap(n -> lists(limits(), n));
    }

    static Gen<PolicySetup> policies() {
        Gen<Algorithm> algorithm = frequency(weight(7, just(Algorithm.TOKEN_BUCKET)), weight(3, just(Algorithm.SLIDING_LOG)));
        Gen<Boolean> enforcing = frequency(weight(4, just(true)), weight(1, just(false)));
        Gen<Integer> cost = ints(1, 3);
        return algorithm.zip(enforcing, cost, lists(limitSets(), PLANS), PolicySetup::new);
    }

    static Gen<Setup> setups() {
        return lists(policies(), POLICIES).zip(lists(ints(0, PLANS - 1), CLIENTS), bools(), Setup::new);
    }

    static Gen<Long> steps() {
        return frequency(
                weight(2, just(0L)),
                weight(3, longs(1, 10)),
                weight(5, longs(1, 200_000)),
                weight(5, longs(1, 3_000_000)),
                weight(2, longs(1, 200_000_000)));
    }

    static Gen<Action> anyAction() {
        Gen<Integer> client = ints(0, CLIENTS - 1);
        Gen<Integer> policy = ints(0, POLICIES - 1);
        Gen<Integer> mask = ints(1, (1 << POLICIES) - 1);
        Gen<Integer> plan = ints(0, PLANS - 1);
        return frequency(
                weight(30, client.zip(mask, Send::new)),
                weight(8, client.zip(mask, plan, SendVia::new)),
                weight(12, client.zip(mask, SendAndRetry::new)),
                weight(8, client.zip(policy, ProbeNext::new)),
                weight(25, steps().map(Advance::new)),
                weight(7, policy.zip(plan, limitSets(), Reload::new)),
                weight(3, policy.zip(plan, RollBack::new)),
                weight(4, client.zip(plan, ChangePlan::new)),
                weight(4, policy.map(SwitchAlgorithm::new)),
                weight(3, policy.zip(ints(1, 3), SetCost::new)),
                weight(2, policy.zip(bools(), SetMode::new)),
                weight(2, just(new Restart())));
    }

    /** A setup and 1 to {@code maxActions} actions, the number of actions uniform in that range. */
    public static Gen<AccuracyScenario> scenarios(int maxActions) {
        return setups().zip(lists(anyAction(), 1, maxActions), (s, a) -> new AccuracyScenario(s, new ArrayList<>(a)));
    }
}
