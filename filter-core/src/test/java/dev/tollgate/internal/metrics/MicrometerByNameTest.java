package dev.tollgate.internal.metrics;

import static dev.tollgate.testing.Gens.bools;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link MicrometerByName} against a fake of WildFly's per-deployment {@code ApplicationRegistry}
 * (micrometer subsystem, WildFly 39): a {@code SimpleMeterRegistry} that forwards its public
 * name-and-tags methods, with a {@code WF_DEPLOYMENT} tag, to the server's registry, and shows
 * that registry's meters as its own. What reaches the server's registry is what its Prometheus
 * endpoint shows.
 */
class MicrometerByNameTest {

    static final String DEPLOYMENT = "app.war";

    /** The parts of WildFly's {@code ApplicationRegistry} Tollgate relies on, as WildFly 39 has them. */
    static final class PerDeploymentRegistry extends SimpleMeterRegistry {
        final MeterRegistry server;

        PerDeploymentRegistry(MeterRegistry server) {
            this.server = server;
        }

        private Iterable<Tag> tagged(Iterable<Tag> tags) {
            return Tags.concat(tags, "WF_DEPLOYMENT", DEPLOYMENT);
        }

        @Override
        public List<Meter> getMeters() {
            return server.getMeters().stream().filter(m -> DEPLOYMENT.equals(m.getId().getTag("WF_DEPLOYMENT"))).toList();
        }

        @Override
        public Search find(String name) {
            return server.find(name).tag("WF_DEPLOYMENT", DEPLOYMENT);
        }

        @Override
        public Meter remove(Meter meter) {
            return server.remove(meter.getId());
        }

        @Override
        public Counter counter(String name, Iterable<Tag> tags) {
            return server.counter(name, tagged(tags));
        }

        @Override
        public Timer timer(String name, Iterable<Tag> tags) {
            return server.timer(name, tagged(tags));
        }

        @Override
        public <T> T gauge(String name, Iterable<Tag> tags, T state, ToDoubleFunction<T> f) {
            return server.gauge(name, tagged(tags), state, f);
        }

        @Override
        public More more() {
            return new More() {
                @Override
                public <T> FunctionCounter counter(String name, Iterable<Tag> tags, T state, ToDoubleFunction<T> f) {
                    return server.more().counter(name, tagged(tags), state, f);
                }
            };
        }
    }

    final SimpleMeterRegistry server = new SimpleMeterRegistry();
    final PerDeploymentRegistry app = new PerDeploymentRegistry(server);
    final AtomicInteger circuit = new AtomicInteger();
    final AtomicLong fallbackNanos = new AtomicLong();

    /** Why the server's registry needs its own sink: builders register in the per-deployment map, which nothing exports. */
    @Test
    void buildersNeverReachTheServersRegistry() {
        Metrics builders = MicrometerMetrics.of(app, "l", circuit::get, fallbackNanos::get);
        builders.redisCall(1_000, null);
        assertTrue(server.getMeters().isEmpty(), "builders went past the per-deployment registry: " + server.getMeters());
    }

    @Test
    void everyMeterReachesTheServersRegistryWithTheDeploymentTag() {
        Metrics m = MicrometerByName.of(app, "l", circuit::get, fallbackNanos::get);
        m.redisCall(2_000_000, null);
        m.redisCall(3_000_000, new java.net.SocketTimeoutException("Read timed out"));
        m.denyCacheHit("default");
        circuit.set(2);
        fallbackNanos.set(1_500_000_000L);

        Timer ok = server.get("tollgate.redis.duration").tags("error.type", "none", "WF_DEPLOYMENT", DEPLOYMENT).timer();
        assertEquals(1, ok.count());
        assertEquals(0.002, ok.totalTime(TimeUnit.SECONDS), 1e-9);
        assertEquals(1, server.get("tollgate.redis.duration").tag("error.type", "timeout").timer().count());
        assertEquals(1.0, server.get("tollgate.deny_cache.hits").tags("tollgate.rate_limiting.policy", "default", "WF_DEPLOYMENT", DEPLOYMENT)
                .counter().count());
        assertEquals(2.0, server.get("tollgate.redis.circuit").tags("tollgate.rate_limiting.limiter", "l", "WF_DEPLOYMENT", DEPLOYMENT).gauge().value());
        assertEquals(1.5, server.get(MicrometerByName.FALLBACK_SECONDS).tags("tollgate.rate_limiting.limiter", "l", "WF_DEPLOYMENT", DEPLOYMENT)
                .functionCounter().count(), 1e-9);
    }

    @Test
    void closingRemovesTheGaugesFromTheServersRegistry() {
        Metrics m = MicrometerByName.of(app, "l", circuit::get, fallbackNanos::get);
        assertNotNull(server.find("tollgate.redis.circuit").gauge());
        m.close();
        assertNull(server.find("tollgate.redis.circuit").gauge(), "an undeployed application leaves no gauge behind");
        assertNull(server.find(MicrometerByName.FALLBACK_SECONDS).functionCounter());
    }

    /** One decision of one policy: the tags {@code tollgate.rate_limiting.requests} carries. */
    record Decided(String policy, String outcome, String store, boolean fallback) {
    }

    /** Whatever the decisions, the server's registry counts each combination of tags exactly as often as it happened. */
    @Test
    void theServersRegistryCountsEveryDecision() {
        qt(200).forAll(decisions()).checkAssert(MicrometerByNameTest::theServersRegistryCountsEveryDecision);
    }

    private static void theServersRegistryCountsEveryDecision(List<Decided> decisions) {
        SimpleMeterRegistry server = new SimpleMeterRegistry();
        MicrometerByName m = new MicrometerByName(new PerDeploymentRegistry(server), "l", () -> 0, () -> 0L);
        Map<Decided, Integer> model = new HashMap<>();
        for (Decided d : decisions) {
            m.count(d.policy(), d.outcome(), d.store(), d.fallback());
            model.merge(d, 1, Integer::sum);
        }
        for (Map.Entry<Decided, Integer> e : model.entrySet()) {
            Decided d = e.getKey();
            assertEquals(e.getValue().doubleValue(), server.get("tollgate.rate_limiting.requests").tags(
                    "tollgate.rate_limiting.policy", d.policy(), "tollgate.rate_limiting.result", d.outcome(),
                    "tollgate.rate_limiting.store", d.store(), "tollgate.rate_limiting.fallback", Boolean.toString(d.fallback()),
                    "WF_DEPLOYMENT", DEPLOYMENT).counter().count(), d.toString());
        }
        assertEquals(model.size(), server.find("tollgate.rate_limiting.requests").counters().size(), "no counter that did not happen");
    }

    /** Up to 40 decisions. */
    static Gen<List<Decided>> decisions() {
        return lists(of("default", "login").zip(of("acquired", "limited", "unavailable"), of("redis", "local", "none"), bools(),
                Decided::new), 0, 40);
    }
}
