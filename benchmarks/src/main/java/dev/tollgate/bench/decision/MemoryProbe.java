package dev.tollgate.bench.decision;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.bench.Clients;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import redis.clients.jedis.RedisClient;

/**
 * Redis memory per active bucket with one limit ({@value Clients#LIMIT}), for Tollgate, the
 * article's hash and Bucket4j, and proof that idle buckets expire.
 *
 * <p>Two measures. {@code MEMORY USAGE} of one bucket, each written under the same key name so
 * that only the value and its encoding differ. And the growth of {@code used_memory} over 10,000
 * live buckets, divided by their count, which adds what {@code MEMORY USAGE} leaves out: the
 * slots of Redis' key and expiry tables.
 *
 * <p>Tollgate writes through its public API ({@link RateLimiter#check}) under the key names it
 * makes itself, found in the otherwise empty database; to compare the value alone, each bucket is
 * also copied ({@code DUMP}, {@code RESTORE}) under the names the other contenders use.
 */
final class MemoryProbe {

    static final String KEY = "tollgate:{ip=203.0.113.7}:default";
    static final String SHORT_KEY = "203.0.113.7";

    record Single(String who, long memoryUsage, long shortKeyMemoryUsage, long pttlMillis, String value) {
    }

    record Bulk(String who, long keys, double bytesPerKey) {
    }

    record Expiry(String who, String write, long pttlMillis, boolean existsBefore, long checkedAfterMillis,
                  boolean existsAfter) {
    }

    final List<Single> singles = new ArrayList<>();
    final List<Bulk> bulks = new ArrayList<>();
    final List<Expiry> expiries = new ArrayList<>();

    private final RedisClient jedis = Clients.redisClient("bench-memory");
    private final RateLimiter limiter = Clients.limiter(true);
    private final String article = DecisionBench.readArticleScript();
    private final ProxyManager<byte[]> bucket4j = Bucket4jJedis.casBasedBuilder(jedis)
            .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ZERO))
            .build();
    private final BucketConfiguration b4jConfig = BucketConfiguration.builder()
            .addLimit(limit -> limit.capacity(Clients.CAPACITY).refillGreedy(Clients.REFILL_PER_SECOND, Duration.ofSeconds(1)))
            .build();

    void run() throws Exception {
        jedis.flushAll();

        jedis.set(KEY, "1");
        jedis.set(SHORT_KEY, "1");
        singles.add(new Single("a plain string key (SET key 1), for scale", jedis.memoryUsage(KEY),
                jedis.memoryUsage(SHORT_KEY), -1, "1"));
        jedis.del(KEY, SHORT_KEY);

        tollgate(limiter, "203.0.113.7", 1);
        singles.add(single("Tollgate (GCRA, one integer)"));
        // tollgate.redis.key-format=compact: the client and the policy as short digests
        for (String prefix : List.of("tollgate:", "t:")) {
            try (RateLimiter compact = compactLimiter(prefix)) {
                String key = write(compact, "203.0.113.7", 1);
                jedis.restore(SHORT_KEY, Math.max(1, jedis.pttl(key)), jedis.dump(key));
                singles.add(new Single("Tollgate, key format `compact`, prefix `" + prefix + "` (key `" + key + "`)",
                        jedis.memoryUsage(key), jedis.memoryUsage(SHORT_KEY), jedis.pttl(key), shown(key)));
                jedis.del(key, SHORT_KEY);
            }
        }
        article(KEY);
        article(SHORT_KEY);
        singles.add(single("article's script (hash tokens/ts)"));
        bucket4j(KEY, 1);
        bucket4j(SHORT_KEY, 1);
        singles.add(single("Bucket4j Jedis (serialized state)"));

        // each bucket drained at once (20 tokens): it lives 2 s, longer than the 10,000 writes take
        try (RateLimiter drained = limiter(Map.of(COST, DRAIN))) {
            bulks.add(bulk("Tollgate", i -> drained.check(Clients.request(Clients.address(i)))));
        }
        try (RateLimiter compact = limiter(Map.of(COST, DRAIN, "tollgate.redis.key-format", "compact",
                "tollgate.redis.key-prefix", "t:"))) {
            bulks.add(bulk("Tollgate, key format `compact`, prefix `t:`", i -> compact.check(Clients.request(Clients.address(i)))));
        }
        bulks.add(bulk("article's script", i -> article("article:{ip=" + Clients.address(i) + "}")));
        bulks.add(bulk("Bucket4j Jedis", i -> bucket4j("bucket4j:{ip=" + Clients.address(i) + "}", Clients.CAPACITY)));

        expiry();
        limiter.close();
        jedis.close();
    }

    private static final String COST = "tollgate.policy.default.cost";
    private static final String DRAIN = Long.toString(Clients.CAPACITY);

    private static RateLimiter compactLimiter(String prefix) {
        return limiter(Map.of("tollgate.redis.key-format", "compact", "tollgate.redis.key-prefix", prefix));
    }

    /** Tollgate over Redis with the benchmark's limit and further configuration. */
    private static RateLimiter limiter(Map<String, String> more) {
        return RateLimiter.create(Clients.config(true, true, Clients.LIMIT, more));
    }

    /**
     * {@code requests} decisions for the client at {@code address} into an empty database, its
     * bucket then copied under {@link #KEY}, the name the other contenders use for it; Tollgate's
     * own key name back.
     */
    private String tollgate(RateLimiter limiter, String address, int requests) {
        String key = write(limiter, address, requests);
        if (!key.equals(KEY)) {
            jedis.restore(KEY, Math.max(1, jedis.pttl(key)), jedis.dump(key));
        }
        jedis.restore(SHORT_KEY, Math.max(1, jedis.pttl(key)), jedis.dump(key));
        if (!key.equals(KEY)) {
            jedis.del(key);
        }
        return key;
    }

    /** The time until the last bucket {@link #write} wrote is full again, as its last decision reported it. */
    private long lastResetMicros;

    /** {@code requests} decisions for the client at {@code address}; the one key Tollgate added. */
    private String write(RateLimiter limiter, String address, int requests) {
        Set<String> before = jedis.keys("*");
        Decision d = null;
        for (int i = 0; i < requests; i++) {
            d = limiter.check(Clients.request(address));
            if (d.source() != Decision.Source.REDIS) {
                throw new IllegalStateException("a decision of the memory probe did not come from Redis: " + d.source());
            }
        }
        lastResetMicros = d == null ? -1 : d.results().get(0).limits().get(0).resetMicros();
        Set<String> added = new java.util.HashSet<>(jedis.keys("*"));
        added.removeAll(before);
        if (added.size() != 1) {
            throw new IllegalStateException("expected Tollgate to add one bucket to Redis, it added " + added.size() + " keys");
        }
        return added.iterator().next();
    }

    private Single single(String who) {
        Single s = new Single(who, jedis.memoryUsage(KEY), jedis.memoryUsage(SHORT_KEY), jedis.pttl(KEY), shown(KEY));
        jedis.del(KEY, SHORT_KEY);
        return s;
    }

    private String shown(String key) {
        String type = jedis.type(key);
        if (type.equals("hash")) {
            return jedis.hgetAll(key).toString();
        }
        byte[] v = jedis.get(key.getBytes(StandardCharsets.UTF_8));
        if (v == null) {
            return "(gone)";
        }
        boolean printable = true;
        for (byte b : v) {
            printable &= b >= 32 && b < 127;
        }
        return printable ? new String(v, StandardCharsets.US_ASCII) : v.length + " bytes, binary";
    }

    private void article(String key) {
        jedis.eval(article, List.of(key), List.of(Long.toString(Clients.CAPACITY),
                Long.toString(Clients.REFILL_PER_SECOND), Double.toString(System.currentTimeMillis() / 1000.0), "1"));
    }

    private void bucket4j(String key, long tokens) {
        bucket4j.builder().build(key.getBytes(StandardCharsets.UTF_8), () -> b4jConfig).tryConsume(tokens);
    }

    /** 10,000 buckets written from 8 threads, then the growth of used_memory per key present. */
    private Bulk bulk(String who, IntConsumer write) throws Exception {
        jedis.flushAll();
        Thread.sleep(200);
        long before = usedMemory();
        int n = 10_000;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int start = t;
            done.add(pool.submit(() -> {
                for (int i = start; i < n; i += 8) {
                    write.accept(i);
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        long after = usedMemory();
        long keys = jedis.dbSize();
        jedis.flushAll();
        return new Bulk(who, keys, keys == 0 ? Double.NaN : (after - before) / (double) keys);
    }

    private long usedMemory() {
        for (String line : jedis.info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory");
    }

    /** Each contender writes one bucket; each key must be gone once its time-to-live has passed. */
    private void expiry() throws InterruptedException {
        jedis.flushAll();
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("Tollgate", write(limiter, "198.51.100.1", 1));
        long reset1 = lastResetMicros;
        long reset20;
        try (RateLimiter drained = limiter(Map.of(COST, DRAIN))) {
            keys.put("Tollgate, drained", write(drained, "198.51.100.2", 1));
            reset20 = lastResetMicros;
        }
        keys.put("article's script", "article:{ip=198.51.100.1}");
        keys.put("Bucket4j Jedis", "bucket4j:{ip=198.51.100.1}");
        article(keys.get("article's script"));
        bucket4j(keys.get("Bucket4j Jedis"), 1);
        long start = System.nanoTime();
        Map<String, Long> pttl = new LinkedHashMap<>();
        Map<String, Boolean> existed = new LinkedHashMap<>();
        long longest = 0;
        for (Map.Entry<String, String> e : keys.entrySet()) {
            long t = jedis.pttl(e.getValue());
            pttl.put(e.getKey(), t);
            existed.put(e.getKey(), jedis.exists(e.getValue()));
            longest = Math.max(longest, t);
        }
        long checkAt = longest + 100;
        Thread.sleep(Math.max(0, checkAt - (System.nanoTime() - start) / 1_000_000));
        long waited = (System.nanoTime() - start) / 1_000_000;
        Map<String, String> writes = Map.of(
                "Tollgate", "1 request (reset in " + reset1 / 1000 + " ms)",
                "Tollgate, drained", "20 tokens at once (reset in " + reset20 / 1000 + " ms)",
                "article's script", "1 request",
                "Bucket4j Jedis", "1 request");
        for (Map.Entry<String, String> e : keys.entrySet()) {
            expiries.add(new Expiry(e.getKey(), writes.get(e.getKey()), pttl.get(e.getKey()), existed.get(e.getKey()),
                    waited, jedis.exists(e.getValue())));
        }
        jedis.flushAll();
    }
}
