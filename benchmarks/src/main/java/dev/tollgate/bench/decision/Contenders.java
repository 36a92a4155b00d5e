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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import redis.clients.jedis.RedisClient;

/**
 * Every contender set up in this JVM, each on its own pooled client built alike, for the
 * interleaved measurements: a call per contender that decides for client number {@code k}, over
 * 10,000 clients or one busy client. Same calls as {@link DecisionBench}.
 */
final class Contenders implements AutoCloseable {

    static final int KEYS = 10_000;

    private final RedisClient floor = Clients.redisClient("bench-floor");
    private final RedisClient b4jClient = Clients.redisClient("bench-bucket4j");
    private final RedisClient articleClient = Clients.redisClient("bench-article");
    private final RateLimiter limiter = Clients.limiter(true);
    private final RateLimiter unpipelined = Clients.unpipelinedLimiter();
    private final RateLimiter local = Clients.limiter(false);
    private final String trivial = floor.scriptLoad("return 1");
    private final String article = DecisionBench.readArticleScript();
    final LongAdder fallbacks = new LongAdder();

    /** Index KEYS is the busy client. */
    private final RequestView[] views = new RequestView[KEYS + 1];
    @SuppressWarnings("unchecked")
    private final List<String>[] articleKeys = new List[KEYS + 1];
    private final BucketProxy[] buckets = new BucketProxy[KEYS + 1];

    Contenders() {
        ProxyManager<byte[]> proxies = Bucket4jJedis.casBasedBuilder(b4jClient)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ZERO))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(Clients.CAPACITY).refillGreedy(Clients.REFILL_PER_SECOND, Duration.ofSeconds(1)))
                .build();
        for (int i = 0; i <= KEYS; i++) {
            String address = i == KEYS ? "192.0.2.1" : Clients.address(i);
            views[i] = Clients.request(address);
            articleKeys[i] = List.of("article:{ip=" + address + "}");
            buckets[i] = proxies.builder().build(("bucket4j:{ip=" + address + "}").getBytes(StandardCharsets.UTF_8),
                    () -> config);
        }
    }

    /** The calls by benchmark name; each takes a client index (KEYS for the busy client). */
    Map<String, IntConsumer> calls() {
        Map<String, IntConsumer> m = new LinkedHashMap<>();
        m.put("ping", k -> floor.ping());
        m.put("evalshaTrivial", k -> floor.evalsha(trivial));
        m.put("tollgateCheck", k -> {
            if (limiter.check(views[k]).source() != Decision.Source.REDIS) {
                fallbacks.increment();
            }
        });
        m.put("tollgateUnpipelined", k -> {
            if (unpipelined.check(views[k]).source() != Decision.Source.REDIS) {
                fallbacks.increment();
            }
        });
        m.put("bucket4j", k -> buckets[k].tryConsume(1));
        m.put("article", k -> articleClient.eval(article, articleKeys[k], List.of(Long.toString(Clients.CAPACITY),
                Long.toString(Clients.REFILL_PER_SECOND), Double.toString(System.currentTimeMillis() / 1000.0), "1")));
        m.put("localCheck", k -> local.check(views[k]));
        return m;
    }

    @Override
    public void close() {
        limiter.close();
        unpipelined.close();
        local.close();
        floor.close();
        b4jClient.close();
        articleClient.close();
    }
}
