package dev.tollgate.bench.decision;

import dev.tollgate.bench.Clients;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import redis.clients.jedis.RedisClient;

/**
 * The floor of a distributed decision: one round trip to Redis over the same pooled client set-up
 * as every contender. {@code ping} is the least a call can cost; {@code evalshaTrivial} adds
 * the script machinery ({@code return 1}) but no work.
 */
@State(Scope.Benchmark)
public class FloorBench {

    private RedisClient jedis;
    private String trivialSha;
    private final RedisStats stats = new RedisStats();
    private final LongAdder ops = new LongAdder();

    @Setup(Level.Trial)
    public void setUp() {
        jedis = Clients.redisClient("bench-floor");
        trivialSha = jedis.scriptLoad("return 1");
        stats.start(jedis);
    }

    @TearDown(Level.Trial)
    public void tearDown(BenchmarkParams params) {
        stats.finish(jedis, params, ops.sum(), 0);
        jedis.close();
    }

    @Benchmark
    public String ping() {
        ops.increment();
        return jedis.ping();
    }

    @Benchmark
    public Object evalshaTrivial() {
        ops.increment();
        return jedis.evalsha(trivialSha);
    }
}
