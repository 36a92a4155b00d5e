package dev.tollgate;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.redis.RedisPort;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * Failure mode {@code local} on one node: a request decided by this node's memory (Redis slow,
 * busy or down, the circuit open) is admitted only if a token bucket fed with every request
 * this node admitted, whoever decided it, admits it too. The fallback continues from the shared
 * bucket as this node last saw it, plus what it admitted itself; it never starts a client over
 * with a full bucket.
 *
 * <p>The shared store is a {@link LocalStore} standing in for Redis (both are
 * {@link BucketStore}s; {@code RedisFaultIT} runs the real one), wrapped to fail as Redis does:
 * a call that finds the pool busy (never reaches Redis), a call past its budget whose script ran
 * (Redis took, the node never heard), a call that fails outright; three failures in a row open
 * the circuit for a second. One controlled clock for both stores and the circuit.
 *
 * <p>The reference model is the exact GCRA of each limit over this node's admissions (debt in
 * 1/n µs, capped at the time to fill). While Redis itself has not admitted beyond that model
 * (it cannot have before a local admission it never saw), the admissions also keep the
 * single-bucket bound: in any window [s, t], tokens x p <= capacity x p + (t - s) x n.
 */
class LocalFallbackProperties {

    /** What Redis does with a call, if the circuit lets one through; or time passing. */
    enum Kind { ANSWERS, BUSY, LOST, FAILS, WAIT }

    record Step(Kind kind, long advanceMicros) {
    }

    static Gen<String> limits() {
        return of("10/s burst 20", "5/s burst 8", "3/s burst 12; 40/min burst 30", "7/100ms burst 16",
                "1/s burst 3");
    }

    static Gen<List<Step>> runs() {
        Gen<Step> request = frequency(weight(6, just(Kind.ANSWERS)), weight(2, just(Kind.BUSY)),
                weight(2, just(Kind.LOST)), weight(2, just(Kind.FAILS))).map(k -> new Step(k, 0));
        Gen<Step> idle = frequency(
                weight(4, longs(1, 200_000)),
                weight(1, longs(200_000, 3_000_000)))
                .map(us -> new Step(Kind.WAIT, us));
        // Runs of the same kind: an outage, or a stretch of slow calls, lasts for several requests.
        Gen<List<Step>> stretch = request.zip(ints(1, 25), (s, n) -> Collections.nCopies(n, s));
        Gen<List<Step>> pause = idle.map(s -> List.of(s));
        return lists(frequency(weight(3, stretch), weight(2, pause)), 0, 30)
                .map(parts -> {
                    List<Step> all = new ArrayList<>();
                    parts.forEach(all::addAll);
                    return all;
                });
    }

    @Test
    void aRequestDecidedLocallyIsAdmittedOnlyWithinTheLimitOfWhatThisNodeAdmitted() {
        Tally tally = new Tally();
        qt(400).forAll(limits(), runs()).checkAssert((limitText, run) ->
                aRequestDecidedLocallyIsAdmittedOnlyWithinTheLimitOfWhatThisNodeAdmitted(limitText, run, tally));
        System.out.println("aRequestDecidedLocallyIsAdmittedOnlyWithinTheLimitOfWhatThisNodeAdmitted: " + tally);
        tally.reached("locally, admitted");
        tally.reached("locally, refused");
    }

    private void aRequestDecidedLocallyIsAdmittedOnlyWithinTheLimitOfWhatThisNodeAdmitted(
            String limitText, List<Step> run, Tally tally) {
        ManualClock clock = new ManualClock();
        FailingStore redis = new FailingStore(new LocalStore(1_000, clock::nowMicros));
        TollgateConfig config = TestConfigs.withProviders(
                "tollgate.metrics", "none", "tollgate.jmx", "false", "tollgate.deny-cache", "false",
                "tollgate.policy.default.limits", limitText);
        List<Limit> limits = Limit.parse(limitText);
        Model model = new Model(limits);
        List<Long> admittedAt = new ArrayList<>();
        boolean redisBeyondModel = false;
        try (RateLimiter rl = new RateLimiter(config, redis, new LocalStore(1_000, clock::nowMicros),
                () -> clock.nowMicros() * 1_000L, null, "local-fallback", null)) {
            for (Step s : run) {
                if (s.kind() == Kind.WAIT) {
                    clock.advanceMicros(s.advanceMicros());
                    continue;
                }
                behave(redis, s.kind());
                long t = clock.nowMicros();
                Decision d = rl.check(TestRequest.get("/").from("10.0.0.7"));
                boolean modelAdmits = model.admits(t);
                tally.count("locally, admitted", d.source() == Decision.Source.LOCAL && d.allowed());
                tally.count("locally, refused", d.source() == Decision.Source.LOCAL && !d.allowed());
                tally.count("by Redis, admitted", d.source() == Decision.Source.REDIS && d.allowed());
                tally.count("by Redis, refused", d.source() == Decision.Source.REDIS && !d.allowed());
                if (d.source() == Decision.Source.LOCAL) {
                    assertTrue(!d.allowed() || modelAdmits, () -> "admitted locally beyond the limit of what this node"
                            + " admitted (" + model.describe(t) + ")");
                } else {
                    assertEquals(Decision.Source.REDIS, d.source());
                    if (d.allowed() && !modelAdmits) {
                        redisBeyondModel = true; // Redis never saw some local admissions
                    }
                }
                if (d.allowed()) {
                    model.take(t);
                    admittedAt.add(t);
                    if (!redisBeyondModel) {
                        assertWithinTheBound(limits, admittedAt);
                    }
                }
            }
        }
        tally.count("Redis admitted beyond the model", redisBeyondModel);
    }

    /** What Redis does with the next call, as a step says. */
    private static void behave(FailingStore redis, Kind kind) {
        switch (kind) {
            case BUSY -> redis.failsWith(() -> new RedisPort.BusyException(null));
            case FAILS -> redis.failsWith(() -> new IllegalStateException("connection refused (test)"));
            case LOST -> redis.runsThenFailsWith(() -> new IllegalStateException("read timed out (test)")); // the script ran
            default -> redis.answers();
        }
    }

    /** A request on one of several nodes, with what Redis does with its call; or time passing. */
    record NodeStep(int node, Kind kind, long advanceMicros) {
    }

    static Gen<List<NodeStep>> nodeRuns() {
        return runs().zip(lists(ints(0, 2), 64),
                (steps, nodes) -> {
                    List<NodeStep> all = new ArrayList<>();
                    for (int i = 0; i < steps.size(); i++) {
                        Step st = steps.get(i);
                        all.add(new NodeStep(nodes.get(i % nodes.size()), st.kind(), st.advanceMicros()));
                    }
                    return all;
                });
    }

    /**
     * Several nodes sharing one store, each with its own fallback: whatever Redis does to each
     * call, everything a node admits after the last decision it heard from Redis is within what
     * that decision said the shared bucket held, plus the refill since. Summed over the nodes, an
     * outage admits at most N times what was left plus N times the rate over its time, as the
     * docs/guarantees.md states.
     */
    @Test
    void eachNodeContinuesFromTheSharedBucketAsItLastSawIt() {
        Tally tally = new Tally();
        qt(300).forAll(limits(), nodeRuns(), ints(2, 3)).checkAssert((limitText, run, nodes) ->
                eachNodeContinuesFromTheSharedBucketAsItLastSawIt(limitText, run, nodes, tally));
        System.out.println("eachNodeContinuesFromTheSharedBucketAsItLastSawIt: " + tally);
        tally.reached("locally, admitted");
    }

    private void eachNodeContinuesFromTheSharedBucketAsItLastSawIt(String limitText, List<NodeStep> run, int nodes,
                                                                    Tally tally) {
        ManualClock clock = new ManualClock();
        FailingStore redis = new FailingStore(new LocalStore(1_000, clock::nowMicros));
        TollgateConfig config = TestConfigs.withProviders(
                "tollgate.metrics", "none", "tollgate.jmx", "false", "tollgate.deny-cache", "false",
                "tollgate.policy.default.limits", limitText);
        List<Limit> limits = Limit.parse(limitText);
        RateLimiter[] node = new RateLimiter[nodes];
        long[] heardAt = new long[nodes]; // when each node last heard Redis decide (start: a full bucket)
        long[][] resetHeard = new long[nodes][limits.size()]; // µs until full, per limit, as it heard
        long[] since = new long[nodes]; // admitted by the node after that
        try {
            for (int i = 0; i < nodes; i++) {
                node[i] = new RateLimiter(config, redis, new LocalStore(1_000, clock::nowMicros),
                        () -> clock.nowMicros() * 1_000L, null, "node-" + i, null);
            }
            for (NodeStep s : run) {
                if (s.kind() == Kind.WAIT) {
                    clock.advanceMicros(s.advanceMicros());
                    continue;
                }
                int i = s.node() % nodes;
                behave(redis, s.kind());
                long t = clock.nowMicros();
                Decision d = node[i].check(TestRequest.get("/").from("10.0.0.7"));
                if (d.source() == Decision.Source.REDIS) {
                    heardAt[i] = t;
                    List<LimitState> states = d.results().get(0).limits();
                    for (int j = 0; j < limits.size(); j++) {
                        resetHeard[i][j] = states.get(j).resetMicros();
                    }
                    since[i] = 0;
                    tally.count("by Redis", true);
                    tally.count("locally, admitted", false);
                    tally.count("locally, refused", false);
                    continue;
                }
                assertEquals(Decision.Source.LOCAL, d.source());
                tally.count("by Redis", false);
                tally.count("locally, admitted", d.allowed());
                tally.count("locally, refused", !d.allowed());
                if (d.allowed()) {
                    since[i]++;
                    for (int j = 0; j < limits.size(); j++) {
                        Limit l = limits.get(j);
                        long p = l.refillPeriodMicros();
                        long n = l.refillTokens();
                        // what the shared bucket held as heard (its µs until full rounded up), plus the refill since
                        long held = l.capacity() * p - Math.max(0, resetHeard[i][j] - 1) * n;
                        assertTrue(since[i] * p <= held + (t - heardAt[i]) * n,
                                "node " + i + " admitted " + since[i] + " since it last heard Redis " + (t - heardAt[i])
                                        + " µs ago (" + resetHeard[i][j] + " µs until full) under " + l.text());
                    }
                }
            }
        } finally {
            for (RateLimiter r : node) {
                if (r != null) {
                    r.close();
                }
            }
        }
    }

    /** The single-bucket bound for every window that ends at the newest admission (cost 1 each). */
    private static void assertWithinTheBound(List<Limit> limits, List<Long> admittedAt) {
        int k = admittedAt.size() - 1;
        long t = admittedAt.get(k);
        for (int i = k; i >= 0; i--) {
            long tokens = k - i + 1;
            long window = t - admittedAt.get(i);
            for (Limit l : limits) {
                long p = l.refillPeriodMicros();
                long n = l.refillTokens();
                assertTrue(tokens * p <= l.capacity() * p + window * n,
                        tokens + " admitted within " + window + " µs under " + l.text());
            }
        }
    }

    /** Exact GCRA per limit, in 1/n µs, capped at the time to fill, as the stores count. */
    static final class Model {
        private final List<Limit> limits;
        private final long[] tat; // theoretical arrival time per limit, in 1/n µs

        Model(List<Limit> limits) {
            this.limits = limits;
            this.tat = new long[limits.size()];
        }

        long debt(int j, long now) {
            return Math.max(0, tat[j] - now * limits.get(j).refillTokens());
        }

        boolean admits(long now) {
            for (int j = 0; j < tat.length; j++) {
                Limit l = limits.get(j);
                if (debt(j, now) + l.refillPeriodMicros() > l.capacity() * l.refillPeriodMicros()) {
                    return false;
                }
            }
            return true;
        }

        void take(long now) {
            for (int j = 0; j < tat.length; j++) {
                Limit l = limits.get(j);
                long full = l.capacity() * l.refillPeriodMicros();
                tat[j] = now * l.refillTokens() + Math.min(full, debt(j, now) + l.refillPeriodMicros());
            }
        }

        String describe(long now) {
            StringBuilder b = new StringBuilder();
            for (int j = 0; j < tat.length; j++) {
                Limit l = limits.get(j);
                b.append(l.text()).append(": ").append(debt(j, now) / l.refillPeriodMicros()).append(" tokens owed; ");
            }
            return b.toString();
        }
    }
}
