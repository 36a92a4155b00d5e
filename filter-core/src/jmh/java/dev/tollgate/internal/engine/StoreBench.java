package dev.tollgate.internal.engine;

import dev.tollgate.Decision;
import dev.tollgate.Limit;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.internal.bucket.BucketReply;
import dev.tollgate.internal.bucket.BucketRequest;
import dev.tollgate.internal.identity.BucketKeys;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.local.MicroClock;
import dev.tollgate.internal.redis.JedisPort;
import dev.tollgate.internal.redis.RedisStore;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.TestRequest;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The stores under the engine, and the engine above them, in one JMH run: one call for one of
 * {@code clients} picked at random, the bucket requests built in advance with the keys, limit and
 * store size the engine uses. The engine's own cost (matching, key resolution, planning, the
 * answer) is a check's figure minus its store's, both measured here.
 *
 * <ul>
 *   <li>{@code localStore}: {@link LocalStore#acquire}.</li>
 *   <li>{@code localFollow}: {@link LocalStore#follow}, what a {@code local} policy adds to each Redis
 *       decision (the replies made once in advance by a second store playing the shared one; every
 *       call takes, so the followed buckets stay stored).</li>
 *   <li>{@code localCheck}: {@link RateLimiter#check} with the in-memory store.</li>
 *   <li>{@code redisStore}: {@link RedisStore#acquire} (auto-pipelining, no deny cache) on a
 *       {@code redis-server} this trial starts on a free port.</li>
 *   <li>{@code redisCheck}: {@link RateLimiter#check} over that Redis (auto-pipelining, deny cache).</li>
 * </ul>
 *
 * <p>These were {@code DecisionBench.tollgateStore}, {@code DecisionBench.localStore},
 * {@code EngineBench.localStore} and {@code FollowCost} of the benchmarks module, which keeps to the
 * public API.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class StoreBench {

    /** How many clients the calls are spread over (10,000 as the decision benchmark). */
    @Param({"10000"})
    public int clients;

    /**
     * The limit. By default a burst no run can spend, so that every decision allows and every
     * client's bucket is kept between its requests: store and check then both measure the allowed
     * path over existing buckets. {@code -p limit="10/s burst 20"} is the decision benchmark's.
     */
    @Param({"1/s burst 1000000000"})
    public String limit;

    private RequestView[] views;
    private List<BucketRequest>[] requests;
    private BucketRequest[] followed;
    private BucketReply[] replies;
    private RedisProcess redis;
    private RateLimiter limiter;
    private LocalStore local;
    private RedisStore store;
    private final LongAdder unexpected = new LongAdder();

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        String b = params.getBenchmark();
        setUp(b.substring(b.lastIndexOf('.') + 1));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    void setUp(String method) {
        List<Limit> limits = Limit.parse(limit);
        views = new RequestView[clients];
        requests = new List[clients];
        for (int i = 0; i < clients; i++) {
            String address = address(i);
            views[i] = TestRequest.get("/api/hello").from(address);
            requests[i] = List.of(BucketRequest.take(BucketKeys.key("tollgate:", "default", BucketKeys.client("ip=" + address)),
                    limits, 1, true));
        }
        if (method.startsWith("redis")) {
            redis = TestRedis.startProcess();
        }
        switch (method) {
            case "localStore" -> local = new LocalStore(100_000, MicroClock.SYSTEM);
            case "localFollow" -> {
                local = new LocalStore(100_000, MicroClock.SYSTEM);
                followed = new BucketRequest[clients];
                replies = new BucketReply[clients];
                try (LocalStore shared = new LocalStore(100_000, MicroClock.SYSTEM)) {
                    for (int i = 0; i < clients; i++) {
                        followed[i] = requests[i].get(0);
                        replies[i] = shared.acquire(requests[i]).get(0);
                    }
                }
            }
            case "localCheck" -> limiter = RateLimiter.create(config(false));
            case "redisStore" -> {
                store = new RedisStore(JedisPort.standalone(((dev.tollgate.config.StoreSettings.OnRedis) config(true).store()).redis()));
                store.load(requests[0].get(0).key());
            }
            case "redisCheck" -> limiter = RateLimiter.create(config(true));
            default -> throw new IllegalStateException("unknown benchmark " + method);
        }
    }

    private TollgateConfig config(boolean overRedis) {
        return overRedis
                ? TestConfigs.of("tollgate.policy.default.limits", limit, "tollgate.policy.default.key", "ip",
                        "tollgate.local.max-keys", "100000", "tollgate.redis.uri", redis.uri(),
                        "tollgate.redis.timeout", "10000ms")
                : TestConfigs.of("tollgate.policy.default.limits", limit, "tollgate.policy.default.key", "ip",
                        "tollgate.local.max-keys", "100000");
    }

    /** The client address of key number {@code i}: 10.x.y.z, as the benchmarks module's. */
    static String address(int i) {
        return "10." + ((i >> 16) & 255) + "." + ((i >> 8) & 255) + "." + (i & 255);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (unexpected.sum() > 0) {
            System.out.println("[bench] " + unexpected.sum() + " checks had no store's answer");
        }
        if (limiter != null) {
            limiter.close();
        }
        if (local != null) {
            local.close();
        }
        if (store != null) {
            store.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private int next() {
        return ThreadLocalRandom.current().nextInt(clients);
    }

    @Benchmark
    public Object localStore() {
        return local.acquire(requests[next()]);
    }

    @Benchmark
    public void localFollow() {
        int i = next();
        local.follow(followed[i], replies[i], true);
    }

    @Benchmark
    public Object localCheck() {
        return counted(limiter.check(views[next()]));
    }

    @Benchmark
    public Object redisStore() {
        return store.acquire(requests[next()]);
    }

    @Benchmark
    public Object redisCheck() {
        return counted(limiter.check(views[next()]));
    }

    private Decision counted(Decision d) {
        if (d.source() == Decision.Source.NONE) {
            unexpected.increment(); // the figure would not be a store's decision: reported
        }
        return d;
    }
}
