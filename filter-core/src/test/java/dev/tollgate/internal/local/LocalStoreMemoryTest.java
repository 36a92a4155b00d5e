package dev.tollgate.internal.local;

import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.Tally;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The in-memory store's memory bound, counted rather than measured on the heap: whatever flood
 * of sliding-log clients (limits up to 10,000 per window, costs, clock steps), it holds at most
 * {@code max-keys} keys and at most {@link #SLOT_BUDGET} log slots of 8 bytes, and a log holds
 * slots for what it stores, not for what its limit allows (issue 10, finding 7).
 */
class LocalStoreMemoryTest {

    static final int MAX_KEYS = 6_400;

    /** The bound of docs/guarantees.md: 64 stripes, each at most max(10,000, 16 x max-keys / 64) slots. */
    static final long SLOT_BUDGET = 64L * Math.max(Algorithm.MAX_LOG_ENTRIES, 16L * (MAX_KEYS / 64));

    /**
     * Clients each sending {@code requests} requests of {@code cost} under {@code count} per
     * window: enough, with extra ones, to fill their logs.
     */
    record Flood(int count, long windowMicros, int clients, int requests, int cost, int stepMicros) {
    }

    @Test
    void aFloodOfSlidingLogsStaysWithinItsBudget() {
        Tally tally = new Tally();
        qt(25).forAll(floods()).checkAssert(flood -> staysWithinItsBudget(flood, tally));
        tally.atLeast("admitted more entries than the budget", 50);
    }

    private void staysWithinItsBudget(Flood flood, Tally tally) {
        ManualClock clock = new ManualClock();
        LocalStore store = new LocalStore(MAX_KEYS, clock::nowMicros);
        List<Limit> limits = List.of(new Limit(flood.count(), flood.count(), flood.windowMicros(), flood.windowMicros(),
                flood.count() + " per " + flood.windowMicros() + " µs"));
        long admitted = 0;
        for (int r = 0; r < flood.requests(); r++) {
            for (int k = 0; k < flood.clients(); k++) {
                long[] reply = Replies.flat(store.acquire(List.of(
                        BucketRequest.take("flood-" + k, limits, flood.cost(), true, Algorithm.SLIDING_LOG))));
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
        tally.count("admitted more entries than the budget", admitted > SLOT_BUDGET);
    }

    /** Uniform draws between the bounds (after its first examples, at the bounds, QuickTheories draws ints uniformly). */
    static Gen<Flood> floods() {
        Gen<IntFunction<Flood>> allButStep = ints(3_000, Algorithm.MAX_LOG_ENTRIES).zip(
                of(1_000_000L, 60_000_000L, 3_600_000_000L),
                ints(100, 300),
                ints(0, 5),
                ints(100, 1_000),
                (count, window, clients, extra, cost) -> step ->
                        new Flood(count, window, clients, (count + cost - 1) / cost + extra, cost, step));
        return allButStep.zip(ints(0, 300), IntFunction::apply);
    }
}
