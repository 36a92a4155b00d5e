package dev.tollgate.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.lang.reflect.Proxy;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.junit.jupiter.api.Test;

/**
 * The names, attributes and histogram buckets each binding shows, read back from a real in-memory
 * registry: OpenTelemetry's SDK reader, Micrometer's simple registry, and a MicroProfile
 * registry that records what it is asked to register (its API validates tag names itself). The
 * names are written out here, not taken from {@link MeterNames}: they are a public contract.
 */
class MeterNamesTest {

    /** 100 µs to 10 s, in seconds. */
    static final List<Double> BOUNDARIES = List.of(
            0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0);
    static final Set<String> NAMES = Set.of("tollgate.rate_limiting.requests", "tollgate.redis.duration",
            "tollgate.redis.circuit", "tollgate.fallback.time", "tollgate.deny_cache.hits");
    static final Set<String> REQUEST_ATTRIBUTES = Set.of("tollgate.rate_limiting.policy", "tollgate.rate_limiting.result",
            "tollgate.rate_limiting.store", "tollgate.rate_limiting.fallback");

    /** What every binding is given: each result, a call that answered and one that timed out, a cached refusal. */
    static void record(Metrics m) {
        for (String result : List.of("acquired", "limited", "limited_by_other", "shadow_limited", "unavailable")) {
            m.count("login", result, "redis", false);
        }
        m.count("login", "acquired", "local", true);
        m.redisCall(1_500_000, null); // 1.5 ms
        m.redisCall(20_000_000, new RuntimeException("wrapped", new SocketTimeoutException("Read timed out")));
        m.redisCall(50_000, new IllegalStateException("no connection"));
        m.denyCacheHit("login");
    }

    @Test
    void openTelemetryFollowsTheConventionsAndBucketsFrom100MicrosecondsTo10Seconds() {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
        Metrics m = OpenTelemetryMetrics.of(otel, "/shop tollgate", () -> 2, () -> 1_000_000_000L);
        record(m);
        Collection<MetricData> all = reader.collectAllMetrics();
        assertEquals(NAMES, all.stream().map(MetricData::getName).collect(Collectors.toSet()));

        MetricData requests = metric(all, "tollgate.rate_limiting.requests");
        assertEquals("{request}", requests.getUnit());
        for (PointData p : requests.getData().getPoints()) {
            assertEquals(REQUEST_ATTRIBUTES, keys(p.getAttributes()), p.toString());
        }
        assertEquals(Set.of("acquired", "limited", "limited_by_other", "shadow_limited", "unavailable"),
                requests.getData().getPoints().stream().map(p -> p.getAttributes().asMap().entrySet().stream()
                        .filter(e -> e.getKey().getKey().equals("tollgate.rate_limiting.result"))
                        .map(e -> String.valueOf(e.getValue())).findFirst().orElseThrow()).collect(Collectors.toSet()));

        MetricData redis = metric(all, "tollgate.redis.duration");
        assertEquals("s", redis.getUnit());
        Map<String, HistogramPointData> byError = new TreeMap<>();
        for (HistogramPointData p : redis.getHistogramData().getPoints()) {
            assertEquals(BOUNDARIES, p.getBoundaries(), "explicit buckets, not the SDK's default 0 to 10000");
            String type = p.getAttributes().get(OpenTelemetryMetrics.ERROR_TYPE);
            byError.put(type == null ? "(no error.type)" : type, p);
            assertTrue(p.getAttributes().isEmpty() || keys(p.getAttributes()).equals(Set.of("error.type")), p.toString());
        }
        assertEquals(Set.of("(no error.type)", "timeout", "java.lang.IllegalStateException"), byError.keySet(),
                "no error.type on success, as OpenTelemetry's conventions say");
        HistogramPointData ok = byError.get("(no error.type)");
        assertEquals(1, ok.getCounts().get(BOUNDARIES.indexOf(0.0025)), "1.5 ms falls in (1 ms, 2.5 ms]: " + ok.getCounts());
        assertEquals(1, byError.get("java.lang.IllegalStateException").getCounts().get(0), "50 µs in the first bucket");

        for (String name : List.of("tollgate.redis.circuit", "tollgate.fallback.time")) {
            for (PointData p : metric(all, name).getData().getPoints()) {
                assertEquals("/shop/tollgate", p.getAttributes().get(io.opentelemetry.api.common.AttributeKey.stringKey(
                        "tollgate.rate_limiting.limiter")), name);
            }
        }
        for (MetricData d : all) {
            for (PointData p : d.getData().getPoints()) {
                p.getAttributes().forEach((k, v) -> assertFalse(String.valueOf(v).matches(".*\\s.*"),
                        d.getName() + " " + k + "=" + v + " has a space"));
            }
        }
        m.close();
    }

    @Test
    void micrometerHasTheSameNamesAndTheSameBuckets() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Metrics m = MicrometerMetrics.of(registry, "/shop tollgate", () -> 0, () -> 0L);
        record(m);
        // the simple registry shows a timer's buckets as gauges of its own, "<name>.histogram"; Prometheus' as _bucket lines
        assertEquals(NAMES, registry.getMeters().stream().map(x -> x.getId().getName())
                .filter(n -> !n.equals("tollgate.redis.duration.histogram")).collect(Collectors.toSet()));
        for (Meter c : registry.find("tollgate.rate_limiting.requests").counters()) {
            assertEquals(REQUEST_ATTRIBUTES, c.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet()));
        }
        Collection<Timer> timers = registry.find("tollgate.redis.duration").timers();
        assertEquals(Set.of("none", "timeout", "java.lang.IllegalStateException"),
                timers.stream().map(t -> t.getId().getTag("error.type")).collect(Collectors.toSet()),
                "every series carries error.type: Prometheus' registry wants the same tag keys on every series of a name");
        for (Timer t : timers) {
            CountAtBucket[] buckets = t.takeSnapshot().histogramCounts();
            assertEquals(BOUNDARIES, Arrays.stream(buckets).map(b -> b.bucket(TimeUnit.SECONDS)).toList(), t.getId().toString());
        }
        Timer ok = registry.get("tollgate.redis.duration").tag("error.type", "none").timer();
        assertEquals(1.0, Arrays.stream(ok.takeSnapshot().histogramCounts())
                .filter(b -> b.bucket(TimeUnit.SECONDS) == 0.0025).findFirst().orElseThrow().count(), "cumulative: 1.5 ms <= 2.5 ms");
        assertEquals(0.0, Arrays.stream(ok.takeSnapshot().histogramCounts())
                .filter(b -> b.bucket(TimeUnit.SECONDS) == 0.001).findFirst().orElseThrow().count());
        assertEquals("/shop/tollgate", registry.get("tollgate.redis.circuit").gauge().getId().getTag("tollgate.rate_limiting.limiter"));
        for (Meter x : registry.getMeters()) {
            for (Tag t : x.getId().getTags()) {
                assertFalse(t.getValue().matches(".*\\s.*"), x.getId() + " has a space");
            }
        }
        m.close();
    }

    /** What a MicroProfile registry was asked for: names and tags. */
    record Registered(String name, Map<String, String> tags) {
    }

    @Test
    void microProfileTagsAreTheSameNamesWithUnderscores() {
        List<Registered> seen = new ArrayList<>();
        MetricRegistry registry = recording(seen);
        Metrics m = MicroProfileMetrics.of(registry, "/shop tollgate", () -> 0, () -> 0L);
        record(m);
        assertEquals(NAMES, seen.stream().map(Registered::name).collect(Collectors.toSet()));
        Set<String> requestTags = new TreeSet<>();
        seen.stream().filter(r -> r.name().equals("tollgate.rate_limiting.requests")).forEach(r -> requestTags.addAll(r.tags().keySet()));
        assertEquals(new TreeSet<>(List.of("tollgate_rate_limiting_policy", "tollgate_rate_limiting_result",
                "tollgate_rate_limiting_store", "tollgate_rate_limiting_fallback")), requestTags);
        assertEquals(Set.of("none", "timeout", "java.lang.IllegalStateException"), seen.stream()
                .filter(r -> r.name().equals("tollgate.redis.duration")).map(r -> r.tags().get("error_type")).collect(Collectors.toSet()));
        assertTrue(seen.contains(new Registered("tollgate.redis.circuit", Map.of("tollgate_rate_limiting_limiter", "/shop/tollgate"))));
        for (Registered r : seen) {
            r.tags().forEach((k, v) -> assertFalse(v.matches(".*\\s.*"), r + " has a space"));
        }
    }

    @Test
    void aDottedTagNameIsRefusedByMicroProfileMetrics() {
        // why the MicroProfile binding underscores its tag names
        assertThrows(IllegalArgumentException.class, () -> new org.eclipse.microprofile.metrics.Tag("error.type", "x"));
    }

    @Test
    void aLimitersNameReadsAsAPath() {
        assertEquals("/shop/tollgate", MeterNames.limiter("/shop tollgate"));
        assertEquals("/tollgate", MeterNames.limiter("/ tollgate"));
        assertEquals("/app/jaxrs", MeterNames.limiter("/app  jaxrs"));
        assertEquals("test", MeterNames.limiter("test"));
    }

    @Test
    void errorTypeIsTimeoutOrTheClassNeverTheMessage() {
        assertEquals("timeout", MeterNames.errorType(new IllegalStateException("x", new SocketTimeoutException("Read timed out"))));
        assertEquals("java.lang.IllegalStateException", MeterNames.errorType(new IllegalStateException("client 198.51.100.7")));
    }

    private static MetricData metric(Collection<MetricData> all, String name) {
        return all.stream().filter(d -> d.getName().equals(name)).findFirst().orElseThrow(() -> new AssertionError("no " + name));
    }

    private static Set<String> keys(Attributes a) {
        return a.asMap().keySet().stream().map(k -> k.getKey()).collect(Collectors.toSet());
    }

    /** A MicroProfile registry that records every counter, timer and gauge asked for, and answers do-nothing meters. */
    private static MetricRegistry recording(List<Registered> seen) {
        return (MetricRegistry) Proxy.newProxyInstance(MeterNamesTest.class.getClassLoader(), new Class<?>[] {MetricRegistry.class},
                (proxy, method, args) -> {
                    String n = method.getName();
                    if ((n.equals("counter") || n.equals("timer") || n.equals("gauge")) && args != null && args[0] instanceof Metadata md) {
                        Map<String, String> tags = new TreeMap<>();
                        Object last = args[args.length - 1];
                        for (org.eclipse.microprofile.metrics.Tag t : (org.eclipse.microprofile.metrics.Tag[]) last) {
                            tags.put(t.getTagName(), t.getTagValue());
                        }
                        seen.add(new Registered(md.getName(), tags));
                        if (method.getReturnType().isInterface()) {
                            return Proxy.newProxyInstance(MeterNamesTest.class.getClassLoader(),
                                    new Class<?>[] {method.getReturnType()}, (p, mm, a) -> null);
                        }
                    }
                    return null;
                });
    }
}
