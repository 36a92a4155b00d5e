package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two application servers with token leasing share one real Redis, each with several threads on
 * one client: together they admit at most C + r·t + 2k, and a key under its limit costs about
 * one Redis call per k decisions.
 */
@WithRedis
class TokenLeasingIT {

    static final long RUN_MILLIS = 1_500;
    static final int THREADS_PER_SERVER = 4;

    static TollgateConfig config(RedisEndpoint redis, String limits, int prefetch) {
        return TestConfigs.of(
                "tollgate.redis.uri", redis.uri(),
                "tollgate.redis.timeout", "2s",
                "tollgate.metrics", "none",
                "tollgate.jmx", "false",
                "tollgate.policy.default.limits", limits,
                "tollgate.policy.default.prefetch", Integer.toString(prefetch),
                "tollgate.redis.key-prefix", "leasing-" + UUID.randomUUID() + ":");
    }

    @Test
    void twoServersOverTheLimitAdmitNoMoreThanTheBound(RedisEndpoint redis) throws Exception {
        int capacity = 200;
        int rate = 2_000;
        int k = 50;
        TollgateConfig c = config(redis, rate + "/s burst " + capacity, k);
        try (RateLimiter a = RateLimiter.create(c); RateLimiter b = RateLimiter.create(c)) {
            long start = SharedRedisIT.redisMicros(redis);
            int[] counts = hammer(a, b);
            double elapsed = (SharedRedisIT.redisMicros(redis) - start) / 1e6;
            double bound = capacity + rate * elapsed + 2 * k;
            System.out.printf("[leasing] %d admitted of %d in %.3f s; bound C + r·t + 2k = %.1f; %d Redis calls%n",
                    counts[0], counts[1], elapsed, bound, a.redisCalls() + b.redisCalls());
            assertTrue(counts[0] <= bound, counts[0] + " admitted, more than " + bound);
            assertTrue(counts[0] >= (capacity + rate * elapsed) / 2, counts[0] + " admitted: limited, or blocked?");
        }
    }

    @Test
    void aKeyUnderItsLimitCostsAboutOneCallPerPrefetch(RedisEndpoint redis) throws Exception {
        int k = 100;
        TollgateConfig c = config(redis, "1000000/s burst 100000", k);
        try (RateLimiter a = RateLimiter.create(c); RateLimiter b = RateLimiter.create(c)) {
            int[] counts = hammer(a, b);
            long calls = a.redisCalls() + b.redisCalls();
            System.out.printf("[leasing] %d decisions, %d admitted, %d Redis calls%n", counts[1], counts[0], calls);
            assertTrue(counts[0] == counts[1], "every request is under the limit");
            // each lease serves k unless a hold ends first; a few more for the last, partly used ones
            assertTrue(calls <= counts[1] / (k / 2) + 4, calls + " calls for " + counts[1] + " decisions");
        }
    }

    /** Threads on both servers for a bounded time; {admitted, decisions}. */
    private static int[] hammer(RateLimiter a, RateLimiter b) throws InterruptedException {
        TestRequest request = TestRequest.get("/api/hello").from("203.0.113.77");
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger decisions = new AtomicInteger();
        long deadline = System.nanoTime() + RUN_MILLIS * 1_000_000;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2 * THREADS_PER_SERVER; i++) {
            RateLimiter server = i % 2 == 0 ? a : b;
            threads.add(new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    decisions.incrementAndGet();
                    if (server.check(request).allowed()) {
                        admitted.incrementAndGet();
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        return new int[] {admitted.get(), decisions.get()};
    }
}
