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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.RedisClient;

/**
 * Single-thread latency of each contender, interleaved: every round calls each contender once, in
 * a rotating order, over 10,000 clients, so that a noisy neighbour on a shared machine slows all
 * of them alike and the ratios stay meaningful. Complements JMH's throughput figures, which run
 * one contender after another.
 */
final class Interleaved {

    record Figure(String name, double p50Micros, double p90Micros, double p99Micros, double meanMicros, long count) {
    }

    private Interleaved() {
    }

    static List<Figure> run(int warmupRounds, int rounds) {
        int keys = 10_000;
        RequestView[] views = views(keys);
        List<String>[] articleKeys = articleKeys(keys);
        String article = DecisionBench.readArticleScript();

        RedisClient jedis = Clients.redisClient("bench-interleaved");
        String trivial = jedis.scriptLoad("return 1");
        RateLimiter limiter = Clients.limiter(true);
        RateLimiter local = Clients.limiter(false);
        ProxyManager<byte[]> proxies = Bucket4jJedis.casBasedBuilder(jedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ZERO))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(Clients.CAPACITY).refillGreedy(Clients.REFILL_PER_SECOND, Duration.ofSeconds(1)))
                .build();
        BucketProxy[] buckets = new BucketProxy[keys];
        for (int i = 0; i < keys; i++) {
            buckets[i] = proxies.builder().build(("bucket4j:{ip=" + Clients.address(i) + "}")
                    .getBytes(StandardCharsets.UTF_8), () -> config);
        }
        long[] fallbacks = new long[1];

        Map<String, IntConsumer> contenders = new LinkedHashMap<>();
        contenders.put("ping", k -> jedis.ping());
        contenders.put("evalshaTrivial", k -> jedis.evalsha(trivial));
        contenders.put("tollgateCheck", k -> {
            if (limiter.check(views[k]).source() != Decision.Source.REDIS) {
                fallbacks[0]++;
            }
        });
        contenders.put("bucket4j", k -> buckets[k].tryConsume(1));
        contenders.put("article", k -> jedis.eval(article, articleKeys[k], List.of(Long.toString(Clients.CAPACITY),
                Long.toString(Clients.REFILL_PER_SECOND), Double.toString(System.currentTimeMillis() / 1000.0), "1")));
        contenders.put("localCheck", k -> local.check(views[k]));

        List<String> names = new ArrayList<>(contenders.keySet());
        List<IntConsumer> calls = new ArrayList<>(contenders.values());
        Histogram[] h = new Histogram[names.size()];
        for (int i = 0; i < h.length; i++) {
            h[i] = new Histogram(60_000_000_000L, 3);
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < warmupRounds + rounds; round++) {
            boolean record = round >= warmupRounds;
            for (int j = 0; j < calls.size(); j++) {
                int c = (round + j) % calls.size();
                int k = random.nextInt(keys);
                long t0 = System.nanoTime();
                calls.get(c).accept(k);
                long t = System.nanoTime() - t0;
                if (record) {
                    h[c].recordValue(t);
                }
            }
        }
        if (fallbacks[0] > 0) {
            System.out.println("[bench] warning: " + fallbacks[0] + " Tollgate decisions fell back to memory");
        }
        List<Figure> out = new ArrayList<>();
        for (int i = 0; i < h.length; i++) {
            out.add(new Figure(names.get(i), h[i].getValueAtPercentile(50) / 1000.0,
                    h[i].getValueAtPercentile(90) / 1000.0, h[i].getValueAtPercentile(99) / 1000.0,
                    h[i].getMean() / 1000.0, h[i].getTotalCount()));
        }
        limiter.close();
        local.close();
        jedis.close();
        return out;
    }

    private static RequestView[] views(int keys) {
        RequestView[] views = new RequestView[keys];
        for (int i = 0; i < keys; i++) {
            views[i] = Clients.request(Clients.address(i));
        }
        return views;
    }

    @SuppressWarnings("unchecked")
    private static List<String>[] articleKeys(int keys) {
        List<String>[] r = new List[keys];
        for (int i = 0; i < keys; i++) {
            r[i] = List.of("article:{ip=" + Clients.address(i) + "}");
        }
        return r;
    }
}
