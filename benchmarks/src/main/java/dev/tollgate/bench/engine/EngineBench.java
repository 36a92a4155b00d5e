package dev.tollgate.bench.engine;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.RequestView;
import dev.tollgate.bench.Clients;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * One decision by {@link RateLimiter#check} (issue 15), in memory and over Redis, for one of
 * {@code clients} picked at random (every decision allows, see {@link #LIMIT}): time and bytes
 * as the filter calls it.
 *
 * <ul>
 *   <li>{@code localCheck}: {@link RateLimiter#check} with the in-memory store, as the filter calls it.</li>
 *   <li>{@code redisCheck}: {@link RateLimiter#check} over Redis (auto-pipelining, deny cache).</li>
 * </ul>
 *
 * <p>The store under the check ({@code LocalStore.acquire}, formerly {@code localStore} here), and
 * so the engine's own share, is measured in filter-core's {@code jmh} source set
 * ({@code StoreBench}, {@code EngineInterleaved}); this module keeps to the public API.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EngineBench {

    /**
     * How many clients the calls are spread over: 10,000 (as the decision benchmark), or more
     * than the planner keeps plans for (it keeps 16,384, one per slot), where most checks make
     * their plan again.
     */
    @Param({"10000"})
    public int clients = 10_000;
    /**
     * A burst no run can spend, so that every decision allows and every client's bucket is kept
     * between its requests (a client using its budget): the store and the check then both measure
     * the allowed path over existing buckets, which every admitted request pays. With the
     * decision benchmark's 10/s a faster contender would meet more refusals than a slower one;
     * with a fast refill every bucket would be full again, and so absent, at its next request.
     */
    static final String LIMIT = "1/s burst 1000000000";

    private RequestView[] views;
    private RateLimiter limiter;
    private final LongAdder unexpected = new LongAdder();

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void setUp(BenchmarkParams params) {
        String b = params.getBenchmark();
        setUp(b.substring(b.lastIndexOf('.') + 1));
    }

    /** Sets up for one benchmark method, by name (also for {@link AllocationSites}). */
    @SuppressWarnings("unchecked")
    void setUp(String method) {
        views = new RequestView[clients];
        for (int i = 0; i < clients; i++) {
            views[i] = Clients.request(Clients.address(i));
        }
        switch (method) {
            case "localCheck" -> limiter = RateLimiter.create(Clients.config(false, true, LIMIT));
            case "redisCheck" -> limiter = RateLimiter.create(Clients.config(true, true, LIMIT));
            default -> throw new IllegalStateException("unknown benchmark " + method);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (unexpected.sum() > 0) {
            System.out.println("[bench] " + unexpected.sum() + " decisions were not allowed by a store");
        }
        if (limiter != null) {
            limiter.close();
        }
    }

    private int next() {
        return ThreadLocalRandom.current().nextInt(clients);
    }

    @Benchmark
    public Object localCheck() {
        return counted(limiter.check(views[next()]));
    }

    @Benchmark
    public Object redisCheck() {
        return counted(limiter.check(views[next()]));
    }

    private Decision counted(Decision d) {
        if (!d.allowed() || d.source() == Decision.Source.NONE) {
            unexpected.increment(); // the figure would not be the allowed path's: reported
        }
        return d;
    }
}
