package dev.tollgate.internal.local;

import static dev.tollgate.testing.Gens.frequency;
import static dev.tollgate.testing.Gens.ints;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.longs;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Gens.weight;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * The in-memory store answers a call of one token bucket with one limit (nearly every request)
 * in a single pass, updating the stored state in place. The guarantee: that shortcut is
 * invisible. The reference model is the store's general two-pass path, which
 * {@code BucketStoreContract} holds to bucket.lua: over any sequence of calls, waits, rate
 * changes (a remainder counted in another unit), shrinking bursts (a capped debt stored on
 * refusal), shadow buckets, costs above the burst and calls of two limits on the same key (a
 * state of another shape), both answer the same, limit by limit, and so hold the same state.
 */
class OneBucketPathProperties {

    static final List<String> LIMITS = List.of("2/s burst 3", "3/s burst 3", "1/min burst 2", "7/10s burst 4",
            "100/min burst 100", "1/s burst 1");

    sealed interface Step permits Call, Wait {
    }

    record Call(int key, String limits, long cost, boolean enforcing) implements Step {
    }

    record Wait(long micros) implements Step {
    }

    @Test
    void theOneBucketPathAnswersAsTheGeneralPath() {
        qt(500).forAll(steps()).checkAssert(this::theOneBucketPathAnswersAsTheGeneralPath);
    }

    private void theOneBucketPathAnswersAsTheGeneralPath(List<Step> steps) {
        ManualClock clock = new ManualClock();
        LocalStore fast = new LocalStore(1_000, clock::nowMicros);
        LocalStore model = new LocalStore(1_000, clock::nowMicros);
        for (Step step : steps) {
            if (step instanceof Wait w) {
                clock.advanceMicros(w.micros());
                continue;
            }
            Call c = (Call) step;
            List<BucketRequest> call = List.of(BucketRequest.take("k" + c.key(), Limit.parse(c.limits()), c.cost(),
                    c.enforcing()));
            List<BucketReply> expected = model.acquireAll(call);
            assertEquals(expected, fast.acquire(call), () -> "at " + clock.nowMicros() + ": " + c);
        }
    }

    static Gen<List<Step>> steps() {
        Gen<String> limits = frequency(weight(1, of(LIMITS)),
                weight(1, of(LIMITS).map(l -> l + "; 5/min burst 5"))); // two limits: the general path in both
        Gen<Step> call = ints(0, 2).zip(limits, longs(1, 4), of(true, true, true, false), Call::new);
        Gen<Step> wait = longs(0, 3_000_000).map(Wait::new);
        return lists(frequency(weight(3, call), weight(2, wait)), 0, 60);
    }
}
