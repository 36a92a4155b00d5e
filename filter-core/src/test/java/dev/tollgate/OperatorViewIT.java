package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What an operator sees when Redis goes away and comes back, through the channels docs/operations.md
 * lists: the log, the health check, the JMX bean and the metrics (read back from OpenTelemetry,
 * installed as an application would install it). The test prints each view before, during and
 * after the outage, and checks that the log speaks once per transition.
 */
@WithRedis
class OperatorViewIT {

    static final String NAME = "operator-view";

    final List<String> log = new ArrayList<>();
    final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            synchronized (log) {
                log.add(r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    final Logger tollgateLogger = Logger.getLogger("dev.tollgate");

    @AfterEach
    void reset() {
        tollgateLogger.removeHandler(capture);
        GlobalOpenTelemetry.resetForTest();
    }

    @Test
    void aRedisOutageIsLoggedOnceEachWayAndShowsInHealthJmxAndMetrics(RedisProcess redis) throws Exception {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        GlobalOpenTelemetry.resetForTest();
        GlobalOpenTelemetry.set(OpenTelemetrySdk.builder()
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build());
        tollgateLogger.addHandler(capture);
        TollgateConfig c = TestConfigs.of(
                "tollgate.redis.uri", redis.uri(),
                "tollgate.redis.timeout", "100ms",
                "tollgate.redis.circuit.open-for", "200ms",
                "tollgate.metrics", "opentelemetry",
                "tollgate.policy.default.limits", "5/s burst 5");
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        ObjectName bean = new ObjectName("dev.tollgate:type=RateLimiter,name=" + ObjectName.quote(NAME));
        try (RateLimiter rl = RateLimiter.create(c, NAME, null)) {
            for (int i = 0; i < 8; i++) {
                rl.check(TestRequest.get("/api").from("203.0.113.1"));
            }
            show("before the outage", rl, jmx, bean, reader.collectAllMetrics());
            assertEquals("closed", rl.health().circuit());

            redis.kill();
            long killed = System.nanoTime();
            int local = 0;
            while (System.nanoTime() - killed < 700_000_000L) { // the outage: requests keep coming
                local += rl.check(TestRequest.get("/api").from("203.0.113." + (local % 5 + 1))).source()
                        == Decision.Source.LOCAL ? 1 : 0;
            }
            Health during = rl.health();
            show("during the outage (700 ms after the kill)", rl, jmx, bean, reader.collectAllMetrics());
            assertTrue(during.fallback(), "decisions are made without Redis");
            assertTrue(during.ready(), "local mode: still ready");
            assertFalse(during.circuit().equals("closed"), during.circuit());
            assertTrue(local > 0);
            String circuit = String.valueOf(jmx.getAttribute(bean, "Circuit"));
            assertTrue(circuit.equals("open") || circuit.equals("half_open"), "JMX shows the circuit: " + circuit);

            redis.restart();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (rl.check(TestRequest.get("/api").from("192.0.2.7")).source() != Decision.Source.REDIS) {
                assertTrue(System.nanoTime() < deadline, "Redis never decided again");
                Thread.sleep(10); // waiting for the circuit's probe, not timing the test
            }
            Collection<MetricData> after = reader.collectAllMetrics();
            show("after Redis is back", rl, jmx, bean, after);
            assertEquals("closed", rl.health().circuit());
            assertFalse(rl.health().fallback());

            List<String> lines;
            synchronized (log) {
                lines = new ArrayList<>(log);
            }
            System.out.println("[operator] the log, dev.tollgate.redis:");
            lines.stream().filter(l -> l.contains("dev.tollgate.redis")).forEach(l -> System.out.println("[operator]   " + l));
            assertEquals(1, lines.stream().filter(l -> l.contains("TOLLGATE-021")).count(), "one line when the circuit opens");
            assertEquals(1, lines.stream().filter(l -> l.contains("TOLLGATE-022")).count(), "one line when Redis answers again");
            assertTrue(sum(after, "tollgate.rate_limiting.requests", "tollgate.rate_limiting.fallback=true") > 0, "fallback decisions are counted as such");
            assertTrue(sum(after, "tollgate.fallback.time", "") > 0, "time without Redis is counted");
        }
    }

    private static void show(String when, RateLimiter rl, MBeanServer jmx, ObjectName bean, Collection<MetricData> metrics)
            throws Exception {
        System.out.println("[operator] " + when);
        System.out.println("[operator]   health: " + rl.health());
        StringBuilder attrs = new StringBuilder();
        for (String a : List.of("Circuit", "Ready", "Fallback", "RedisCalls", "RedisFailures", "LastFailure")) {
            attrs.append(a).append('=').append(jmx.getAttribute(bean, a)).append("  ");
        }
        System.out.println("[operator]   JMX " + bean + ": " + attrs.toString().trim());
        Map<String, Double> points = new TreeMap<>();
        for (MetricData m : metrics) {
            switch (m.getType()) {
                case LONG_SUM -> m.getLongSumData().getPoints().forEach(p -> points.merge(m.getName() + p.getAttributes(),
                        (double) p.getValue(), Double::sum));
                case DOUBLE_SUM -> m.getDoubleSumData().getPoints().forEach(p -> points.merge(m.getName() + p.getAttributes(),
                        p.getValue(), Double::sum));
                case LONG_GAUGE -> m.getLongGaugeData().getPoints().forEach(p -> points.put(m.getName() + p.getAttributes(),
                        (double) p.getValue()));
                case HISTOGRAM -> m.getHistogramData().getPoints().forEach(p -> points.merge(m.getName() + p.getAttributes()
                        + " count", (double) p.getCount(), Double::sum));
                default -> { }
            }
        }
        points.forEach((k, v) -> System.out.printf("[operator]   metric %s = %s%n", k,
                v == Math.rint(v) ? Long.toString(v.longValue()) : String.format("%.3f", v)));
    }

    private static double sum(Collection<MetricData> metrics, String name, String attribute) {
        double total = 0;
        for (MetricData m : metrics) {
            if (!m.getName().equals(name)) {
                continue;
            }
            switch (m.getType()) {
                case LONG_SUM -> total += m.getLongSumData().getPoints().stream()
                        .filter(p -> p.getAttributes().toString().contains(attribute)).mapToLong(p -> p.getValue()).sum();
                case DOUBLE_SUM -> total += m.getDoubleSumData().getPoints().stream()
                        .filter(p -> p.getAttributes().toString().contains(attribute)).mapToDouble(p -> p.getValue()).sum();
                default -> { }
            }
        }
        return total;
    }
}
