package dev.tollgate.bench.growth;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.bench.Clients;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.RedisClient;

/**
 * Redis as the live bucket keys grow: filled with real Tollgate decisions ({@link RateLimiter#check}
 * over Redis, auto-pipelined, from several threads) up to each size, then {@code used_memory}
 * growth per bucket and the single-thread latency of a decision for a client at random among
 * those live, interleaved with a {@code PING} over a pooled Jedis client at the same size.
 */
final class RedisGrowth {

    record Step(int keys, long dbSize, long usedMemory, double bytesPerKey, double marginalBytesPerKey,
                Rotation.Figure decision, Rotation.Figure ping, double fillPerSecond) {
    }

    private RedisGrowth() {
    }

    static List<Step> run(List<Integer> sizes, int rounds) throws Exception {
        Map<String, String> values = Configs.base(1);
        values.put("tollgate.redis.uri", "redis://127.0.0.1:" + Clients.port());
        values.put("tollgate.redis.pool-size", "16");
        values.put("tollgate.redis.timeout", "10s");
        List<Step> steps = new ArrayList<>();
        try (RedisClient jedis = Clients.redisClient("bench-growth")) {
            jedis.flushAll();
            RateLimiter limiter = RateLimiter.create(Configs.load(values));
            try {
                // One decision outside the clients' range loads the script and opens the connections.
                need(limiter.check(GrowthRequest.of("GET", "/api/hello", "192.0.2.1")));
                Thread.sleep(200);
                long base = usedMemory(jedis);
                long baseKeys = jedis.dbSize();
                int filled = 0;
                long prevMemory = base;
                SplittableRandom random = new SplittableRandom(15);
                for (int size : sizes) {
                    long t0 = System.nanoTime();
                    fill(limiter, filled, size);
                    double fillRate = (size - filled) / ((System.nanoTime() - t0) / 1e9);
                    Thread.sleep(200);
                    long used = usedMemory(jedis);
                    long keys = jedis.dbSize() - baseKeys;
                    if (keys != size) {
                        throw new IllegalStateException("expected " + size + " live buckets, Redis holds " + keys);
                    }
                    System.out.printf("[bench] redis: %,d buckets, used_memory %,d B (%.1f B/bucket), filled at %,.0f/s%n",
                            size, used, (used - base) / (double) size, fillRate);
                    Supplier<Object> decision = () -> need(limiter.check(view(random.nextInt(size))));
                    Supplier<Object> ping = jedis::ping;
                    Histogram[] h = Rotation.time(List.of(decision, ping), Math.min(rounds / 4, 2_000), rounds);
                    steps.add(new Step(size, keys, used, (used - base) / (double) size,
                            (used - prevMemory) / (double) (size - filled),
                            Rotation.figure("decision", h[0], Double.NaN), Rotation.figure("PING", h[1], Double.NaN),
                            fillRate));
                    prevMemory = usedMemory(jedis);
                    filled = size;
                }
            } finally {
                limiter.close();
                jedis.flushAll();
            }
        }
        return steps;
    }

    private static RequestView view(int client) {
        return GrowthRequest.of("GET", "/api/hello", Clients.address(client));
    }

    private static Decision need(Decision d) {
        if (!d.allowed() || d.source() != Decision.Source.REDIS) {
            throw new IllegalStateException("a decision was not Redis' admit: " + d.verdict() + " from " + d.source());
        }
        return d;
    }

    /** Clients {@code from} to {@code to - 1}, each one decision, from 8 threads (auto-pipelined). */
    private static void fill(RateLimiter limiter, int from, int to) throws Exception {
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        LongAdder done = new LongAdder();
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = from + t;
                work.add(pool.submit(() -> {
                    for (int i = first; i < to; i += threads) {
                        need(limiter.check(view(i)));
                        done.increment();
                    }
                }));
            }
            for (Future<?> f : work) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    static long usedMemory(RedisClient jedis) {
        for (String line : jedis.info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory");
    }
}
