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
 * Prometheus' text {@code tollgate.rate_limiting.requests} reads
 * {@code tollgate_rate_limiting_requests_total}. The API gives a library no way to choose a timer's
 * buckets: {@code tollgate.redis.duration} has what the server's exporter gives a timer. Loaded only
 * where the MicroProfile Metrics and CDI APIs are present. Thread-safe.
 */
public final class MicroProfileMetrics extends Metrics {

    private static final Metadata DECISIONS = Metadata.builder().withName(MeterNames.REQUESTS)
            .withDescription("Rate limit decisions, one per policy that applied to a request").build();
    // The unit a timer records in, said outright: Payara's exporter scales mean, max and quantiles by
    // the metadata's unit and, without one, prints raw nanoseconds (while its _sum is in seconds).
    private static final Metadata REDIS = Metadata.builder().withName(MeterNames.REDIS_DURATION)
            .withDescription("Duration of each call to Redis").withUnit(MetricUnits.NANOSECONDS).build();
    private static final Metadata DENY_CACHE = Metadata.builder().withName(MeterNames.DENY_CACHE_HITS)
            .withDescription("Refusals answered from memory without calling Redis").build();
    private static final Metadata CIRCUIT = Metadata.builder().withName(MeterNames.CIRCUIT)
            .withDescription("The circuit around Redis: 0 closed, 1 half-open, 2 open").build();
    private static final Metadata FALLBACK = Metadata.builder().withName(MeterNames.FALLBACK_TIME)
            .withDescription("Time spent deciding without Redis (circuit not closed)").withUnit(MetricUnits.SECONDS).build();

    // Tag names as MicroProfile Metrics accepts them ([a-zA-Z_][a-zA-Z0-9_]*): Prometheus' text reads the same
    private static final String POLICY = MeterNames.underscored(MeterNames.POLICY);
    private static final String RESULT = MeterNames.underscored(MeterNames.RESULT);
    private static final String STORE = MeterNames.underscored(MeterNames.STORE);
    private static final String FALLBACK_TAG = MeterNames.underscored(MeterNames.FALLBACK);
    private static final String LIMITER = MeterNames.underscored(MeterNames.LIMITER);
    private static final String ERROR_TYPE = MeterNames.underscored(MeterNames.ERROR_TYPE);

    private final MetricRegistry registry;
    private final Timer redisOk;
    /** By {@code error.type}: a set bounded by the code ({@link MeterNames#errorType}). */
    private final Map<String, Timer> redisErrors = new ConcurrentHashMap<>();
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
        redisOk = registry.timer(REDIS, new Tag(ERROR_TYPE, MeterNames.NO_ERROR));
        Tag mine = new Tag(LIMITER, MeterNames.limiter(limiter));
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
        return registry.counter(DECISIONS, new Tag(POLICY, policy), new Tag(RESULT, outcome), new Tag(STORE, store),
                new Tag(FALLBACK_TAG, Boolean.toString(fallback)));
    }

    @Override
    public void redisCall(long nanos, Throwable failure) {
        Timer t = failure == null ? redisOk : redisErrors.computeIfAbsent(MeterNames.errorType(failure),
                type -> registry.timer(REDIS, new Tag(ERROR_TYPE, type)));
        t.update(Duration.ofNanos(nanos));
    }

    @Override
    public void denyCacheHit(String policy) {
        denyCacheHits.computeIfAbsent(policy, x -> registry.counter(DENY_CACHE, new Tag(POLICY, policy))).inc();
    }

    @Override
    public void close() {
        for (MetricID id : gauges) {
            registry.remove(id);
        }
    }
}
