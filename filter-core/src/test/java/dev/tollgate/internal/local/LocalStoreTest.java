package dev.tollgate.internal.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.bucket.BucketStore;
import dev.tollgate.internal.bucket.BucketStoreContract;
import dev.tollgate.internal.bucket.Replies;
import dev.tollgate.testing.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalStoreTest extends BucketStoreContract {

    @Override
    protected BucketStore store(ManualClock clock) {
        return new LocalStore(100_000, clock::nowMicros);
    }

    @Override
    protected void writeUntagged(String key, long... tats) {
        ((LocalStore) store).putUntagged(key, tats);
    }

    @Test
    void aFloodOfDistinctKeysStaysWithinTheBound() {
        LocalStore small = new LocalStore(6_400, clock::nowMicros);
        List<Limit> perDay = Limit.parse("1/day");
        for (int i = 0; i < 1_000_000; i++) {
            Replies.flat(small.acquire(List.of(BucketRequest.take("k" + i, perDay, 1, true))));
        }
        assertTrue(small.size() <= 6_400, "held " + small.size());
        assertTrue(small.size() > 6_000, "and still holds close to its bound: " + small.size());
    }

    @Test
    void theMostRecentlyUsedBucketsSurviveAFlood() {
        LocalStore small = new LocalStore(6_400, clock::nowMicros);
        List<Limit> perDay = Limit.parse("1/day");
        BucketRequest.Take busy = BucketRequest.take("busy", perDay, 1, true);
        Replies.flat(small.acquire(List.of(busy)));
        for (int i = 0; i < 100_000; i++) {
            Replies.flat(small.acquire(List.of(BucketRequest.take("flood" + i, perDay, 1, true))));
            if (i % 50 == 0) {
                assertEquals(0, Replies.flat(small.acquire(List.of(busy)))[0], "the busy client stays spent");
            }
        }
    }

    /**
     * A flood of other keys must not make the store forget a client's live leases: that gave the
     * client its slots back, so many IPv6 /64s lifted a concurrency limit in memory and in
     * failure mode {@code local} (issue 21).
     */
    @Test
    void aFloodOfOtherKeysNeverFreesASlotInFlight() {
        LocalStore small = new LocalStore(6_400, clock::nowMicros);
        dev.tollgate.Limit one = new dev.tollgate.Concurrency(1, java.time.Duration.ofMinutes(1)).limit();
        assertTrue(small.acquire(List.of(BucketRequest.lease("{held}:p:c", one, true, "first"))).get(0).admits());
        List<Limit> perDay = Limit.parse("1/day");
        for (int i = 0; i < 100_000; i++) {
            Replies.flat(small.acquire(List.of(BucketRequest.take("flood" + i, perDay, 1, true))));
        }
        assertTrue(small.size() <= 6_400 + 1, "held " + small.size());
        assertTrue(!small.acquire(List.of(BucketRequest.lease("{held}:p:c", one, true, "second"))).get(0).admits(),
                "the slot in flight is still held");
    }
}
