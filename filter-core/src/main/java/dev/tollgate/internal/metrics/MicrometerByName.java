package dev.tollgate.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@link Metrics} for a registry a server hands to the application, through the registry's public
 * name-and-tags methods only ({@code counter(name, tags)}, {@code timer(name, tags)},
 * {@code gauge(name, tags, ...)}, {@code more().counter(name, tags, ...)}), never Micrometer's
 * builders.
 *
 * <p>Why: WildFly's {@code micrometer} subsystem gives each deployment an {@code ApplicationRegistry}
 * (a {@code SimpleMeterRegistry}) that forwards exactly those public methods, with a
 * {@code WF_DEPLOYMENT} tag added, to the server's registries (Prometheus, OTLP). A builder's
 * {@code register(registry)} goes through {@code MeterRegistry}'s package-private
 * {@code counter(Meter.Id)} and the like, which that class cannot override: the meter lands in the
 * per-deployment registry's own map, which nothing exports and whose {@code getMeters()} does not
 * even show it. These methods work on any registry, so this class is the same as
 * {@code MicrometerMetrics} wherever the server's registry is not WildFly's, except that they take
 * no description or base unit: {@code tollgate.fallback.time} carries its unit in the name here
 * ({@code tollgate.fallback.time.seconds}), and no histogram buckets: {@code tollgate.redis.duration}
 * has the count, sum and maximum the server's registry gives a timer, unless the server's
 * configuration asks it for a histogram.
 *
 * <p>Thread-safe.
 */
public final class MicrometerByName extends Metrics {

    /** The fallback time with its unit in the name, since these methods take no base unit. */
    static final String FALLBACK_SECONDS = MeterNames.FALLBACK_TIME + ".seconds";

    private final MeterRegistry registry;
    private final Timer redisOk;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Gauge circuit;
    private final FunctionCounter fallback;
    /** Held here because Micrometer keeps only weak references to what gauges read. */
    private final Supplier<Integer> circuitState;
    private final LongSupplier fallbackNanos;

    MicrometerByName(MeterRegistry registry, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        this.registry = registry;
        this.circuitState = circuitState;
        this.fallbackNanos = fallbackNanos;
        redisOk = registry.timer(MeterNames.REDIS_DURATION, tags(MeterNames.ERROR_TYPE, MeterNames.NO_ERROR));
        Iterable<Tag> mine = tags(MeterNames.LIMITER, MeterNames.limiter(limiter));
        registry.gauge(MeterNames.CIRCUIT, mine, circuitState, s -> s.get());
        // gauge(...) answers the state object, not the meter: find it to remove it on close
        circuit = registry.find(MeterNames.CIRCUIT).tags(mine).gauge();
        fallback = registry.more().counter(FALLBACK_SECONDS, mine, fallbackNanos, f -> f.getAsLong() / 1e9);
    }

    /**
     * Tags typed as {@code Iterable<Tag>}, so that each call binds to the {@code (String, Iterable<Tag>)}
     * methods every Micrometer 1.x has and WildFly's registry forwards. Micrometer 1.16 added
     * {@code counter(String, Tags)} and {@code timer(String, Tags)}, which a {@code Tags} argument
     * would pick: they go straight to the package-private builders' path (not forwarded), and they
     * do not exist in the Micrometer 1.15 WildFly 39 ships (NoSuchMethodError).
     */
    private static Iterable<Tag> tags(String... keyValues) {
        return Tags.of(keyValues);
    }

    /** For tests: a given registry. */
    public static Metrics of(MeterRegistry registry, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        return new MicrometerByName(registry, limiter, circuitState, fallbackNanos);
    }

    @Override
    public void close() {
        if (circuit != null) {
            registry.remove(circuit);
        }
        registry.remove(fallback);
    }

    @Override
    protected void count(String policy, String outcome, String store, boolean fallback) {
        String k = policy + '\u0000' + outcome + '\u0000' + store + '\u0000' + fallback;
        counters.computeIfAbsent(k, x -> registry.counter(MeterNames.REQUESTS, tags(MeterNames.POLICY, policy,
                MeterNames.RESULT, outcome, MeterNames.STORE, store, MeterNames.FALLBACK, Boolean.toString(fallback))))
                .increment();
    }

    @Override
    public void redisCall(long nanos, Throwable failure) {
        Timer t = failure == null ? redisOk : registry.timer(MeterNames.REDIS_DURATION,
                tags(MeterNames.ERROR_TYPE, MeterNames.errorType(failure))); // found, not made again, after the first
        t.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void denyCacheHit(String policy) {
        counters.computeIfAbsent("deny\u0000" + policy,
                x -> registry.counter(MeterNames.DENY_CACHE_HITS, tags(MeterNames.POLICY, policy))).increment();
    }
}
