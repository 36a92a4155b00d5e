package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tollgate.Limit;
import dev.tollgate.LimitState;
import dev.tollgate.Policy;
import dev.tollgate.PolicyResult;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DenyCacheTest {

    final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    /** The configuration the refusals were decided under. */
    final Object generation = new Object();
    final Limit limit = Limit.parse("10/s burst 20").get(0);
    final Policy policy = Policy.of("default", List.of(limit), request -> "ip=" + request.remoteAddress(), dev.tollgate.RequestMatcher.ALL);

    /** A refusal as Redis gives it: retry after {@code retryMicros}, reset in {@code resetMicros}. */
    PolicyResult refusal(String client, long retryMicros, long resetMicros) {
        return new PolicyResult(policy, client, null,
                List.of(new LimitState(limit, 0, retryMicros, resetMicros, retryMicros)));
    }

    void advanceMicros(long micros) {
        nanos.addAndGet(micros * 1_000L);
    }

    @Test
    void aRefusalIsRememberedUntilItsRetryAfterWithItsTimesBroughtUpToNow() {
        DenyCache cache = new DenyCache(100, nanos::get);
        cache.remember("a", generation, List.of(refusal("ip=a", 80_000, 2_000_000)));
        advanceMicros(30_000);
        PolicyResult r = cache.refused("a", generation).get(0);
        assertNotNull(r);
        LimitState s = r.limits().get(0);
        assertEquals(50_000, s.retryAfterMicros(), "30 ms of the 80 ms are spent");
        assertEquals(1_970_000, s.resetMicros());
        assertEquals(50_000, s.nextMicros());
        assertEquals(0, s.remaining());
        assertNull(cache.refused("b", generation), "another bucket is not refused");
        advanceMicros(49_999);
        assertEquals(1, cache.refused("a", generation).get(0).retryAfterMicros(), "the last microsecond still refuses");
        advanceMicros(1);
        assertNull(cache.refused("a", generation), "at the retry time the next request asks Redis again");
        assertEquals(0, cache.size(), "and the expired entry is gone");
    }

    @Test
    void aRefusalDecidedUnderAnotherConfigurationIsNeverServed() {
        DenyCache cache = new DenyCache(100, nanos::get);
        Object reloaded = new Object();
        cache.remember("a", generation, List.of(refusal("ip=a", 1_000_000, 2_000_000)));
        assertNull(cache.refused("a", reloaded), "a decision still running when the reload cleared the cache"
                + " remembered it under the old configuration");
        assertNull(cache.refused("a", generation), "and it was dropped when found stale");
    }

    @Test
    void clearForgetsEveryRefusal() {
        DenyCache cache = new DenyCache(100, nanos::get);
        cache.remember("a", generation, List.of(refusal("ip=a", 1_000_000, 2_000_000)));
        cache.clear();
        assertNull(cache.refused("a", generation));
    }

    @Test
    void aFullCacheSweepsExpiredRefusalsAtMostEveryHundredMillisecondsAndNeverGrows() {
        DenyCache cache = new DenyCache(3, nanos::get);
        cache.remember("a", generation, List.of(refusal("ip=a", 10_000, 10_000)));
        cache.remember("b", generation, List.of(refusal("ip=b", 10_000, 10_000)));
        cache.remember("c", generation, List.of(refusal("ip=c", 500_000, 500_000)));
        cache.remember("d", generation, List.of(refusal("ip=d", 500_000, 500_000)));
        assertEquals(3, cache.size(), "full of live refusals: the fourth is not remembered");
        assertNull(cache.refused("d", generation));

        advanceMicros(20_000); // a and b have expired, but the last sweep found nothing 20 ms ago
        cache.remember("e", generation, List.of(refusal("ip=e", 500_000, 500_000)));
        assertNull(cache.refused("e", generation), "no second sweep within 100 ms");
        assertEquals(3, cache.size());

        advanceMicros(100_000);
        cache.remember("f", generation, List.of(refusal("ip=f", 500_000, 500_000)));
        assertNotNull(cache.refused("f", generation), "the next sweep removed a and b and made room");
        assertNotNull(cache.refused("c", generation), "c is still refused");
        assertEquals(2, cache.size());
    }
}
