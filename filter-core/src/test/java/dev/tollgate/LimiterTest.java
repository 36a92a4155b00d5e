package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, item 1: {@link Limiter}, tokens of a policy for a client named by code, over the
 * in-memory store with a clock the test moves; waiting goes through {@link FakeWaits}, which
 * moves that clock instead of sleeping.
 */
class LimiterTest {

    final ManualClock clock = new ManualClock();
    final FakeWaits waits = new FakeWaits();

    /** Sleeps by moving the test's clock, and records each sleep; may run something during one. */
    final class FakeWaits implements Limiter.Waits {
        final List<Duration> slept = new ArrayList<>();
        Runnable duringSleep = () -> { };
        boolean interrupt;

        @Override
        public long nanoTime() {
            return clock.nowMicros() * 1000;
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            if (interrupt) {
                throw new InterruptedException();
            }
            slept.add(Duration.ofNanos(nanos));
            clock.advanceMicros(nanos / 1000);
            duringSleep.run();
        }
    }

    static TollgateConfig config(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return TestConfigs.withProviders(m);
    }

    RateLimiter engine(String... keyValues) {
        return new RateLimiter(config(keyValues), new LocalStore(10_000, clock::nowMicros), null, System::nanoTime);
    }

    Limiter limiter(String... keyValues) {
        return new Limiter(engine(keyValues), true, waits);
    }

    static final String[] EXPORTS = {"tollgate.policies", "exports", "tollgate.policy.exports.limits", "10/min burst 5",
        "tollgate.policy.exports.match", "/exports/**"};

    @Test
    void anAcquireTakesItsCostAndARefusalSaysWhenItCouldPass() {
        Limiter l = limiter(EXPORTS);
        Acquisition a = l.acquire("exports", "tenant=acme", 3);
        assertTrue(a.allowed(), a.toString());
        assertFalse(a.unavailable());
        assertEquals(2, a.remaining());
        assertEquals(Duration.ZERO, a.retryAfter());
        assertEquals(1, a.limits().size());
        assertEquals(5, a.policyLimits().get(0).capacity());
        assertEquals(Decision.Source.LOCAL, a.decision().source());

        Acquisition refused = l.acquire("exports", "tenant=acme", 3);
        assertFalse(refused.allowed());
        assertEquals(2, refused.remaining(), "a refusal takes nothing");
        assertEquals(Duration.ofSeconds(6), refused.retryAfter(), "one token more at 10/min: 6 s");
        // another client has its own bucket
        assertTrue(l.acquire("exports", "tenant=globex", 5).allowed());
        // the policy's own cost is 1
        assertEquals(1, l.acquire("exports", "tenant=acme").remaining());
    }

    /**
     * The buckets are the filters': a request whose key resolver finds {@code header.x-tenant=acme}
     * and an acquire for that key draw from one bucket, both ways.
     */
    @Test
    void theBucketIsTheOneAFilterUsesForTheSameClientKey() {
        RateLimiter engine = engine("tollgate.policies", "api", "tollgate.policy.api.limits", "10/min burst 5",
                "tollgate.policy.api.key", "header:X-Tenant");
        Limiter l = new Limiter(engine, false, waits);
        TestRequest request = TestRequest.get("/api/report").header("X-Tenant", "acme");
        Decision first = engine.check(request);
        assertEquals(4, first.results().get(0).limits().get(0).remaining());
        String filtersKey = first.results().get(0).clientKey();
        assertEquals("header.x-tenant=acme", filtersKey);

        Acquisition a = l.acquire("api", filtersKey, 3);
        assertEquals(1, a.remaining(), "the acquire took from what the request left");
        assertEquals(filtersKey, a.result().clientKey());
        Decision last = engine.check(request);
        assertTrue(last.allowed());
        assertEquals(0, last.results().get(0).limits().get(0).remaining(), "and the filter sees what the acquire took");
        assertEquals(Decision.Verdict.DENY, engine.check(request).verdict());
        assertFalse(l.acquire("api", filtersKey).allowed());
        assertTrue(l.acquire("api", "header.x-tenant=globex").allowed(), "another tenant is another bucket");
    }

    @Test
    void badArgumentsAreRefusedClearlyAndNeverNameTheClientKey() {
        Limiter l = limiter(EXPORTS);
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> l.acquire("export", "tenant=acme", 1));
        assertTrue(unknown.getMessage().startsWith("TOLLGATE-003: Limiter.acquire names the policy 'export'"), unknown.getMessage());
        assertTrue(unknown.getMessage().contains("[exports]"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> l.acquire(null, "tenant=acme", 1));

        String secret = "api-key=sk_live_0123456789";
        for (String bad : new String[] {null, "", secret + "x".repeat(Limiter.MAX_CLIENT_KEY)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> l.acquire("exports", bad, 1));
            assertTrue(e.getMessage().startsWith("client must be a key of"), e.getMessage());
            assertFalse(e.getMessage().contains("sk_live"), e.getMessage());
        }
        assertTrue(l.acquire("exports", "x".repeat(Limiter.MAX_CLIENT_KEY)).allowed(), "the longest key accepted");

        for (long cost : new long[] {0, -1, Long.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> l.acquire("exports", secret, cost));
            assertTrue(e.getMessage().startsWith("cost must be at least 1 token, got " + cost), e.getMessage());
        }
        IllegalArgumentException beyond = assertThrows(IllegalArgumentException.class, () -> l.acquire("exports", secret, 6));
        assertTrue(beyond.getMessage().startsWith("TOLLGATE-001") && beyond.getMessage().contains("whose burst is 5")
                && !beyond.getMessage().contains("sk_live"), beyond.getMessage());
        assertThrows(IllegalArgumentException.class, () -> l.acquire("exports", secret, 1, Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> l.acquire("exports", secret, 1, null));
        assertEquals(5, l.acquire("exports", secret, 5).limits().get(0).remaining() + 5, "nothing was taken by a refused call");

        Acquisition refused = l.acquire("exports", secret, 1);
        assertFalse(refused.allowed());
        assertFalse(refused.toString().contains("sk_live"), refused.toString());
        assertTrue(refused.toString().contains("api-key#"), "a fingerprint instead: " + refused);
    }

    @Test
    void aWaitingAcquireSleepsUntilItsTokensAreThere() throws InterruptedException {
        Limiter l = limiter(EXPORTS);
        assertTrue(l.acquire("exports", "tenant=acme", 5).allowed());
        Acquisition a = l.acquire("exports", "tenant=acme", 2, Duration.ofSeconds(30));
        assertTrue(a.allowed(), a.toString());
        assertEquals(List.of(Duration.ofSeconds(12)), waits.slept, "two tokens at 10/min: one sleep of 12 s");
        assertEquals(0, a.remaining());
    }

    @Test
    void aWaitingAcquireDoesNotSleepWhenItCannotSucceedInTime() throws InterruptedException {
        Limiter l = limiter(EXPORTS);
        assertTrue(l.acquire("exports", "tenant=acme", 5).allowed());
        Acquisition a = l.acquire("exports", "tenant=acme", 2, Duration.ofSeconds(11));
        assertFalse(a.allowed());
        assertEquals(Duration.ofSeconds(12), a.retryAfter());
        assertEquals(List.of(), waits.slept, "12 s needed, 11 s allowed: no sleep");
        // a zero wait asks once
        assertFalse(l.acquire("exports", "tenant=acme", 1, Duration.ZERO).allowed());
        assertEquals(List.of(), waits.slept);
    }

    @Test
    void aWaitingAcquireAsksAgainWhenAnotherTookTheTokensMeanwhile() throws InterruptedException {
        Limiter l = limiter(EXPORTS);
        assertTrue(l.acquire("exports", "tenant=acme", 5).allowed());
        // during the first sleep another worker takes the token that comes back
        waits.duringSleep = () -> {
            waits.duringSleep = () -> { };
            assertTrue(l.acquire("exports", "tenant=acme", 1).allowed());
        };
        Acquisition a = l.acquire("exports", "tenant=acme", 1, Duration.ofSeconds(13));
        assertTrue(a.allowed(), a.toString());
        assertEquals(List.of(Duration.ofSeconds(6), Duration.ofSeconds(6)), waits.slept);
        assertFalse(l.acquire("exports", "tenant=acme", 1, Duration.ofSeconds(1)).allowed(), "both tokens were taken");
    }

    @Test
    void aWaitingAcquireIsInterruptible() {
        Limiter l = limiter(EXPORTS);
        assertTrue(l.acquire("exports", "tenant=acme", 5).allowed());
        waits.interrupt = true;
        assertThrows(InterruptedException.class, () -> l.acquire("exports", "tenant=acme", 1, Duration.ofMinutes(1)));
        waits.interrupt = false;
        Thread.currentThread().interrupt();
        try {
            assertThrows(InterruptedException.class, () -> l.acquire("exports", "tenant=acme", 1, Duration.ofMinutes(1)));
            assertFalse(Thread.currentThread().isInterrupted(), "the interrupt is consumed by the exception");
        } finally {
            Thread.interrupted();
        }
        assertEquals(List.of(), waits.slept);
    }

    /** The store's failures: each failure mode decides an acquire as it decides a request. */
    @Test
    void aFailingStoreDecidesByTheFailureModeAsForTheFilters() throws InterruptedException {
        for (String mode : List.of("local", "open", "closed")) {
            TollgateConfig c = config("tollgate.policies", "exports", "tollgate.policy.exports.limits", "1/min",
                    "tollgate.redis.failure-mode", mode);
            RateLimiter engine = new RateLimiter(c, FailingStore.down(new LocalStore(1_000, () -> 0L)),
                    new LocalStore(1_000, clock::nowMicros), System::nanoTime);
            Limiter l = new Limiter(engine, true, waits);
            Acquisition first = l.acquire("exports", "job=nightly");
            Acquisition second = l.acquire("exports", "job=nightly");
            Decision filters = engine.check(TestRequest.get("/x"), List.of(c.policy("exports").orElseThrow()));
            switch (mode) {
                case "local" -> {
                    assertEquals(Decision.Source.LOCAL, first.decision().source());
                    assertTrue(first.allowed());
                    assertEquals(0, first.remaining());
                    assertFalse(second.allowed(), "this node's memory limits on its own");
                    assertEquals(Duration.ofMinutes(1), second.retryAfter());
                }
                case "open" -> {
                    assertTrue(first.allowed() && second.allowed());
                    assertEquals(Long.MAX_VALUE, second.remaining(), "no limit was consulted");
                    assertTrue(filters.allowed());
                }
                default -> {
                    assertFalse(first.allowed());
                    assertTrue(first.unavailable());
                    assertEquals(Duration.ofSeconds(1), first.retryAfter());
                    assertEquals(Decision.Verdict.UNAVAILABLE, filters.verdict());
                    // a waiting acquire waits out the second and asks again, then gives up when it cannot wait more
                    waits.slept.clear();
                    Acquisition waited = l.acquire("exports", "job=nightly", 1, Duration.ofMillis(2500));
                    assertTrue(waited.unavailable());
                    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(1)), waits.slept);
                }
            }
            l.close();
        }
    }

    /** A concurrency slot is held by an allowed acquisition until it is given back. */
    @Test
    void aConcurrencyPolicyHoldsASlotUntilReleased() throws InterruptedException {
        Limiter l = limiter("tollgate.policies", "imports", "tollgate.policy.imports.concurrency", "1",
                "tollgate.policy.imports.concurrency-lease", "10min");
        Acquisition held = l.acquire("imports", "tenant=acme");
        assertTrue(held.allowed());
        assertTrue(held.decision().permit().held());
        Acquisition refused = l.acquire("imports", "tenant=acme");
        assertFalse(refused.allowed());
        assertFalse(refused.release(), "a refusal holds nothing");
        // waiting: the holder gives its slot back during the second poll
        int[] polls = {0};
        waits.duringSleep = () -> {
            if (++polls[0] == 2) {
                held.close();
            }
        };
        try (Acquisition next = l.acquire("imports", "tenant=acme", 1, Duration.ofSeconds(5))) {
            assertTrue(next.allowed(), next.toString());
            assertEquals(List.of(Duration.ofMillis(20), Duration.ofMillis(20)), waits.slept,
                    "asked again every 20 ms, not after the 10 min lease");
        }
        assertFalse(held.release(), "given back once");
        // and given back by close: the next one gets it at once
        waits.slept.clear();
        try (Acquisition again = l.acquire("imports", "tenant=acme", 1, Duration.ofSeconds(5))) {
            assertTrue(again.allowed());
        }
        assertEquals(List.of(), waits.slept);
        // a slot that never comes back: polls until the wait is spent, then the refusal
        Acquisition keep = l.acquire("imports", "tenant=acme");
        waits.duringSleep = () -> { };
        waits.slept.clear();
        Acquisition late = l.acquire("imports", "tenant=acme", 1, Duration.ofMillis(50));
        assertFalse(late.allowed());
        assertEquals(List.of(Duration.ofMillis(20), Duration.ofMillis(20), Duration.ofMillis(10)), waits.slept);
        keep.release();
    }

    @Test
    void aLimiterOverAGivenEngineLeavesItOpen() {
        RateLimiter engine = engine(EXPORTS);
        Limiter l = Tollgate.limiter(engine);
        assertTrue(l.acquire("exports", "tenant=acme").allowed());
        l.close();
        assertTrue(engine.check(TestRequest.get("/exports/1")).allowed(), "still deciding");
        assertThrows(IllegalArgumentException.class, () -> Tollgate.limiter((RateLimiter) null));
    }
}
