package dev.tollgate.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
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
    private final Timer redisError;
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
        redisOk = Timer.builder("tollgate.redis.duration").tag("result", "ok")
                .description("Duration of each call to Redis").register(registry);
        redisError = Timer.builder("tollgate.redis.duration").tag("result", "error")
                .description("Duration of each call to Redis").register(registry);
        circuit = Gauge.builder("tollgate.redis.circuit", circuitState, s -> s.get()).tag("limiter", limiter)
                .description("The circuit around Redis: 0 closed, 1 half-open, 2 open").register(registry);
        fallback = FunctionCounter.builder("tollgate.fallback.time", fallbackNanos, f -> f.getAsLong() / 1e9)
                .tag("limiter", limiter).baseUnit("seconds")
                .description("Time spent deciding without Redis (circuit not closed)").register(registry);
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
        return Counter.builder("tollgate.decisions")
                .tag("policy", policy).tag("outcome", outcome).tag("store", store).tag("fallback", Boolean.toString(fallback))
                .description("Rate limit decisions, one per policy that applied").register(registry);
    }

    @Override
    public void redisCall(long nanos, boolean ok) {
        (ok ? redisOk : redisError).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void denyCacheHit(String policy) {
        denyCacheHits.computeIfAbsent(policy, x -> Counter.builder("tollgate.deny_cache.hits")
                .tag("policy", policy).description("Refusals answered from memory without calling Redis")
                .register(registry)).increment();
    }
}
