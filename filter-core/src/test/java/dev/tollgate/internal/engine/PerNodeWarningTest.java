package dev.tollgate.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.TestConfigs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Issue 27: a mistyped {@code TOLLGATE_REDIS_URL} left a cluster on the in-memory store with only
 * the typo's warning. At start-up a WARNING ({@code TOLLGATE-014}) now says plainly that limits are
 * per node and how to share them; it is not logged when Redis is configured, nor when Tollgate is off.
 */
class PerNodeWarningTest {

    /** The lines {@code dev.tollgate} logs while a limiter of {@code values} starts, as "LEVEL message". */
    static List<String> startLines(String name, String... values) {
        Map<String, String> m = new HashMap<>(Map.of("tollgate.policy.default.limits", "10/s burst 20",
                "tollgate.jmx", "false", "tollgate.metrics", "none"));
        for (int i = 0; i < values.length; i += 2) {
            m.put(values[i], values[i + 1]);
        }
        return startLines(name, TestConfigs.of(m));
    }

    static List<String> startLines(String name, TollgateConfig config) {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        capture.setLevel(Level.ALL);
        Logger root = Logger.getLogger("dev.tollgate");
        Level level = root.getLevel();
        root.setLevel(Level.INFO);
        root.addHandler(capture);
        try (RateLimiter limiter = RateLimiter.create(config, name, null)) {
            return List.copyOf(lines);
        } finally {
            root.removeHandler(capture);
            root.setLevel(level);
        }
    }

    static List<String> perNode(List<String> lines) {
        return lines.stream().filter(l -> l.contains("TOLLGATE-014")).toList();
    }

    @Test
    void withoutRedisTheStartSaysThatLimitsArePerNodeAndHowToShareThem() {
        List<String> lines = startLines("orders");
        assertEquals(List.of("WARNING TOLLGATE-014: Tollgate 'orders' keeps its buckets in this node's memory because no"
                + " Redis is configured: limits are per node, so behind a load balancer with N nodes a client gets N times"
                + " each limit. To share them, set TOLLGATE_REDIS_URI (tollgate.redis.uri, or tollgate.redis.cluster or"
                + " tollgate.redis.sentinel.master); with tollgate.strict-config=true a mistyped name stops the start"
                + " instead of being ignored"), perNode(lines), lines.toString());
        int started = indexOf(lines, "TOLLGATE-010");
        assertTrue(started >= 0 && started < indexOf(lines, "TOLLGATE-014"), "after the configuration in force: " + lines);
        assertTrue(lines.get(started).contains("in-memory store"), lines.toString());
    }

    @Test
    void aMistypedRedisVariableLeadsToTheTyposHintAndThePerNodeLine() {
        Map<String, String> environment = Map.of("TOLLGATE_POLICY_DEFAULT_LIMITS", "10/s burst 20",
                "TOLLGATE_REDIS_URL", "redis://redis.internal:6379", "TOLLGATE_JMX", "false", "TOLLGATE_METRICS", "none");
        TollgateConfig config = TollgateConfig.load(ConfigLookup.of(ConfigSources.system(environment)), null);
        assertEquals(1, config.warnings().size(), config.warnings().toString());
        assertTrue(config.warnings().get(0).contains("did you mean TOLLGATE_REDIS_URI (tollgate.redis.uri)?"),
                config.warnings().get(0));
        assertInstanceOf(dev.tollgate.config.StoreSettings.InMemory.class, config.store(), "the typo is ignored: no Redis");
        assertEquals(1, perNode(startLines("typo", config)).size());
    }

    @Test
    void notLoggedWhenTollgateIsOff() {
        List<String> lines = startLines("off", "tollgate.enabled", "false");
        assertEquals(List.of(), perNode(lines), lines.toString());
        assertEquals(1, lines.stream().filter(l -> l.startsWith("INFO TOLLGATE-010") && l.contains(" OFF,")).count(),
                lines.toString());
    }

    @Test
    void notLoggedWhenRedisIsConfiguredEvenIfItDoesNotAnswer() throws Exception {
        int nobody;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = s.getLocalPort(); // closed below: nothing listens there while the limiter starts
        }
        List<String> lines = startLines("shared", "tollgate.redis.uri", "redis://127.0.0.1:" + nobody,
                "tollgate.redis.timeout", "200ms");
        assertEquals(List.of(), perNode(lines), lines.toString());
        assertEquals(1, lines.stream().filter(l -> l.contains("TOLLGATE-020")).count(), lines.toString());
    }

    private static int indexOf(List<String> lines, String id) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(id)) {
                return i;
            }
        }
        return -1;
    }
}
