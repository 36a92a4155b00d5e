package dev.tollgate.internal.local;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.ManualClock;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.statistics.Statistics;

/**
 * The in-memory store's memory bound, counted rather than measured on the heap: whatever flood
 * of sliding-log clients (limits up to 10,000 per window, costs, clock steps), it holds at most
 * {@code max-keys} keys and at most {@link #SLOT_BUDGET} log slots of 8 bytes, and a log holds
 * slots for what it stores, not for what its limit allows (issue 10, finding 7).
 */
class LocalStoreMemoryTest {

    static final int MAX_KEYS = 6_400;

    /** The README's bound: 64 stripes, each at most max(10,000, 16 x max-keys / 64) slots. */
    static final long SLOT_BUDGET = 64L * Math.max(Algorithm.MAX_LOG_ENTRIES, 16L * (MAX_KEYS / 64));

    /**
     * Clients each sending {@code requests} requests of {@code cost} under {@code count} per
     * window: enough, with extra ones, to fill their logs.
     */
    record Flood(int count, long windowMicros, int clients, int requests, int cost, int stepMicros) {
    }

    @Property(tries = 25, edgeCases = EdgeCasesMode.NONE)
    void aFloodOfSlidingLogsStaysWithinItsBudget(@ForAll("floods") Flood flood) {
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(MAX_KEYS, clock::nowMicros);
        List<Limit> limits = List.of(new Limit(flood.count(), flood.count(), flood.windowMicros(), flood.windowMicros(),
                flood.count() + " per " + flood.windowMicros() + " µs"));
        long admitted = 0;
        for (int r = 0; r < flood.requests(); r++) {
            for (int k = 0; k < flood.clients(); k++) {
                long[] reply = Replies.flat(store.acquire(List.of(
                        new BucketRequest("flood-" + k, limits, flood.cost(), true, Algorithm.SLIDING_LOG))));
                admitted += reply[3] == 0 ? flood.cost() : 0;
                clock.advanceMicros(flood.stepMicros());
                LocalStore.Usage u = store.usage();
                if (u.keys() > MAX_KEYS || u.logSlots() > SLOT_BUDGET) {
                    throw new AssertionError("beyond the bound: " + u + ", budget " + SLOT_BUDGET + " slots");
                }
                if (u.logSlots() > 4 * (u.logEntries() + u.logs())) {
                    throw new AssertionError("logs hold slots they do not use: " + u);
                }
            }
        }
        Statistics.label("admitted more entries than the budget").collect(admitted > SLOT_BUDGET)
                .coverage(c -> c.check(true).percentage(p -> p >= 50));
    }

    @Provide
    Arbitrary<Flood> floods() {
        return Combinators.combine(
                uniform(3_000, Algorithm.MAX_LOG_ENTRIES),
                Arbitraries.of(1_000_000L, 60_000_000L, 3_600_000_000L),
                uniform(100, 300),
                uniform(0, 5),
                uniform(100, 1_000),
                uniform(0, 300)).as((count, window, clients, extra, cost, step) ->
                new Flood(count, window, clients, (count + cost - 1) / cost + extra, cost, step));
    }

    private static Arbitrary<Integer> uniform(int min, int max) {
        return Arbitraries.integers().between(min, max).withDistribution(RandomDistribution.uniform());
    }
}
