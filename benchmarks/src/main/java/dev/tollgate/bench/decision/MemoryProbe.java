package dev.tollgate.bench.decision;

import dev.tollgate.Limit;
import dev.tollgate.bench.Clients;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.redis.JedisPort;
import dev.tollgate.internal.redis.RedisStore;
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
    private final RedisStore store = new RedisStore(JedisPort.standalone(Clients.redis(Clients.config(true))));
    private final List<Limit> limits = Limit.parse(Clients.LIMIT);
    private final String article = DecisionBench.readArticleScript();
    private final ProxyManager<byte[]> bucket4j = Bucket4jJedis.casBasedBuilder(jedis)
            .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ZERO))
            .build();
    private final BucketConfiguration b4jConfig = BucketConfiguration.builder()
            .addLimit(limit -> limit.capacity(Clients.CAPACITY).refillGreedy(Clients.REFILL_PER_SECOND, Duration.ofSeconds(1)))
            .build();

    void run() throws Exception {
        store.load(KEY);
        jedis.flushAll();

        jedis.set(KEY, "1");
        jedis.set(SHORT_KEY, "1");
        singles.add(new Single("a plain string key (SET key 1), for scale", jedis.memoryUsage(KEY),
                jedis.memoryUsage(SHORT_KEY), -1, "1"));
        jedis.del(KEY, SHORT_KEY);

        resetMicros(KEY, 1);
        resetMicros(SHORT_KEY, 1);
        singles.add(single("Tollgate (GCRA, one integer)"));
        // tollgate.redis.key-format=compact: the client and the policy as short digests
        for (String prefix : List.of("tollgate:", "t:")) {
            String compact = BucketKeys.compactKey(prefix, "default", BucketKeys.client("ip=203.0.113.7"), false);
            resetMicros(compact, 1);
            resetMicros(SHORT_KEY, 1);
            singles.add(new Single("Tollgate, key format `compact`, prefix `" + prefix + "` (key `" + compact + "`)",
                    jedis.memoryUsage(compact), jedis.memoryUsage(SHORT_KEY), jedis.pttl(compact), shown(compact)));
            jedis.del(compact, SHORT_KEY);
        }
        article(KEY);
        article(SHORT_KEY);
        singles.add(single("article's script (hash tokens/ts)"));
        bucket4j(KEY, 1);
        bucket4j(SHORT_KEY, 1);
        singles.add(single("Bucket4j Jedis (serialized state)"));

        bulks.add(bulk("Tollgate", i -> resetMicros("tollgate:{ip=" + Clients.address(i) + "}:default", Clients.CAPACITY)));
        bulks.add(bulk("Tollgate, key format `compact`, prefix `t:`", i -> resetMicros(
                BucketKeys.compactKey("t:", "default", BucketKeys.client("ip=" + Clients.address(i)), false), Clients.CAPACITY)));
        bulks.add(bulk("article's script", i -> article("article:{ip=" + Clients.address(i) + "}")));
        bulks.add(bulk("Bucket4j Jedis", i -> bucket4j("bucket4j:{ip=" + Clients.address(i) + "}", Clients.CAPACITY)));

        expiry();
        store.close();
        jedis.close();
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

    private long resetMicros(String key, long cost) {
        return store.acquire(List.of(BucketRequest.take(key, limits, cost, true))).get(0).limits().get(0).resetMicros();
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
        keys.put("Tollgate", "tollgate:{ip=198.51.100.1}:default");
        keys.put("Tollgate, drained", "tollgate:{ip=198.51.100.2}:default");
        keys.put("article's script", "article:{ip=198.51.100.1}");
        keys.put("Bucket4j Jedis", "bucket4j:{ip=198.51.100.1}");
        long reset1 = resetMicros(keys.get("Tollgate"), 1);
        long reset20 = resetMicros(keys.get("Tollgate, drained"), Clients.CAPACITY);
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
