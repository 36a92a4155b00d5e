package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When a cached refusal expires, one request asks the store again and the others wait for its answer. */
// Without the coalescing the herd tests would block for ever (the asker waits for waiters that never come): fail instead.
@Timeout(60)
class DenyCacheHerdTest {

    static final long BUDGET_NANOS = 100_000_000L;
    static final int THREADS = 64;

    final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    final Object generation = new Object();
    final Limit limit = Limit.parse("10/s burst 20").get(0);
    final Policy policy = Policy.of("default", List.of(limit), request -> "ip=" + request.remoteAddress(),
            dev.tollgate.RequestMatcher.ALL);
    final AtomicInteger storeCalls = new AtomicInteger();

    PolicyResult refusal(long retryMicros) {
        return new PolicyResult(policy, "ip=a", null, List.of(new LimitState(limit, 0, retryMicros, retryMicros, retryMicros)));
    }

    /**
     * One request as the engine makes it: the cache's answer, else the store's (a refusal of
     * {@code storeRetryMicros}, or an admit when 0), remembered or settled.
     */
    List<PolicyResult> decide(DenyCache cache, long storeRetryMicros, Runnable duringStoreCall) {
        List<PolicyResult> known = cache.refused("a", generation, BUDGET_NANOS);
        if (known != null) {
            return known;
        }
        storeCalls.incrementAndGet();
        duringStoreCall.run();
        if (storeRetryMicros > 0) {
            List<PolicyResult> refused = List.of(refusal(storeRetryMicros));
            cache.remember("a", generation, refused);
            return refused;
        }
        cache.settled("a");
        return null;
    }

    @Test
    void whenACachedRefusalExpiresOneRequestAsksTheStoreAndTheOthersTakeItsRefusal() throws Exception {
        CountDownLatch waiting = new CountDownLatch(THREADS - 1);
        // Time does not pass while waiting: the waiters wait for the answer, however long it takes here.
        DenyCache cache = new DenyCache(100, nanos::get, (done, waitNanos) -> {
            waiting.countDown();
            done.await();
            return true;
        });
        cache.remember("a", generation, List.of(refusal(100_000)));
        nanos.addAndGet(100_000_000L); // the refusal expires
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<List<PolicyResult>>> answers = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                // The one that asks the store answers only once every other one waits for it.
                answers.add(pool.submit(() -> decide(cache, 100_000, () -> awaitUninterruptibly(waiting))));
            }
            for (Future<List<PolicyResult>> a : answers) {
                List<PolicyResult> refused = a.get();
                assertNotNull(refused, "every request is refused");
                assertEquals(100_000, refused.get(0).retryAfterMicros(), "with the store's new wait");
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, storeCalls.get(), "one store call for the whole herd");
    }

    @Test
    void whenTheStoreAdmitsTheAskerTheWaitersEachAskTheStoreThemselves() throws Exception {
        CountDownLatch waiting = new CountDownLatch(THREADS - 1);
        DenyCache cache = new DenyCache(100, nanos::get, (done, waitNanos) -> {
            waiting.countDown();
            done.await();
            return true;
        });
        cache.remember("a", generation, List.of(refusal(100_000)));
        nanos.addAndGet(100_000_000L);
        AtomicInteger first = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<List<PolicyResult>>> answers = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                answers.add(pool.submit(() -> decide(cache, 0, () -> {
                    if (first.getAndIncrement() == 0) {
                        awaitUninterruptibly(waiting);
                    }
                })));
            }
            for (Future<List<PolicyResult>> a : answers) {
                assertNull(a.get(), "an admit is not shared: each one is admitted by the store");
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(THREADS, storeCalls.get());
    }

    @Test
    void aWaiterWaitsNoLongerThanTheAskersBudgetAndThenAsksItself() {
        List<Long> waited = new ArrayList<>();
        // The asker hangs: the latch never opens, the wait runs out its time on the test's clock.
        DenyCache cache = new DenyCache(100, nanos::get, (done, waitNanos) -> {
            waited.add(waitNanos);
            nanos.addAndGet(waitNanos);
            return false;
        });
        cache.remember("a", generation, List.of(refusal(100_000)));
        nanos.addAndGet(100_000_000L);
        assertNull(cache.refused("a", generation, BUDGET_NANOS), "the first one asks the store (and hangs)");
        nanos.addAndGet(30_000_000L);
        assertNull(cache.refused("a", generation, BUDGET_NANOS), "a waiter gives up and asks the store itself");
        assertEquals(List.of(70_000_000L), waited, "only what is left of the asker's budget");
        assertNull(cache.refused("a", generation, BUDGET_NANOS), "past that budget the next one asks in its place");
        assertEquals(1, waited.size(), "without waiting");
        nanos.addAndGet(1_000_000L);
        assertNull(cache.refused("a", generation, BUDGET_NANOS));
        assertEquals(List.of(70_000_000L, 99_000_000L), waited, "and later ones wait for the new asker's budget");
    }

    @Test
    void aWaiterIsAnsweredOnlyUnderItsOwnConfigurationAndAClearLetsItAsk() {
        DenyCache cache = new DenyCache(100, nanos::get, (done, waitNanos) -> done.getCount() == 0);
        cache.remember("a", generation, List.of(refusal(100_000)));
        nanos.addAndGet(100_000_000L);
        assertNull(cache.refused("a", generation, BUDGET_NANOS));
        assertNull(cache.refused("a", new Object(), BUDGET_NANOS), "another configuration never waits for this one's asking");
        cache.clear();
        assertEquals(0, cache.size());
        assertNull(cache.refused("a", generation, BUDGET_NANOS), "after a clear nothing is waited for");
        cache.remember("a", generation, List.of(refusal(100_000)));
        assertNotNull(cache.refused("a", generation, BUDGET_NANOS), "the asker's refusal is remembered");
    }

    static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
