package dev.tollgate.internal.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Algorithm;
import dev.tollgate.Limit;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.testing.ManualClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link LocalStore#follow}: the fallback's token bucket takes the larger of its own debt (plus
 * what the shared store took) and the shared store's. A second {@link LocalStore} plays the
 * shared store; the engine's use of it is {@code LocalFallbackProperties}.
 */
class LocalStoreFollowTest {

    private final ManualClock clock = new ManualClock();
    private final LocalStore shared = new LocalStore(1_000, clock::nowMicros);
    private final LocalStore fallback = new LocalStore(1_000, clock::nowMicros);
    private final BucketRequest.Take one = BucketRequest.take("k", Limit.parse("1/min burst 10"), 1, true);

    /** One request to the shared store, which the fallback follows; whether it was admitted. */
    private boolean shared(BucketRequest r) {
        BucketReply reply = shared.acquire(List.of(r)).get(0);
        fallback.follow(r, reply, reply.admits());
        return reply.admits();
    }

    private int admittedByFallback(BucketRequest r, int tries) {
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            admitted += fallback.acquire(List.of(r)).get(0).admits() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void theFallbackContinuesFromWhatTheSharedStoreLeft() {
        for (int i = 0; i < 8; i++) {
            assertTrue(shared(one));
        }
        assertEquals(2, admittedByFallback(one, 20), "10 in the burst, 8 taken in the shared bucket");
    }

    @Test
    void whatThisNodeAdmittedAloneIsKeptWhenTheSharedStoreKnowsLess() {
        assertEquals(5, admittedByFallback(one, 5)); // an outage: the shared store never hears of these
        assertTrue(shared(one)); // the shared bucket has 9 left, this node's own count is 6
        assertEquals(4, admittedByFallback(one, 20), "own 5 + 1 the shared store took, not its 1");
    }

    @Test
    void whatOtherNodesTookIsKeptWhenTheSharedStoreKnowsMore() {
        for (int i = 0; i < 8; i++) {
            assertTrue(shared.acquire(List.of(one)).get(0).admits()); // other nodes
        }
        assertTrue(shared(one)); // this node: 9 taken in all
        assertEquals(1, admittedByFallback(one, 20));
    }

    @Test
    void aRefusalTakesNothingFromTheFallback() {
        for (int i = 0; i < 10; i++) {
            assertTrue(shared.acquire(List.of(one)).get(0).admits()); // other nodes empty the bucket
        }
        assertTrue(!shared(one));
        assertEquals(0, admittedByFallback(one, 1));
        clock.advanceMicros(60_000_000); // one token back in both
        assertEquals(1, admittedByFallback(one, 5), "the refusal was not counted as taken");
    }

    @Test
    void eachLimitFollowsOnItsOwn() {
        BucketRequest.Take two = BucketRequest.take("k2", Limit.parse("1/s burst 3; 1/min burst 10"), 1, true);
        assertEquals(2, admittedByFallback(two, 2)); // own: 2 owed under both
        // the shared store: the per-second limit full, the minute's 8 owed (480 s until full)
        fallback.follow(two, new BucketReply(List.of(
                new dev.tollgate.LimitState(two.limits().get(0), 3, 0, 0, 0),
                new dev.tollgate.LimitState(two.limits().get(1), 2, 60_000_000, 480_000_000, 0))), false);
        assertEquals(1, admittedByFallback(two, 5), "per second its own 2 of 3 owed, the minute the shared 8 of 10");
        clock.advanceMicros(2_000_000); // per second 2 back; the minute now binds: 9 owed, less 2 s
        assertEquals(1, admittedByFallback(two, 5));
    }

    @Test
    void aBucketFullOnBothSidesStoresNothing() {
        BucketRequest.Take shadow = BucketRequest.take("s", Limit.parse("1/min burst 10"), 1, false);
        BucketReply full = new BucketReply(List.of(new dev.tollgate.LimitState(shadow.limits().get(0), 10, 0, 0, 0)));
        fallback.follow(shadow, full, false);
        assertEquals(0, fallback.size());
    }

    @Test
    void otherAlgorithmsAreLeftAsTheyAre() {
        List<Limit> limits = Limit.parse("1/min burst 10");
        for (BucketRequest r : List.of(BucketRequest.take("log", limits, 1, true, Algorithm.SLIDING_LOG),
                BucketRequest.lease("lease", limits.get(0), true, "id-1"),
                BucketRequest.pauseGate("gate", limits.get(0), true))) {
            BucketReply reply = new BucketReply(List.of(new dev.tollgate.LimitState(limits.get(0), 0, 6_000_000, 60_000_000, 0)));
            fallback.follow(r, reply, true);
        }
        assertEquals(0, fallback.size());
    }

    @Test
    void theBoundOnKeysHolds() {
        LocalStore small = new LocalStore(6_400, clock::nowMicros);
        for (int i = 0; i < 100_000; i++) {
            BucketRequest.Take r = BucketRequest.take("k" + i, one.limits(), 1, true);
            small.follow(r, shared.acquire(List.of(r)).get(0), true);
        }
        assertTrue(small.size() <= 6_400, "held " + small.size());
    }
}
