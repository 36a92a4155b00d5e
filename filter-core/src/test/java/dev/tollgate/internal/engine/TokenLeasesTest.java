package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Limit;
import dev.tollgate.Prefetch;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The mechanism under the bound: the herd, a lease the store cannot give, failures, the hold, reloads, the size limit. */
@Timeout(60)
class TokenLeasesTest {

    static final long BUDGET_NANOS = 100_000_000L;
    static final Object GENERATION = new Object();

    final ManualClock clock = new ManualClock();
    final LocalStore store = new LocalStore(1_000, clock::nowMicros);
    final List<Limit> limits = Limit.parse("1000/s burst 100");
    final Prefetch prefetch = new Prefetch(10, Duration.ofMillis(200));
    final AtomicInteger calls = new AtomicInteger();
    final Function<List<BucketRequest>, List<BucketReply>> counted = r -> {
        calls.incrementAndGet();
        return store.acquire(r);
    };

    TokenLeases leases() {
        return new TokenLeases(1_000, () -> clock.nowMicros() * 1000L);
    }

    static BucketRequest.Take request(String client) {
        return BucketRequest.take("tollgate:{" + client + "}:hot", Limit.parse("1000/s burst 100"), 1, true);
    }

    @Test
    void oneCallServesKRequestsAndTheHeadersCountTheTokensStillHeld() {
        TokenLeases leases = leases();
        List<TokenLeases.Take> takes = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            takes.add(leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted));
        }
        assertEquals(3, calls.get(), "one call per 10 requests");
        assertTrue(takes.stream().allMatch(t -> t.outcome() == TokenLeases.Outcome.LEASED));
        assertEquals(27, leases.leased());
        // the store holds 100 - 10 at the first fetch; this node 9 more after the first request
        assertEquals(99, takes.get(0).reply().limits().get(0).remaining());
        assertEquals(70, takes.get(29).reply().limits().get(0).remaining());
    }

    @Test
    void aLeaseTheStoreCannotGiveSendsRequestsToTheStoreUntilKTokensWouldBeThere() {
        TokenLeases leases = leases();
        store.acquire(List.of(BucketRequest.take(request("a").key(), limits, 95, true))); // 5 left, 1 per ms
        TokenLeases.Take first = leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted);
        assertEquals(TokenLeases.Outcome.ASK_STORE, first.outcome());
        assertTrue(first.fetched());
        assertEquals(1, calls.get());
        clock.advanceMicros(4_999); // 10 tokens are there after 5 ms
        TokenLeases.Take meanwhile = leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted);
        assertEquals(TokenLeases.Outcome.ASK_STORE, meanwhile.outcome());
        assertFalse(meanwhile.fetched(), "no second ask for a lease before the store said it would be there");
        assertEquals(1, calls.get());
        clock.advanceMicros(1);
        assertEquals(TokenLeases.Outcome.LEASED, leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted).outcome());
        assertEquals(2, calls.get());
    }

    @Test
    void aStoreThatGivesNoVerdictIsAskedPerRequestForOneHold() {
        TokenLeases leases = leases();
        TokenLeases.Take failed = leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, r -> {
            calls.incrementAndGet();
            return null;
        });
        assertEquals(TokenLeases.Outcome.STORE_FAILED, failed.outcome());
        assertEquals(TokenLeases.Outcome.ASK_STORE, leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted).outcome());
        assertEquals(1, calls.get(), "the per-request path has the circuit to decide whether to call");
        TokenLeases.Take thrown = leases.take(request("b"), prefetch, GENERATION, BUDGET_NANOS, r -> {
            throw new IllegalStateException("down (test)");
        });
        assertEquals(TokenLeases.Outcome.STORE_FAILED, thrown.outcome());
        clock.advanceMicros(200_000);
        assertEquals(TokenLeases.Outcome.LEASED, leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted).outcome());
    }

    @Test
    void tokensLeftWhenTheHoldEndsAreDroppedNotHandedOut() {
        TokenLeases leases = leases();
        leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted);
        clock.advanceMicros(199_999);
        assertEquals(TokenLeases.Outcome.LEASED, leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted).outcome());
        assertEquals(1, calls.get());
        clock.advanceMicros(1);
        TokenLeases.Take after = leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted);
        assertTrue(after.fetched(), "the hold is over: a new lease, the 8 left are gone");
        assertEquals(2, calls.get());
    }

    @Test
    void aLeaseOfAnotherConfigurationIsNeverUsed() {
        TokenLeases leases = leases();
        leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted);
        TokenLeases.Take reloaded = leases.take(request("a"), prefetch, new Object(), BUDGET_NANOS, counted);
        assertTrue(reloaded.fetched());
        assertEquals(2, calls.get());
    }

    @Test
    void aFullTableSendsNewBucketsToTheStoreUntilASweepFindsRoom() {
        TokenLeases leases = new TokenLeases(1, () -> clock.nowMicros() * 1000L);
        clock.advanceMicros(TokenLeases.SWEEP_EVERY_NANOS / 1000); // the first sweep is due
        leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted);
        assertEquals(TokenLeases.Outcome.ASK_STORE, leases.take(request("b"), prefetch, GENERATION, BUDGET_NANOS, counted).outcome());
        clock.advanceMicros(200_000); // a's lease is over and the next sweep is due
        assertEquals(TokenLeases.Outcome.LEASED, leases.take(request("b"), prefetch, GENERATION, BUDGET_NANOS, counted).outcome());
        assertEquals(1, leases.size());
    }

    @Test
    void aFetchThatOutlivedItsBudgetHandsOutNothingBeyondItsOwnRequest() {
        TokenLeases leases = leases();
        AtomicInteger depth = new AtomicInteger();
        Function<List<BucketRequest>, List<BucketReply>> slow = r -> {
            calls.incrementAndGet();
            if (depth.getAndIncrement() == 0) {
                clock.advanceMicros(BUDGET_NANOS / 1000 + 1); // another request takes over the fetching
                assertTrue(leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, this.counted).fetched());
            }
            return store.acquire(r);
        };
        assertEquals(TokenLeases.Outcome.LEASED, leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, slow).outcome());
        int handedOut = 0;
        while (leases.take(request("a"), prefetch, GENERATION, BUDGET_NANOS, counted).outcome() == TokenLeases.Outcome.LEASED
                && calls.get() == 2) {
            handedOut++;
        }
        assertEquals(9, handedOut, "only the lease in place is handed out, not the one that lost its place");
    }

    @Test
    void manyThreadsOnOneKeyMakeOneCallWhileTheOthersWaitForIt() throws Exception {
        int threads = 64;
        AtomicInteger waiting = new AtomicInteger();
        // Waits without a timeout: a missing wake-up fails the test by its @Timeout, not by a clock.
        TokenLeases leases = new TokenLeases(1_000, () -> clock.nowMicros() * 1000L, (done, nanos) -> {
            waiting.incrementAndGet();
            done.await();
            return true;
        });
        Prefetch big = new Prefetch(100, Duration.ofMillis(200));
        Function<List<BucketRequest>, List<BucketReply>> slow = r -> {
            calls.incrementAndGet();
            while (waiting.get() < threads - 1) {
                Thread.onSpinWait(); // every other request is parked on this fetch
            }
            return store.acquire(r);
        };
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<TokenLeases.Take>> takes = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                takes.add(pool.submit(() -> leases.take(request("a"), big, GENERATION, BUDGET_NANOS, slow)));
            }
            for (Future<TokenLeases.Take> t : takes) {
                assertEquals(TokenLeases.Outcome.LEASED, t.get().outcome());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, calls.get());
        assertEquals(threads - 1, leases.leased());
    }
}
