package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.RedisSentinels;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The application starts while its Redis is not there yet, for each topology: standalone, Cluster
 * and Sentinel. {@link RateLimiter#create} succeeds with the circuit open; requests are decided by
 * each failure mode ({@code open}, {@code closed}, {@code local}: one limiter each, on the same
 * absent Redis); health says not ready only where {@code closed} refuses; and once the servers
 * run, Redis decides again without a restart, at the first or second probe after the servers are
 * ready (a probe is made once per {@code open-for}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StartWithoutRedisIT {

    static final int TIMEOUT_MS = 200;
    static final int OPEN_FOR_MS = 300;
    static final int BURST = 3;
    /** Probes after the servers are ready before Redis must decide: the first normally; a second if a slow machine made the first miss its budget. */
    static final int MAX_PROBES = 2;

    /** One limiter per failure mode, each with its own key prefix, all on {@code redis}. */
    static Map<String, RateLimiter> limiters(Map<String, String> redis) {
        Map<String, RateLimiter> out = new LinkedHashMap<>();
        for (String mode : List.of("open", "closed", "local")) {
            Map<String, String> m = new HashMap<>(redis);
            m.put("tollgate.redis.timeout", TIMEOUT_MS + "ms");
            m.put("tollgate.redis.circuit.open-for", OPEN_FOR_MS + "ms");
            m.put("tollgate.redis.failure-mode", mode);
            m.put("tollgate.redis.key-prefix", "start-" + mode + ":");
            m.put("tollgate.policy.default.limits", "1/h burst " + BURST);
            m.put("tollgate.deny-cache", "false"); // see RedisFaultIT.limiter
            m.put("tollgate.jmx", "false");
            m.put("tollgate.metrics", "none");
            long t0 = System.nanoTime();
            out.put(mode, RateLimiter.create(TestConfigs.of(m),
                    "start-" + mode, null));
            System.out.printf("[start] %s: created in %d ms with nothing listening%n", mode, (System.nanoTime() - t0) / 1_000_000);
        }
        return out;
    }

    /** While nothing listens: every mode decides as it says, without Redis, and health tells. */
    static void decidedByTheFailureMode(Map<String, RateLimiter> limiters) {
        limiters.forEach((mode, rl) -> {
            Health h = rl.health();
            assertEquals("open", h.circuit(), mode + ": the circuit starts open");
            assertTrue(h.fallback(), mode);
            assertEquals(!mode.equals("closed"), h.ready(), mode + ": not ready only where requests are refused");
            for (int i = 1; i <= BURST + 2; i++) {
                Decision d = rl.check(TestRequest.get("/api").from("198.51.100.7"));
                switch (mode) {
                    case "open":
                        assertEquals(Decision.Verdict.ALLOW, d.verdict(), mode + " request " + i);
                        assertEquals(Decision.Source.NONE, d.source(), mode + " request " + i);
                        break;
                    case "closed":
                        assertEquals(Decision.Verdict.UNAVAILABLE, d.verdict(), mode + " request " + i);
                        break;
                    default:
                        assertEquals(Decision.Source.LOCAL, d.source(), mode + " request " + i);
                        assertEquals(i <= BURST, d.allowed(), mode + " request " + i + ": the local bucket's burst");
                }
            }
        });
    }

    /**
     * Polls each limiter (every 10 ms, bounded) until Redis decides; asserts it took at most
     * {@link #MAX_PROBES} calls to Redis from the moment the servers were ready.
     */
    static void redisDecidesAgain(Map<String, RateLimiter> limiters, long readyNanos, Supplier<String> where) throws Exception {
        for (Map.Entry<String, RateLimiter> e : limiters.entrySet()) {
            RateLimiter rl = e.getValue();
            long callsBefore = rl.redisCalls();
            long deadline = System.nanoTime() + 10L * (OPEN_FOR_MS + TIMEOUT_MS) * 1_000_000;
            Decision d;
            int requests = 0;
            while ((d = rl.check(TestRequest.get("/api").from("203.0.113." + (++requests % 250)))).source()
                    != Decision.Source.REDIS) {
                if (System.nanoTime() > deadline) {
                    fail(e.getKey() + ": Redis never decided again; " + rl.health() + "; " + where.get());
                }
                Thread.sleep(10); // polling for the circuit's next probe, not timing the test
            }
            long probes = rl.redisCalls() - callsBefore;
            System.out.printf("[start] %s: Redis decides %d ms after the servers were ready, at probe %d, request %d"
                    + " (the failure before: %s)%n", e.getKey(), (System.nanoTime() - readyNanos) / 1_000_000, probes, requests,
                    rl.health().lastFailure());
            assertTrue(d.allowed(), e.getKey() + ": " + d);
            assertTrue(probes <= MAX_PROBES, e.getKey() + ": " + probes + " calls to Redis before it decided");
            Health h = rl.health();
            assertTrue(h.ready() && h.circuit().equals("closed") && !h.fallback(), e.getKey() + ": " + h);
            Decision next = rl.check(TestRequest.get("/api").from(CLIENT));
            assertEquals(Decision.Source.REDIS, next.source(), e.getKey() + ": " + next);
        }
    }

    /** A client first seen after recovery: its bucket must be in Redis. */
    static final String CLIENT = "192.0.2.99";
    static final String LOCAL_KEY = "start-local:default:{ip=" + CLIENT + "}:default";

    static void closeAll(Map<String, RateLimiter> limiters) {
        limiters.values().forEach(RateLimiter::close);
    }

    /**
     * Nothing Tollgate started (its own threads and Jedis', named after the client, "tollgate") is
     * still running shortly after the limiters are closed: Jedis' sentinel listeners end within
     * their reconnect delay (1 s), polled for at most 3 s.
     */
    static void noThreadLeft() throws InterruptedException {
        long start = System.nanoTime();
        List<String> left = tollgateThreads();
        while (!left.isEmpty() && System.nanoTime() - start < 3_000_000_000L) {
            Thread.sleep(10); // polling for threads to end, not timing the test
            left = tollgateThreads();
        }
        System.out.printf("[start] threads after close: %s, %d ms after close%n", left, (System.nanoTime() - start) / 1_000_000);
        assertEquals(List.of(), left, "threads left running");
    }

    static List<String> tollgateThreads() {
        List<String> left = new ArrayList<>();
        Thread.getAllStackTraces().keySet().forEach(t -> {
            if (t.isAlive() && t.getName().startsWith("tollgate")) {
                left.add(t.getName());
            }
        });
        return left;
    }

    @Test
    void standalone() throws Exception {
        int port = RedisProcess.freePort();
        Map<String, RateLimiter> limiters = limiters(Map.of("tollgate.redis.uri", "redis://127.0.0.1:" + port));
        try {
            decidedByTheFailureMode(limiters);
            try (RedisProcess redis = TestRedis.startProcess(port, null)) {
                redisDecidesAgain(limiters, System.nanoTime(), redis::log);
                assertEquals("1", redis.command("EXISTS", LOCAL_KEY),
                        "the bucket of a request after recovery is in Redis");
            }
        } finally {
            closeAll(limiters);
        }
        noThreadLeft();
    }

    @Test
    void cluster() throws Exception {
        List<Integer> ports = RedisCluster.choosePorts();
        List<String> seeds = new ArrayList<>();
        ports.subList(0, 3).forEach(p -> seeds.add("127.0.0.1:" + p));
        Map<String, RateLimiter> limiters = limiters(Map.of("tollgate.redis.cluster", String.join(",", seeds)));
        try {
            decidedByTheFailureMode(limiters);
            try (RedisCluster cluster = RedisCluster.start(ports)) {
                redisDecidesAgain(limiters, System.nanoTime(), () -> "cluster " + cluster.seeds());
            }
        } finally {
            closeAll(limiters);
        }
        noThreadLeft();
    }

    @Test
    void sentinel() throws Exception {
        List<Integer> ports = List.of(RedisProcess.freePort(), RedisProcess.freePort(), RedisProcess.freePort());
        List<String> nodes = new ArrayList<>();
        ports.forEach(p -> nodes.add("127.0.0.1:" + p));
        Map<String, RateLimiter> limiters = limiters(Map.of(
                "tollgate.redis.sentinel.master", RedisSentinels.MASTER_NAME,
                "tollgate.redis.sentinel.nodes", String.join(",", nodes)));
        try {
            decidedByTheFailureMode(limiters);
            try (RedisSentinels sentinels = RedisSentinels.start(RedisSentinels.Setup.DEFAULT.onPorts(ports))) {
                redisDecidesAgain(limiters, System.nanoTime(), () -> "master " + sentinels.currentMasterAddress());
                RedisProcess master = sentinels.currentMaster();
                assertEquals("1", master.command("EXISTS", LOCAL_KEY),
                        "the bucket of a request after recovery is in the master");
            }
        } finally {
            closeAll(limiters);
        }
        noThreadLeft();
    }
}
