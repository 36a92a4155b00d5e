package dev.tollgate.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@link Metrics} through Micrometer's global registry (where an application's registries are
 * added). Touched only when Micrometer is on the class path.
 */
public final class MicrometerMetrics extends Metrics {

    private final MeterRegistry registry;
    private final Timer redisOk;
    /** By {@code error.type}: a set bounded by the code ({@link MeterNames#errorType}). */
    private final Map<String, Timer> redisErrors = new ConcurrentHashMap<>();
    private final DecisionMeters<Counter> decisions = new DecisionMeters<>(this::decisionCounter);
    private final Map<String, Counter> denyCacheHits = new ConcurrentHashMap<>();
    private final Gauge circuit;
    private final FunctionCounter fallback;
    /** Held here because Micrometer keeps only weak references to what gauges read. */
    private final Supplier<Integer> circuitState;
    private final LongSupplier fallbackNanos;

    MicrometerMetrics(MeterRegistry registry, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        this.registry = registry;
        this.circuitState = circuitState;
        this.fallbackNanos = fallbackNanos;
        redisOk = redisTimer(MeterNames.NO_ERROR);
        String mine = MeterNames.limiter(limiter);
        circuit = Gauge.builder(MeterNames.CIRCUIT, circuitState, s -> s.get()).tag(MeterNames.LIMITER, mine)
                .description("The circuit around Redis: 0 closed, 1 half-open, 2 open").register(registry);
        fallback = FunctionCounter.builder(MeterNames.FALLBACK_TIME, fallbackNanos, f -> f.getAsLong() / 1e9)
                .tag(MeterNames.LIMITER, mine).baseUnit("seconds")
                .description("Time spent deciding without Redis (circuit not closed)").register(registry);
    }

    /**
     * A timer of Redis calls with the buckets of {@link MeterNames#DURATION_BOUNDARIES_SECONDS}
     * (service level objectives: exported as a histogram's buckets, no percentiles computed), and
     * {@code error.type} on every series ({@code none} on success), since Prometheus' registry wants
     * every series of a name to carry the same tag keys.
     */
    private Timer redisTimer(String errorType) {
        Duration[] bounds = MeterNames.durationBoundaries();
        return Timer.builder(MeterNames.REDIS_DURATION).tag(MeterNames.ERROR_TYPE, errorType)
                .serviceLevelObjectives(bounds).minimumExpectedValue(bounds[0]).maximumExpectedValue(bounds[bounds.length - 1])
                .description("Duration of each call to Redis").register(registry);
    }

    static Metrics global(String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        return new MicrometerMetrics(io.micrometer.core.instrument.Metrics.globalRegistry, limiter, circuitState, fallbackNanos);
    }

    /** For tests: a given registry. */
    public static Metrics of(MeterRegistry registry, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        return new MicrometerMetrics(registry, limiter, circuitState, fallbackNanos);
    }

    @Override
    public void close() {
        registry.remove(circuit);
        registry.remove(fallback);
    }

    @Override
    protected void count(String policy, String outcome, String store, boolean fallback) {
        decisions.get(policy, outcome, store, fallback).increment();
    }

    private Counter decisionCounter(String policy, String outcome, String store, boolean fallback) {
        return Counter.builder(MeterNames.REQUESTS)
                .tag(MeterNames.POLICY, policy).tag(MeterNames.RESULT, outcome).tag(MeterNames.STORE, store)
                .tag(MeterNames.FALLBACK, Boolean.toString(fallback))
                .description("Rate limit decisions, one per policy that applied to a request").register(registry);
    }

    @Override
    public void redisCall(long nanos, Throwable failure) {
        Timer t = failure == null ? redisOk : redisErrors.computeIfAbsent(MeterNames.errorType(failure), this::redisTimer);
        t.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void denyCacheHit(String policy) {
        denyCacheHits.computeIfAbsent(policy, x -> Counter.builder(MeterNames.DENY_CACHE_HITS)
                .tag(MeterNames.POLICY, policy).description("Refusals answered from memory without calling Redis")
                .register(registry)).increment();
    }
}
