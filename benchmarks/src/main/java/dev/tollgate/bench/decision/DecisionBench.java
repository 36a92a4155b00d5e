package dev.tollgate.bench.decision;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.bench.Clients;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import redis.clients.jedis.RedisClient;

/**
 * One rate-limit decision, {@value Clients#LIMIT} per client, by each contender. Each call picks a
 * client at random among {@code keys}: 10,000 clients (almost every decision allows), or one busy
 * client (almost every decision denies).
 *
 * <ul>
 *   <li>{@code tollgateCheck}: {@link RateLimiter#check} over Redis, the whole engine as the
 *       filter calls it (policy match, key resolution, EVALSHA, the decision value).</li>
 *   <li>{@code tollgateUnpipelined}: the same with {@code tollgate.redis.auto-pipelining=false},
 *       every call on a pooled connection of its own.</li>
 *   <li>{@code bucket4j}: Bucket4j's Jedis integration, capacity 20, greedy refill 10/s.</li>
 *   <li>{@code article}: the article's script, sent with EVAL and the caller's clock.</li>
 *   <li>{@code localCheck}: the first, in memory.</li>
 * </ul>
 *
 * <p>The stores alone ({@code RedisStore.acquire}, {@code LocalStore.acquire}, formerly
 * {@code tollgateStore} and {@code localStore} here) are measured beside them, in filter-core's
 * {@code jmh} source set ({@code StoreBench}); this module keeps to the public API.
 */
@State(Scope.Benchmark)
public class DecisionBench {

    @Param({"10000", "1"})
    public int keys;

    private String method;
    private RequestView[] views;

    private RateLimiter limiter;
    private RedisClient jedis;
    private BucketProxy[] buckets;
    private String articleScript;
    private List<String>[] articleKeys;

    private final RedisStats stats = new RedisStats();
    private final LongAdder ops = new LongAdder();
    private final LongAdder fallbacks = new LongAdder();

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void setUp(BenchmarkParams params) {
        String b = params.getBenchmark();
        method = b.substring(b.lastIndexOf('.') + 1);
        views = new RequestView[keys];
        articleKeys = new List[keys];
        for (int i = 0; i < keys; i++) {
            String address = keys == 1 ? "192.0.2.1" : Clients.address(i);
            views[i] = Clients.request(address);
            articleKeys[i] = List.of("article:{ip=" + address + "}");
        }
        jedis = Clients.redisClient("bench-stats");
        switch (method) {
            case "tollgateCheck":
                limiter = Clients.limiter(true);
                break;
            case "tollgateUnpipelined":
                limiter = Clients.unpipelinedLimiter();
                break;
            case "localCheck":
                limiter = Clients.limiter(false);
                break;
            case "bucket4j":
                setUpBucket4j();
                break;
            case "article":
                articleScript = readArticleScript();
                break;
            default:
                throw new IllegalStateException("unknown benchmark " + method);
        }
        stats.start(jedis);
    }

    private void setUpBucket4j() {
        ProxyManager<byte[]> proxies = Bucket4jJedis.casBasedBuilder(jedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ZERO))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(Clients.CAPACITY)
                        .refillGreedy(Clients.REFILL_PER_SECOND, Duration.ofSeconds(1)))
                .build();
        buckets = new BucketProxy[keys];
        for (int i = 0; i < keys; i++) {
            String address = keys == 1 ? "192.0.2.1" : Clients.address(i);
            buckets[i] = proxies.builder().build(("bucket4j:{ip=" + address + "}").getBytes(StandardCharsets.UTF_8),
                    () -> config);
        }
    }

    static String readArticleScript() {
        try (InputStream in = DecisionBench.class.getResourceAsStream("/article/token_bucket.lua")) {
            if (in == null) {
                throw new IllegalStateException("article/token_bucket.lua is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown(BenchmarkParams params) {
        stats.finish(jedis, params, ops.sum(), fallbacks.sum());
        if (limiter != null) {
            limiter.close();
        }
        jedis.close();
    }

    private int next() {
        return keys == 1 ? 0 : ThreadLocalRandom.current().nextInt(keys);
    }

    @Benchmark
    public boolean tollgateCheck() {
        ops.increment();
        Decision d = limiter.check(views[next()]);
        if (d.source() != Decision.Source.REDIS) {
            fallbacks.increment(); // would make the figure a local one: reported, must stay 0
        }
        return d.allowed();
    }

    @Benchmark
    public boolean tollgateUnpipelined() {
        return tollgateCheck();
    }

    @Benchmark
    public boolean localCheck() {
        ops.increment();
        return limiter.check(views[next()]).allowed();
    }

    @Benchmark
    public boolean bucket4j() {
        ops.increment();
        return buckets[next()].tryConsume(1);
    }

    /** As the article calls its script: EVAL, the key, capacity, rate, the caller's clock in seconds, 1. */
    @Benchmark
    public Object article() {
        ops.increment();
        String now = Double.toString(System.currentTimeMillis() / 1000.0);
        return jedis.eval(articleScript, articleKeys[next()],
                List.of(Long.toString(Clients.CAPACITY), Long.toString(Clients.REFILL_PER_SECOND), now, "1"));
    }
}
