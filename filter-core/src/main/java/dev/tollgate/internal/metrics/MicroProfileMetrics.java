package dev.tollgate.internal.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * {@link Metrics} in the application's MicroProfile Metrics registry (Payara's {@code /metrics},
 * scope {@code application}), found through CDI. The same names and tags as the other sinks; in
 * Prometheus' text {@code tollgate.decisions} reads {@code tollgate_decisions_total}. Loaded only
 * where the MicroProfile Metrics and CDI APIs are present. Thread-safe.
 */
public final class MicroProfileMetrics extends Metrics {

    private static final Metadata DECISIONS = Metadata.builder().withName("tollgate.decisions")
            .withDescription("Rate limit decisions, one per policy that applied").build();
    // The unit a timer records in, said outright: Payara's exporter scales mean, max and quantiles by
    // the metadata's unit and, without one, prints raw nanoseconds (while its _sum is in seconds).
    private static final Metadata REDIS = Metadata.builder().withName("tollgate.redis.duration")
            .withDescription("Duration of each call to Redis").withUnit(MetricUnits.NANOSECONDS).build();
    private static final Metadata DENY_CACHE = Metadata.builder().withName("tollgate.deny_cache.hits")
            .withDescription("Refusals answered from memory without calling Redis").build();
    private static final Metadata CIRCUIT = Metadata.builder().withName("tollgate.redis.circuit")
            .withDescription("The circuit around Redis: 0 closed, 1 half-open, 2 open").build();
    private static final Metadata FALLBACK = Metadata.builder().withName("tollgate.fallback.time")
            .withDescription("Time spent deciding without Redis (circuit not closed)").withUnit(MetricUnits.SECONDS).build();

    private final MetricRegistry registry;
    private final Timer redisOk;
    private final Timer redisError;
    private final DecisionMeters<Counter> decisions = new DecisionMeters<>(this::decisionCounter);
    private final Map<String, Counter> denyCacheHits = new ConcurrentHashMap<>();
    /** This limiter's gauges, removed on close so that an undeployed application leaves none behind. */
    private final List<MetricID> gauges;
    /** Held here in case the registry keeps only weak references to what gauges read. */
    private final Supplier<Integer> circuitState;
    private final LongSupplier fallbackNanos;

    MicroProfileMetrics(MetricRegistry registry, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        this.registry = registry;
        this.circuitState = circuitState;
        this.fallbackNanos = fallbackNanos;
        redisOk = registry.timer(REDIS, new Tag("result", "ok"));
        redisError = registry.timer(REDIS, new Tag("result", "error"));
        Tag mine = new Tag("limiter", limiter);
        registry.gauge(CIRCUIT, circuitState, s -> s.get(), mine);
        registry.gauge(FALLBACK, fallbackNanos, f -> f.getAsLong() / 1e9, mine);
        gauges = List.of(new MetricID(CIRCUIT.getName(), mine), new MetricID(FALLBACK.getName(), mine));
    }

    /**
     * The application's registry through CDI ({@link MetricRegistryHolder}); {@link Destination#NOWHERE}
     * when the application has none.
     */
    public static Destination create(String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        MetricRegistryHolder holder = CdiBeans.apiPresent() ? CdiBeans.find(MetricRegistryHolder.class) : null;
        MetricRegistry registry = holder == null ? null : holder.registry();
        if (registry == null) {
            return Destination.NOWHERE;
        }
        return new Destination("the application's MicroProfile Metrics registry (CDI)",
                new MicroProfileMetrics(registry, limiter, circuitState, fallbackNanos));
    }

    /** For tests: a given registry. */
    public static Metrics of(MetricRegistry registry, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        return new MicroProfileMetrics(registry, limiter, circuitState, fallbackNanos);
    }

    @Override
    protected void count(String policy, String outcome, String store, boolean fallback) {
        decisions.get(policy, outcome, store, fallback).inc();
    }

    private Counter decisionCounter(String policy, String outcome, String store, boolean fallback) {
        return registry.counter(DECISIONS, new Tag("policy", policy), new Tag("outcome", outcome), new Tag("store", store),
                new Tag("fallback", Boolean.toString(fallback)));
    }

    @Override
    public void redisCall(long nanos, boolean ok) {
        (ok ? redisOk : redisError).update(Duration.ofNanos(nanos));
    }

    @Override
    public void denyCacheHit(String policy) {
        denyCacheHits.computeIfAbsent(policy, x -> registry.counter(DENY_CACHE, new Tag("policy", policy))).inc();
    }

    @Override
    public void close() {
        for (MetricID id : gauges) {
            registry.remove(id);
        }
    }
}
