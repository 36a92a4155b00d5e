package dev.tollgate.internal.metrics;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.DoubleHistogramBuilder;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@link Metrics} through the OpenTelemetry API. Touched only when the API is on the class path;
 * without an SDK (or an agent) the API is a no-op and nothing is recorded.
 */
public final class OpenTelemetryMetrics extends Metrics {

    static final AttributeKey<String> POLICY = AttributeKey.stringKey(MeterNames.POLICY);
    static final AttributeKey<String> RESULT = AttributeKey.stringKey(MeterNames.RESULT);
    static final AttributeKey<String> STORE = AttributeKey.stringKey(MeterNames.STORE);
    static final AttributeKey<Boolean> FALLBACK = AttributeKey.booleanKey(MeterNames.FALLBACK);
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey(MeterNames.ERROR_TYPE);

    private final LongCounter decisions;
    private final DoubleHistogram redis;
    private final LongCounter denyCacheHits;
    private final AutoCloseable circuitGauge;
    private final AutoCloseable fallbackCounter;
    /** Attribute sets are few (policies x outcomes x stores) and reused, not rebuilt per request. */
    private final DecisionMeters<Attributes> decisionAttributes = new DecisionMeters<>(
            (policy, outcome, store, fallback) -> Attributes.of(POLICY, policy, RESULT, outcome, STORE, store, FALLBACK, fallback));
    private final Map<String, Attributes> denyAttributes = new ConcurrentHashMap<>();
    /** By {@code error.type}: a set bounded by the code ({@link MeterNames#errorType}). */
    private final Map<String, Attributes> errorAttributes = new ConcurrentHashMap<>();

    OpenTelemetryMetrics(OpenTelemetry otel, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        Attributes mine = Attributes.of(AttributeKey.stringKey(MeterNames.LIMITER), MeterNames.limiter(limiter));
        Meter meter = otel.getMeter("dev.tollgate");
        decisions = meter.counterBuilder(MeterNames.REQUESTS).setUnit("{request}")
                .setDescription("Rate limit decisions, one per policy that applied to a request").build();
        redis = durationHistogram(meter.histogramBuilder(MeterNames.REDIS_DURATION).setUnit("s")
                .setDescription("Duration of each call to Redis")).build();
        denyCacheHits = meter.counterBuilder(MeterNames.DENY_CACHE_HITS).setUnit("{request}")
                .setDescription("Refusals answered from memory without calling Redis").build();
        circuitGauge = meter.gaugeBuilder(MeterNames.CIRCUIT).ofLongs()
                .setDescription("The circuit around Redis: 0 closed, 1 half-open, 2 open")
                .buildWithCallback(m -> m.record(circuitState.get(), mine));
        fallbackCounter = meter.counterBuilder(MeterNames.FALLBACK_TIME).ofDoubles().setUnit("s")
                .setDescription("Time spent deciding without Redis (circuit not closed)")
                .buildWithCallback(m -> m.record(fallbackNanos.getAsLong() / 1e9, mine));
    }

    /**
     * The advice of {@link MeterNames#DURATION_BOUNDARIES_SECONDS}, so that an SDK without a view
     * for it buckets Redis' milliseconds finely instead of in its default 0 to 10000. An API older
     * than 1.32 (in a server that brings its own) has no advice: the SDK's default buckets then.
     */
    private static DoubleHistogramBuilder durationHistogram(DoubleHistogramBuilder builder) {
        try {
            return builder.setExplicitBucketBoundariesAdvice(MeterNames.DURATION_BOUNDARIES_SECONDS);
        } catch (NoSuchMethodError e) {
            return builder;
        }
    }

    static Metrics global(String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        return new OpenTelemetryMetrics(GlobalOpenTelemetry.get(), limiter, circuitState, fallbackNanos);
    }

    /** For tests: a given OpenTelemetry (e.g. an SDK with an in-memory reader). */
    public static Metrics of(OpenTelemetry otel, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        return new OpenTelemetryMetrics(otel, limiter, circuitState, fallbackNanos);
    }

    @Override
    public void close() {
        try {
            circuitGauge.close();
            fallbackCounter.close();
        } catch (Exception e) {
            // nothing to do: the callbacks are gone or the SDK is shut down
        }
    }

    @Override
    protected void count(String policy, String outcome, String store, boolean fallback) {
        decisions.add(1, decisionAttributes.get(policy, outcome, store, fallback));
    }

    @Override
    public void redisCall(long nanos, Throwable failure) {
        if (failure == null) {
            redis.record(nanos / 1e9); // no error.type on success, as OpenTelemetry's conventions say
        } else {
            redis.record(nanos / 1e9, errorAttributes.computeIfAbsent(MeterNames.errorType(failure),
                    t -> Attributes.of(ERROR_TYPE, t)));
        }
    }

    @Override
    public void denyCacheHit(String policy) {
        denyCacheHits.add(1, denyAttributes.computeIfAbsent(policy, x -> Attributes.of(POLICY, policy)));
    }
}
