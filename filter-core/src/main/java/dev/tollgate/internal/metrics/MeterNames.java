package dev.tollgate.internal.metrics;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Every name and fixed value Tollgate's meters carry, written once for the three bindings: what
 * dashboards and alert rules read, so a public contract (CHANGELOG says when it changes).
 *
 * <p>Names follow OpenTelemetry's semantic conventions where one exists: {@code error.type} on a
 * failed call, and the {@code rate_limiting} naming of ASP.NET Core's
 * {@code aspnetcore.rate_limiting.requests} ({@code aspnetcore.rate_limiting.policy},
 * {@code aspnetcore.rate_limiting.result} with {@code acquired} for an admitted request), under
 * Tollgate's own namespace. Values never carry a space. Stateless.
 */
final class MeterNames {

    private MeterNames() {
    }

    /** Counter: one per policy that applied to a request. */
    static final String REQUESTS = "tollgate.rate_limiting.requests";
    /** Histogram, seconds: each call to Redis. */
    static final String REDIS_DURATION = "tollgate.redis.duration";
    /** Gauge: 0 closed, 1 half-open, 2 open. */
    static final String CIRCUIT = "tollgate.redis.circuit";
    /** Counter, seconds: time spent with the circuit not closed. */
    static final String FALLBACK_TIME = "tollgate.fallback.time";
    /** Counter: refusals answered from memory. */
    static final String DENY_CACHE_HITS = "tollgate.deny_cache.hits";

    static final String POLICY = "tollgate.rate_limiting.policy";
    static final String RESULT = "tollgate.rate_limiting.result";
    static final String STORE = "tollgate.rate_limiting.store";
    static final String FALLBACK = "tollgate.rate_limiting.fallback";
    static final String LIMITER = "tollgate.rate_limiting.limiter";
    /** OpenTelemetry's attribute for the class of error an operation ended with. */
    static final String ERROR_TYPE = "error.type";

    /** The results, in the order {@link DecisionMeters} lays its slots out. */
    static final String ACQUIRED = "acquired";
    static final String LIMITED = "limited";
    static final String LIMITED_BY_OTHER = "limited_by_other";
    static final String SHADOW_LIMITED = "shadow_limited";
    static final String UNAVAILABLE = "unavailable";
    static final List<String> RESULTS = List.of(ACQUIRED, LIMITED, LIMITED_BY_OTHER, SHADOW_LIMITED, UNAVAILABLE);

    /**
     * The {@code error.type} of a successful call where a registry needs every series of a name to
     * carry the same tag keys (Micrometer's and MicroProfile's Prometheus exporters). OpenTelemetry
     * leaves the attribute out on success, as its conventions say.
     */
    static final String NO_ERROR = "none";
    /** The {@code error.type} of a call that ran out of its time budget. */
    static final String TIMEOUT = "timeout";

    /** Bucket boundaries of every duration histogram, in seconds: 100 µs to 10 s. */
    static final List<Double> DURATION_BOUNDARIES_SECONDS = List.of(
            0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0);

    /** {@link #DURATION_BOUNDARIES_SECONDS} as durations, for Micrometer. */
    static Duration[] durationBoundaries() {
        return DURATION_BOUNDARIES_SECONDS.stream().map(s -> Duration.ofNanos(Math.round(s * 1e9))).toArray(Duration[]::new);
    }

    private static final Pattern SPACES = Pattern.compile("\\s+");
    private static final Pattern SLASHES = Pattern.compile("/{2,}");

    /**
     * A limiter's name as a metric value: its parts joined by {@code /} instead of spaces, so a
     * filter named {@code tollgate} in the application at {@code /shop} reads {@code /shop/tollgate}
     * (its name elsewhere, logs and JMX, is {@code "/shop tollgate"}).
     */
    static String limiter(String name) {
        String joined = SPACES.matcher(name.strip()).replaceAll("/");
        return SLASHES.matcher(joined).replaceAll("/");
    }

    /**
     * An attribute name where only {@code [a-zA-Z_][a-zA-Z0-9_]*} is accepted (MicroProfile Metrics'
     * tags): dots become underscores, as Prometheus' text shows every binding's names anyway.
     */
    static String underscored(String name) {
        return name.replace('.', '_');
    }

    /**
     * The {@code error.type} of a failed call to Redis: {@code timeout} when it ran out of time,
     * else the exception's class name (a set bounded by the code, never a message).
     */
    static String errorType(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException || t instanceof java.util.concurrent.TimeoutException
                    || t.getClass().getSimpleName().endsWith("TimeoutException")
                    || t.getClass().getSimpleName().equals("BudgetSpentException")) {
                return TIMEOUT;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        String canonical = failure.getClass().getCanonicalName();
        return canonical != null ? canonical : failure.getClass().getName();
    }
}
