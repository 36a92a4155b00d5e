package dev.tollgate.internal.metrics;

import dev.tollgate.Decision;
import dev.tollgate.Mode;
import dev.tollgate.PolicyResult;
import dev.tollgate.internal.Messages;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where Tollgate's measurements go: OpenTelemetry, Micrometer, both, or nowhere. Every metric is
 * tagged by policy, outcome and store at most, never by client, so cardinality is bounded by
 * the configuration.
 *
 * <ul>
 *   <li>{@code tollgate.rate_limiting.requests} (counter): one per policy per decision;
 *       {@code tollgate.rate_limiting.policy}, {@code tollgate.rate_limiting.result}
 *       ({@code acquired}, {@code limited}, {@code limited_by_other}, {@code shadow_limited},
 *       {@code unavailable}), {@code tollgate.rate_limiting.store} ({@code redis}, {@code local},
 *       {@code cache}, {@code lease}, {@code none}) and {@code tollgate.rate_limiting.fallback}
 *       ({@code true} when Redis was configured but did not decide).</li>
 *   <li>{@code tollgate.redis.duration} (histogram, seconds, buckets from 100 µs to 10 s): each
 *       call to Redis; {@code error.type} when it failed.</li>
 *   <li>{@code tollgate.redis.circuit} (gauge): 0 closed, 1 half-open, 2 open;
 *       {@code tollgate.rate_limiting.limiter}.</li>
 *   <li>{@code tollgate.fallback.time} (counter, seconds): time spent with the circuit not closed;
 *       {@code tollgate.rate_limiting.limiter}.</li>
 *   <li>{@code tollgate.deny_cache.hits} (counter): refusals answered from memory;
 *       {@code tollgate.rate_limiting.policy}.</li>
 * </ul>
 *
 * <p>The names and values are {@link MeterNames}'.
 *
 * <p>Thread-safe.
 */
public abstract class Metrics {

    static final Logger LOG = Logger.getLogger("dev.tollgate");

    /** Records nothing. */
    public static final Metrics NONE = new Metrics() {
    };

    /**
     * The bindings for {@code tollgate.metrics}: {@code auto} takes every library present,
     * {@code none} none; else a comma-separated choice of {@code opentelemetry}, {@code micrometer},
     * {@code microprofile}. Each goes to the server's registry (a CDI bean) when the application
     * has one, else to the library's global one; MicroProfile Metrics only to the server's.
     */
    public static Metrics create(String choice, String limiter, Supplier<Integer> circuitState, LongSupplier fallbackNanos) {
        String c = choice.toLowerCase(Locale.ROOT);
        boolean auto = c.equals("auto");
        List<Metrics> sinks = new ArrayList<>(2);
        if ((auto || c.contains("opentelemetry")) && present("io.opentelemetry.api.GlobalOpenTelemetry")) {
            sinks.add(bind("OpenTelemetry", () -> ServerOpenTelemetry.create(limiter, circuitState, fallbackNanos)));
        }
        if ((auto || c.contains("micrometer")) && present("io.micrometer.core.instrument.Metrics")) {
            sinks.add(bind("Micrometer", () -> ServerMicrometer.create(limiter, circuitState, fallbackNanos)));
        }
        if ((auto || c.contains("microprofile")) && present("org.eclipse.microprofile.metrics.MetricRegistry")) {
            sinks.add(bind("MicroProfile Metrics", () -> MicroProfileMetrics.create(limiter, circuitState, fallbackNanos)));
        }
        sinks.removeIf(m -> m == NONE);
        if (sinks.isEmpty()) {
            return NONE;
        }
        return sinks.size() == 1 ? sinks.get(0) : new Both(sinks);
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, Metrics.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static Metrics bind(String name, Supplier<Destination> binding) {
        try {
            Destination d = binding.get();
            if (d.metrics() != NONE) {
                LOG.info(() -> Messages.metricsGoTo(name, d.where()));
            }
            return d.metrics();
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, Messages.metricsUnusable(name), e);
            return NONE;
        }
    }

    /** The {@code store} tag of each {@link Decision.Source}, by ordinal: named once, not per decision. */
    private static final String[] STORES = new String[Decision.Source.values().length];

    static {
        for (Decision.Source s : Decision.Source.values()) {
            STORES[s.ordinal()] = s.name().toLowerCase(Locale.ROOT);
        }
    }

    /** Counts a decision, once per policy that applied. */
    public void decision(Decision d, boolean redisConfigured) {
        if (d.results().isEmpty()) {
            return;
        }
        String store = STORES[d.source().ordinal()];
        boolean fallback = redisConfigured && (d.source() == Decision.Source.LOCAL || d.source() == Decision.Source.NONE);
        List<PolicyResult> results = d.results();
        for (int i = 0; i < results.size(); i++) {
            PolicyResult r = results.get(i);
            count(r.policy().name(), outcome(d, r), store, fallback);
        }
    }

    /** Counts a refusal answered from the deny cache: a hit per policy, and the decision. */
    public final void cachedDecision(Decision known) {
        List<PolicyResult> results = known.results();
        for (int i = 0; i < results.size(); i++) { // by index: every request the deny cache answers
            denyCacheHit(results.get(i).policy().name());
        }
        decision(known, true);
    }

    static String outcome(Decision d, PolicyResult r) {
        if (r.policy().mode() == Mode.SHADOW) {
            return r.denied() ? MeterNames.SHADOW_LIMITED : MeterNames.ACQUIRED;
        }
        switch (d.verdict()) {
            case ALLOW:
                return MeterNames.ACQUIRED;
            case UNAVAILABLE:
                return MeterNames.UNAVAILABLE;
            default:
                return r.denied() ? MeterNames.LIMITED : MeterNames.LIMITED_BY_OTHER;
        }
    }

    /** One decision of one policy; {@code outcome} is one of {@link MeterNames#RESULTS}. */
    protected void count(String policy, String outcome, String store, boolean fallback) {
    }

    /**
     * One call to Redis and how long it took.
     *
     * @param failure why it failed, or {@code null} when it answered
     */
    public void redisCall(long nanos, Throwable failure) {
    }

    /** A refusal answered from the deny cache, without Redis. */
    public void denyCacheHit(String policy) {
    }

    /** Unregisters what was registered, so an undeployed application leaves nothing behind. */
    public void close() {
    }

    /** Both bindings at once. */
    private static final class Both extends Metrics {
        private final List<Metrics> sinks;

        Both(List<Metrics> sinks) {
            this.sinks = List.copyOf(sinks);
        }

        @Override
        protected void count(String policy, String outcome, String store, boolean fallback) {
            for (Metrics m : sinks) {
                m.count(policy, outcome, store, fallback);
            }
        }

        @Override
        public void redisCall(long nanos, Throwable failure) {
            for (Metrics m : sinks) {
                m.redisCall(nanos, failure);
            }
        }

        @Override
        public void denyCacheHit(String policy) {
            for (Metrics m : sinks) {
                m.denyCacheHit(policy);
            }
        }

        @Override
        public void close() {
            for (Metrics m : sinks) {
                m.close();
            }
        }
    }
}
