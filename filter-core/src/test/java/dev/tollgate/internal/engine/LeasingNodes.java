package dev.tollgate.internal.engine;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.Prefetch;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.quicktheories.core.Gen;

/**
 * Several nodes, each with its own {@link TokenLeases}, sharing one store and one clock the test
 * moves: generated arrivals per node, every store call checked against an exact GCRA model, and
 * the promise of docs/guarantees.md checked on what was admitted: in any interval of
 * length t at most {@code C + ⌊r·t⌋ + nodes·k} and at most {@code C + ⌊r·(t + hold)⌋} tokens
 * per limit. A request is handled as {@link StoreGuard} does: from the lease when leasing
 * applies, else (or when the lease says so) by a store call of its own.
 *
 * <p>Not thread-safe: the nodes take turns, as the schedule says.
 */
public final class LeasingNodes {

    /** A request of {@code cost} on {@code node}, {@code afterMicros} after the previous one. */
    public record Arrival(int node, long afterMicros, int cost) {
    }

    public record Scenario(String limits, int nodes, int prefetch, long holdMicros, List<Arrival> arrivals) {
    }

    /** What a run saw, for the statistics of a property. */
    public static final class Run {
        public int leased;
        public int storeCalls;
        public int refusedFetches;
        public int refused;
        public int admitted;
    }

    private static final String KEY = "tollgate:{ip=192.0.2.1}:hot";
    private static final Object GENERATION = new Object();

    private LeasingNodes() {
    }

    /** Scenarios of up to {@code maxArrivals} requests on 1 to 4 nodes. */
    public static Gen<Scenario> scenarios(int maxArrivals) {
        Gen<String> limits = of("10/s burst 20", "100/s burst 50", "5/s burst 8", "1000/s burst 64",
                "3/s burst 12; 40/min burst 30", "7/100ms burst 16");
        Gen<Integer> nodes = ints(1, 4);
        Gen<Long> hold = of(1_000L, 5_000L, 50_000L, 200_000L, 1_000_000L);
        Gen<Long> gaps = frequency(
                weight(4, just(0L)),
                weight(10, longs(1, 2_000)),
                weight(4, longs(2_000, 100_000)),
                weight(1, longs(100_000, 2_000_000)));
        // The limits, nodes and hold first (prefetch 0 and no arrivals yet), then what depends on them.
        Gen<Scenario> heads = limits.zip(nodes, hold, (l, n, h) -> new Scenario(l, n, 0, h, List.of()));
        return heads.flatMap(head -> {
            String l = head.limits();
            int n = head.nodes();
            long smallest = Limit.parse(l).stream().mapToLong(Limit::capacity).min().orElseThrow();
            Gen<Integer> prefetch = ints(Prefetch.MIN_TOKENS, (int) smallest);
            Gen<Arrival> arrival = ints(0, n - 1).zip(gaps,
                    frequency(weight(8, just(1)), weight(2, ints(2, 3))), Arrival::new);
            return prefetch.zip(lists(arrival, 1, maxArrivals),
                    (k, arrivals) -> new Scenario(l, n, k, head.holdMicros(), arrivals));
        });
    }

    /**
     * Plays the scenario against {@code store} (empty for {@link #KEY}, its clock {@code clock}),
     * failing on the first store answer the model does not give and on any broken bound.
     */
    public static Run play(Scenario s, ManualClock clock, Function<List<BucketRequest>, List<BucketReply>> store) {
        List<Limit> limits = Limit.parse(s.limits());
        Prefetch prefetch = new Prefetch(s.prefetch(), Duration.ofNanos(s.holdMicros() * 1000));
        Gcra model = new Gcra(limits);
        Run run = new Run();
        Function<List<BucketRequest>, List<BucketReply>> checked = requests -> {
            run.storeCalls++;
            BucketRequest.Take r = (BucketRequest.Take) requests.get(0); // a leasing node asks for its one rate bucket
            long[] expected = model.acquire(r.cost(), clock.nowMicros());
            BucketReply reply = store.apply(requests).get(0);
            assertEquals(expected[0] == 0, reply.admits(), () -> "verdict for cost " + r.cost() + " at "
                    + clock.nowMicros() + ": " + reply);
            assertEquals(expected[0], reply.retryAfterMicros(), () -> "retry for cost " + r.cost() + ": " + reply);
            return List.of(reply);
        };
        List<TokenLeases> nodes = new ArrayList<>();
        for (int i = 0; i < s.nodes(); i++) {
            // Sequential: a fetch ends inside the take that started it, so nobody ever waits.
            nodes.add(new TokenLeases(100, () -> clock.nowMicros() * 1000L,
                    (latch, nanos) -> { throw new AssertionError("a sequential run never waits"); }));
        }
        List<long[]> admitted = new ArrayList<>(); // {time µs, cost}
        for (Arrival a : s.arrivals()) {
            clock.advanceMicros(a.afterMicros());
            BucketRequest.Take request = BucketRequest.take(KEY, limits, a.cost(), true);
            boolean admits;
            if (TokenLeases.applies(request, prefetch)) {
                TokenLeases.Take t = nodes.get(a.node()).take(request, prefetch, GENERATION, 100_000_000L, checked);
                if (t.fetched() && t.outcome() != TokenLeases.Outcome.LEASED) {
                    run.refusedFetches++;
                }
                assertTrue(t.outcome() != TokenLeases.Outcome.STORE_FAILED, "the store always answers here");
                if (t.outcome() == TokenLeases.Outcome.LEASED) {
                    if (!t.fetched()) {
                        run.leased++;
                    }
                    assertTrue(t.reply().admits());
                    admits = true;
                } else {
                    admits = checked.apply(List.of(request)).get(0).admits();
                }
            } else {
                admits = checked.apply(List.of(request)).get(0).admits();
            }
            if (admits) {
                run.admitted++;
                admitted.add(new long[] {clock.nowMicros(), a.cost()});
            } else {
                run.refused++;
            }
        }
        checkBound(limits, s, admitted);
        return run;
    }

    /** For every interval between two admissions, each limit's two bounds. */
    private static void checkBound(List<Limit> limits, Scenario s, List<long[]> admitted) {
        for (int i = 0; i < admitted.size(); i++) {
            long sum = 0;
            for (int j = i; j < admitted.size(); j++) {
                sum += admitted.get(j)[1];
                long t = admitted.get(j)[0] - admitted.get(i)[0];
                for (Limit l : limits) {
                    long byNodes = l.capacity() + tokensIn(l, t) + (long) s.nodes() * s.prefetch();
                    long byHold = l.capacity() + tokensIn(l, t + s.holdMicros());
                    long bound = Math.min(byNodes, byHold);
                    long admittedSum = sum;
                    assertTrue(admittedSum <= bound, () -> admittedSum + " tokens admitted in " + t + " µs under '" + l
                            + "', bound " + bound + " (C + r·t + nodes·k = " + byNodes + ", C + r·(t + hold) = " + byHold
                            + ")");
                }
            }
        }
    }

    /** ⌊r·t⌋: whole tokens a limit refills in t µs. */
    private static long tokensIn(Limit l, long micros) {
        return Math.multiplyExact(micros, l.refillTokens()) / l.refillPeriodMicros();
    }

    /**
     * The reference model: a GCRA bucket per limit, all-or-nothing across them, its arrival time
     * kept exactly in 1/n µs (n the limit's refill tokens): read at {@code now} it owes
     * D = max(0, TAT - now) and admits cost k when D + k·p ≤ C·p (p the refill period); a
     * refusal's retry is the excess, rounded up to a whole µs.
     */
    static final class Gcra {
        private final List<Limit> limits;
        private final long[] tatScaled;

        Gcra(List<Limit> limits) {
            this.limits = limits;
            this.tatScaled = new long[limits.size()];
        }

        /** {retry µs (0: admitted)}; takes the cost from every limit when all admit. */
        long[] acquire(long cost, long nowMicros) {
            long retry = 0;
            long[] next = new long[limits.size()];
            for (int i = 0; i < limits.size(); i++) {
                Limit l = limits.get(i);
                long n = l.refillTokens();
                long p = l.refillPeriodMicros();
                long now = nowMicros * n;
                long debt = Math.max(0, tatScaled[i] - now);
                long after = debt + cost * p;
                long excess = after - l.capacity() * p;
                if (excess > 0) {
                    retry = Math.max(retry, (excess + n - 1) / n);
                }
                next[i] = now + after;
            }
            if (retry == 0) {
                System.arraycopy(next, 0, tatScaled, 0, next.length);
            }
            return new long[] {retry};
        }
    }
}
