package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/**
 * Two application servers share one Redis. Whatever their clocks say, together they admit no
 * more than capacity + rate x elapsed, because the bucket script reads Redis TIME. The article's
 * script, which takes the caller's clock, is run the same way for contrast.
 */
@WithRedis
class SharedRedisIT {

    static final int CAPACITY = 10;
    static final int RATE = 20;
    static final long RUN_MILLIS = 1_500;

    @Test
    void twoServersTogetherAdmitNoMoreThanBurstPlusRateTimesElapsed(RedisEndpoint redis) throws Exception {
        Map<String, String> config = Map.of(
                "tollgate.redis.uri", redis.uri(),
                "tollgate.redis.timeout", "2s",
                "tollgate.policy.default.limits", RATE + "/s burst " + CAPACITY,
                "tollgate.redis.key-prefix", "skew-" + UUID.randomUUID() + ":");
        TollgateConfig c = TestConfigs.of(config);
        try (RateLimiter serverA = RateLimiter.create(c); RateLimiter serverB = RateLimiter.create(c)) {
            TestRequest request = TestRequest.get("/api/hello").from("203.0.113.50");
            long start = redisMicros(redis);
            int admitted = hammer(() -> serverA.check(request).allowed(), () -> serverB.check(request).allowed());
            double elapsed = (redisMicros(redis) - start) / 1e6;
            double bound = CAPACITY + RATE * elapsed;
            System.out.printf("[shared-redis] Tollgate: %d admitted in %.3f s; bound %.1f%n", admitted, elapsed, bound);
            assertTrue(admitted <= bound, admitted + " admitted, more than " + bound);
            assertTrue(admitted >= bound / 2, admitted + " admitted: the servers were not limited but blocked");
        }
    }

    @Test
    void theArticlesScriptWithSkewedCallerClocksAdmitsFarMore(RedisEndpoint redis) throws Exception {
        String script = articleScript();
        String key = "article-" + UUID.randomUUID();
        try (RedisClient a = RedisClient.create(redis.host(), redis.port());
             RedisClient b = RedisClient.create(redis.host(), redis.port())) {
            long start = redisMicros(redis);
            int admitted = hammer(
                    () -> articleCall(a, script, key, 180.0), // server A's clock is three minutes fast
                    () -> articleCall(b, script, key, 0.0));
            double elapsed = (redisMicros(redis) - start) / 1e6;
            double bound = CAPACITY + RATE * elapsed;
            System.out.printf("[shared-redis] article's script, clocks 3 min apart: %d admitted in %.3f s; bound %.1f%n",
                    admitted, elapsed, bound);
            assertTrue(admitted > bound, "the caller's clock lets skewed servers exceed the limit: " + admitted);
        }
    }

    private static boolean articleCall(RedisClient client, String script, String key, double skewSeconds) {
        double now = System.currentTimeMillis() / 1000.0 + skewSeconds;
        Object reply = client.eval(script, List.of(key), List.of(
                Integer.toString(CAPACITY), Integer.toString(RATE), Double.toString(now), "1"));
        return ((Long) ((List<?>) reply).get(0)) == 1L;
    }

    /** Two threads per server, interleaved, for a bounded time; returns how many were admitted. */
    private static int hammer(BooleanSupplier serverA, BooleanSupplier serverB) throws InterruptedException {
        AtomicInteger admitted = new AtomicInteger();
        long deadline = System.nanoTime() + RUN_MILLIS * 1_000_000;
        List<Thread> threads = List.of(
                new Thread(() -> loop(serverA, admitted, deadline)), new Thread(() -> loop(serverB, admitted, deadline)),
                new Thread(() -> loop(serverA, admitted, deadline)), new Thread(() -> loop(serverB, admitted, deadline)));
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        return admitted.get();
    }

    private static void loop(BooleanSupplier server, AtomicInteger admitted, long deadline) {
        while (System.nanoTime() < deadline) {
            if (server.getAsBoolean()) {
                admitted.incrementAndGet();
            }
        }
    }

    static long redisMicros(RedisEndpoint redis) {
        String[] t = redis.command("TIME").split("\n");
        return Long.parseLong(t[0]) * 1_000_000L + Long.parseLong(t[1]);
    }

    static String articleScript() throws IOException {
        try (InputStream in = SharedRedisIT.class.getResourceAsStream("/article/token_bucket.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
