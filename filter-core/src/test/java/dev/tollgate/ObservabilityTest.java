package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.health.TollgateHealthCheck;
import dev.tollgate.internal.local.LocalStore;
import dev.tollgate.internal.metrics.MicrometerMetrics;
import dev.tollgate.internal.metrics.OpenTelemetryMetrics;
import dev.tollgate.testing.FailingStore;
import dev.tollgate.testing.ManualClock;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

/** Metrics read back from OpenTelemetry's in-memory reader, health, and live reload. */
class ObservabilityTest {

    final ManualClock clock = new ManualClock();

    static TollgateConfig config(Map<String, String> values) {
        return TestConfigs.of(values);
    }

    static long decisions(Collection<MetricData> metrics, String policy, String outcome, String store, boolean fallback) {
        Attributes want = Attributes.builder().put("tollgate.rate_limiting.policy", policy)
                .put("tollgate.rate_limiting.result", outcome).put("tollgate.rate_limiting.store", store)
                .put(AttributeKey.booleanKey("tollgate.rate_limiting.fallback"), fallback).build();
        return metrics.stream().filter(m -> m.getName().equals("tollgate.rate_limiting.requests"))
                .flatMap(m -> m.getLongSumData().getPoints().stream())
                .filter(p -> p.getAttributes().equals(want))
                .mapToLong(p -> p.getValue()).sum();
    }

    @Test
    void aScriptedRunIsCountedPerPolicyAndOutcomeInOpenTelemetry() {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
        TollgateConfig c = config(Map.of(
                "tollgate.redis.uri", "redis://unused:6379",
                "tollgate.policies", "api,login,audit",
                "tollgate.policy.api.limits", "5/min",
                "tollgate.policy.login.limits", "2/min",
                "tollgate.policy.login.match", "POST /login",
                "tollgate.policy.audit.limits", "3/min",
                "tollgate.policy.audit.mode", "shadow"));
        FailingStore redis = FailingStore.down(new LocalStore(1_000, () -> 0L));
        redis.answers();
        AtomicLong nanos = new AtomicLong();
        RateLimiter[] self = new RateLimiter[1];
        RateLimiter rl = new RateLimiter(c, redis, new LocalStore(1_000, clock::nowMicros), nanos::get,
                OpenTelemetryMetrics.of(otel, "test", () -> self[0].circuitState().ordinal() == 0 ? 0 : 2, () -> 0L),
                "test", null);
        self[0] = rl;
        for (int i = 0; i < 4; i++) {
            rl.check(TestRequest.get("/login").method("POST")); // 2 allowed; then login denies, api not charged
        }
        for (int i = 0; i < 4; i++) {
            rl.check(TestRequest.get("/items")); // api: 3 left, then 1 denial; audit: 3 then shadow denials
        }
        redis.goesDown();
        for (int i = 0; i < 5; i++) {
            rl.check(TestRequest.get("/items").from("198.51.100.7")); // Redis down: local fallback
        }
        Collection<MetricData> m = reader.collectAllMetrics();
        assertEquals(2, decisions(m, "login", "acquired", "redis", false));
        assertEquals(1, decisions(m, "login", "limited", "redis", false));
        assertEquals(1, decisions(m, "login", "limited", "cache", false), "the second refusal came from the deny cache:"
                + " Redis was not asked, and it is not a fallback");
        assertEquals(2 + 3, decisions(m, "api", "acquired", "redis", false));
        assertEquals(1, decisions(m, "api", "limited_by_other", "redis", false),
                "api, when Redis said login refused; the next refusal came from the deny cache, which asks only login");
        assertEquals(1, m.stream().filter(x -> x.getName().equals("tollgate.deny_cache.hits"))
                .flatMap(x -> x.getLongSumData().getPoints().stream()).mapToLong(p -> p.getValue()).sum());
        assertEquals(1, decisions(m, "api", "limited", "redis", false));
        assertEquals(4, decisions(m, "audit", "acquired", "redis", false), "not asked for the refusal the deny cache answered");
        assertEquals(3, decisions(m, "audit", "shadow_limited", "redis", false), "it took 3 of the 5 admitted requests... and the refused ones took nothing");
        assertEquals(5, decisions(m, "api", "acquired", "local", true), "the fallback decides and says so");
        long redisCalls = m.stream().filter(x -> x.getName().equals("tollgate.redis.duration"))
                .flatMap(x -> x.getHistogramData().getPoints().stream()).mapToLong(p -> p.getCount()).sum();
        assertEquals(7 + 3, redisCalls, "7 calls while up (one refusal came from the deny cache), 3 failures before the circuit opened");
        assertTrue(m.stream().anyMatch(x -> x.getName().equals("tollgate.redis.circuit")
                && x.getLongGaugeData().getPoints().stream().anyMatch(p -> p.getValue() == 2)), "the circuit is open");
        rl.close();
    }

    @Test
    void micrometerGetsTheSameCounters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RateLimiter rl = new RateLimiter(config(Map.of("tollgate.policy.default.limits", "2/min")),
                new LocalStore(1_000, clock::nowMicros), null, System::nanoTime,
                MicrometerMetrics.of(registry, "test", () -> 0, () -> 0L), "test", null);
        for (int i = 0; i < 3; i++) {
            rl.check(TestRequest.get("/"));
        }
        assertEquals(2.0, registry.get("tollgate.rate_limiting.requests").tags("tollgate.rate_limiting.policy", "default",
                "tollgate.rate_limiting.result", "acquired", "tollgate.rate_limiting.store", "local",
                "tollgate.rate_limiting.fallback", "false").counter().count());
        assertEquals(1.0, registry.get("tollgate.rate_limiting.requests").tag("tollgate.rate_limiting.result", "limited")
                .counter().count());
        rl.close();
        assertTrue(registry.find("tollgate.redis.circuit").gauges().isEmpty(), "closing unregisters the gauges");
    }

    @Test
    void withoutAnOpenTelemetrySdkNothingIsRecordedAndNothingBreaks() {
        RateLimiter rl = RateLimiter.create(config(Map.of("tollgate.policy.default.limits", "2/min", "tollgate.jmx", "false")));
        assertTrue(rl.check(TestRequest.get("/")).allowed(), "the API without an SDK is a no-op");
        rl.close();
    }

    /**
     * A global {@code failure-mode=closed} that every policy overrides, or a closed policy that only
     * observes (shadow), refuses nothing while Redis is dead: ready (issue 21: it said not ready,
     * and Kubernetes pulled every pod while all was served).
     */
    @Test
    void healthIsReadyWhenNoEnforcingPolicyIsClosed() {
        for (Map<String, String> m : List.of(
                Map.of("tollgate.redis.failure-mode", "closed", "tollgate.policy.default.failure-mode", "open"),
                Map.of("tollgate.policy.default.failure-mode", "closed", "tollgate.policy.default.mode", "shadow"))) {
            Map<String, String> all = new java.util.HashMap<>(m);
            all.put("tollgate.redis.uri", "redis://unused:6379");
            all.put("tollgate.policy.default.limits", "2/min");
            RateLimiter rl = new RateLimiter(config(all), FailingStore.down(new LocalStore(1_000, () -> 0L)), new LocalStore(1_000, clock::nowMicros), System::nanoTime);
            for (int i = 0; i < 3; i++) {
                assertTrue(rl.check(TestRequest.get("/")).allowed(), m + ": served");
            }
            Health h = rl.health();
            assertEquals("open", h.circuit(), m.toString());
            assertTrue(h.ready(), m + ": every request is served, so ready");
        }
    }

    @Test
    void healthIsReadyUnlessAClosedPolicyMeetsADeadRedis() {
        FailingStore redis = FailingStore.down(new LocalStore(1_000, () -> 0L));
        TollgateConfig c = config(Map.of("tollgate.redis.uri", "redis://unused:6379",
                "tollgate.policy.default.limits", "2/min", "tollgate.policy.default.failure-mode", "closed"));
        RateLimiter rl = new RateLimiter(c, redis, new LocalStore(1_000, clock::nowMicros), System::nanoTime);
        assertTrue(rl.health().ready());
        for (int i = 0; i < 3; i++) {
            rl.check(TestRequest.get("/"));
        }
        Health h = rl.health();
        assertFalse(h.ready());
        assertEquals("open", h.circuit());
        assertTrue(h.fallback());
        assertEquals(3, h.redisFailures());
        assertTrue(h.lastFailure().contains("connection refused"), h.lastFailure());
    }

    /** The smallest MicroProfile Health implementation, as a server provides one. */
    static final class Responses implements org.eclipse.microprofile.health.spi.HealthCheckResponseProvider {
        @Override
        public org.eclipse.microprofile.health.HealthCheckResponseBuilder createResponseBuilder() {
            return new org.eclipse.microprofile.health.HealthCheckResponseBuilder() {
                String name;
                HealthCheckResponse.Status status = HealthCheckResponse.Status.UP;
                final Map<String, Object> data = new HashMap<>();

                public org.eclipse.microprofile.health.HealthCheckResponseBuilder name(String n) {
                    name = n;
                    return this;
                }

                public org.eclipse.microprofile.health.HealthCheckResponseBuilder withData(String k, String v) {
                    data.put(k, v);
                    return this;
                }

                public org.eclipse.microprofile.health.HealthCheckResponseBuilder withData(String k, long v) {
                    data.put(k, v);
                    return this;
                }

                public org.eclipse.microprofile.health.HealthCheckResponseBuilder withData(String k, boolean v) {
                    data.put(k, v);
                    return this;
                }

                public org.eclipse.microprofile.health.HealthCheckResponseBuilder up() {
                    status = HealthCheckResponse.Status.UP;
                    return this;
                }

                public org.eclipse.microprofile.health.HealthCheckResponseBuilder down() {
                    status = HealthCheckResponse.Status.DOWN;
                    return this;
                }

                public org.eclipse.microprofile.health.HealthCheckResponseBuilder status(boolean up) {
                    return up ? up() : down();
                }

                public HealthCheckResponse build() {
                    return new HealthCheckResponse(name, status, java.util.Optional.of(data));
                }
            };
        }
    }

    @Test
    void theMicroProfileHealthCheckReportsEveryLiveLimiter() {
        HealthCheckResponse.setResponseProvider(new Responses());
        RateLimiter rl = RateLimiter.create(config(Map.of("tollgate.policy.default.limits", "2/min", "tollgate.jmx", "false")),
                "health-test", null);
        try {
            HealthCheckResponse r = new TollgateHealthCheck().call();
            assertEquals(HealthCheckResponse.Status.UP, r.getStatus());
            assertEquals("memory", r.getData().orElseThrow().get("health-test.store"));
        } finally {
            rl.close();
        }
        assertFalse(new TollgateHealthCheck().call().getData().map(d -> d.containsKey("health-test.store")).orElse(false));
    }

    @Test
    void aChangedLimitTakesEffectOnReloadAndABadOneIsRefused() {
        Map<String, String> values = new ConcurrentHashMap<>(Map.of("tollgate.policy.default.limits", "2/min",
                "tollgate.jmx", "false"));
        ConfigLookup lookup = ConfigLookup.of(ConfigSources.of("live", values::get));
        RateLimiter rl = new RateLimiter(TollgateConfig.load(lookup, null), new LocalStore(1_000, clock::nowMicros), null,
                System::nanoTime, null, "reload", () -> TollgateConfig.load(lookup, null));
        rl.check(TestRequest.get("/"));
        rl.check(TestRequest.get("/"));
        assertFalse(rl.check(TestRequest.get("/")).allowed());
        assertFalse(rl.reload(), "nothing changed");
        assertEquals(30_000_000, rl.check(TestRequest.get("/")).retryAfterMicros(), "at 2/min the next token is 30 s away");
        values.put("tollgate.policy.default.limits", "5/min");
        assertTrue(rl.reload());
        Decision d = rl.check(TestRequest.get("/"));
        assertFalse(d.allowed(), "the bucket keeps the minute its client owes");
        assertEquals(12_000_000, d.retryAfterMicros(), "but at 5/min the next token is 12 s away, not 30");
        clock.advanceMicros(12_000_000);
        assertTrue(rl.check(TestRequest.get("/")).allowed());
        values.put("tollgate.policy.default.limits", "5/fortnight");
        assertThrows(ConfigException.class, rl::reload);
        assertEquals("5/min", rl.config().policies().get(0).limits().get(0).toString(), "the configuration in force stays");
    }

    @Test
    void jmxShowsTheLimiterAndReloadsIt() throws Exception {
        Map<String, String> values = new ConcurrentHashMap<>(Map.of("tollgate.policy.default.limits", "2/min"));
        ConfigLookup lookup = ConfigLookup.of(ConfigSources.of("live", values::get));
        RateLimiter rl = RateLimiter.create(TollgateConfig.load(lookup, null), "jmx-test", () -> TollgateConfig.load(lookup, null));
        ObjectName on = new ObjectName("dev.tollgate:type=RateLimiter,name=" + ObjectName.quote("jmx-test"));
        var server = ManagementFactory.getPlatformMBeanServer();
        try {
            assertEquals("none", server.getAttribute(on, "Circuit"));
            assertEquals(true, server.getAttribute(on, "Ready"));
            values.put("tollgate.policy.default.limits", "7/min");
            assertEquals("changed and in force", server.invoke(on, "reload", null, null));
            assertTrue(((String) server.getAttribute(on, "Configuration")).contains("7/min"));
            values.put("tollgate.policy.default.limits", "x");
            assertTrue(((String) server.invoke(on, "reload", null, null)).startsWith("refused"));
        } finally {
            rl.close();
        }
        assertFalse(server.isRegistered(on), "closing unregisters the bean");
    }

    @Test
    void aReloadIntervalPicksUpAChangedSourceByItself() throws Exception {
        Map<String, String> values = new ConcurrentHashMap<>(new HashMap<>(Map.of("tollgate.policy.default.limits", "2/min",
                "tollgate.reload-interval", "1s", "tollgate.jmx", "false")));
        ConfigLookup lookup = ConfigLookup.of(ConfigSources.of("live", values::get));
        RateLimiter rl = RateLimiter.create(TollgateConfig.load(lookup, null), "poll", () -> TollgateConfig.load(lookup, null));
        try {
            values.put("tollgate.policy.default.limits", "9/min");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!rl.config().policies().get(0).limits().get(0).toString().equals("9/min")) {
                assertTrue(System.nanoTime() < deadline, "the change was not picked up within 10 s");
                Thread.sleep(50); // waiting for the background reload, not timing the test
            }
        } finally {
            rl.close();
        }
    }
}
