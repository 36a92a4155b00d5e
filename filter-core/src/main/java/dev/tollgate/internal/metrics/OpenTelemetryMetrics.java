package dev.tollgate.internal.metrics;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
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

    static final AttributeKey<String> POLICY = AttributeKey.stringKey("policy");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
    static final AttributeKey<String> STORE = AttributeKey.stringKey("store");
    static final AttributeKey<Boolean> FALLBACK = AttributeKey.booleanKey("fallback");
    static final AttributeKey<String> RESULT = AttributeKey.stringKey("result");
    private static final Attributes OK = Attributes.of(RESULT, "ok");
    private static final Attributes ERROR = Attributes.of(RESULT, "error");

    private final LongCounter decisions;
    private final DoubleHistogram redis;
    private final LongCounter denyCacheHits;
    private final AutoCloseable circuitGauge;
    private final AutoCloseable fallbackCounter;
    /** Attribute sets are few (policies x outcomes x stores) and reused, not rebuilt per request. */
    private final DecisionMeters<Attributes> decisionAttributes = new DecisionMeters<>(
            (policy, outcome, store, fallback) -> Attributes.of(POLICY, policy, OUTCOME, outcome, STORE, store, FALLBACK, fallback));
    private final Map<String, Attributes> denyAttributes = new ConcurrentHashMap<>();

    OpenTelemetryMetrics(OpenTelemetry otel, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        Attributes mine = Attributes.of(AttributeKey.stringKey("limiter"), limiter);
        Meter meter = otel.getMeter("dev.tollgate");
        decisions = meter.counterBuilder("tollgate.decisions").setUnit("{decision}")
                .setDescription("Rate limit decisions, one per policy that applied").build();
        redis = meter.histogramBuilder("tollgate.redis.duration").setUnit("s")
                .setDescription("Duration of each call to Redis").build();
        denyCacheHits = meter.counterBuilder("tollgate.deny_cache.hits").setUnit("{decision}")
                .setDescription("Refusals answered from memory without calling Redis").build();
        circuitGauge = meter.gaugeBuilder("tollgate.redis.circuit").ofLongs()
                .setDescription("The circuit around Redis: 0 closed, 1 half-open, 2 open")
                .buildWithCallback(m -> m.record(circuitState.get(), mine));
        fallbackCounter = meter.counterBuilder("tollgate.fallback.time").ofDoubles().setUnit("s")
                .setDescription("Time spent deciding without Redis (circuit not closed)")
                .buildWithCallback(m -> m.record(fallbackNanos.getAsLong() / 1e9, mine));
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
    public void redisCall(long nanos, boolean ok) {
        redis.record(nanos / 1e9, ok ? OK : ERROR);
    }

    @Override
    public void denyCacheHit(String policy) {
        denyCacheHits.add(1, denyAttributes.computeIfAbsent(policy, x -> Attributes.of(POLICY, policy)));
    }
}
