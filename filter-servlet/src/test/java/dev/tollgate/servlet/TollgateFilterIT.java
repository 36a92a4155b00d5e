package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The filter in a real embedded Tomcat 11, over a real Redis. */
@WithRedis
class TollgateFilterIT {

    static Map<String, String> params(RedisEndpoint redis, String... keyValues) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.redis.uri", redis.uri());
        m.put("tollgate.redis.timeout", "2s");
        m.put("tollgate.redis.key-prefix", "servlet-" + UUID.randomUUID() + ":");
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    @Test
    void theBurstPassesWithHeadersThenEveryRequestGets429AndNeverReachesTheServlet(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "tollgate.policy.default.limits", "10/s burst 20"))) {
            int ok = 0;
            int refused = 0;
            long start = System.nanoTime();
            for (int i = 0; i < 40; i++) {
                HttpResponse<String> r = t.get("/api/hello");
                if (r.statusCode() == 200) {
                    ok++;
                    assertEquals("hello", r.body());
                    assertEquals("\"default\";q=20;w=2", r.headers().firstValue("RateLimit-Policy").orElseThrow());
                    assertTrue(r.headers().firstValue("RateLimit").orElseThrow().startsWith("\"default\";r="));
                } else {
                    refused++;
                    assertEquals(429, r.statusCode());
                    long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
                    assertTrue(retryAfter >= 1);
                    assertEquals("application/problem+json;charset=UTF-8",
                            r.headers().firstValue("Content-Type").orElseThrow().replace(" ", ""));
                    assertTrue(r.body().contains("\"status\":429"), r.body());
                    assertTrue(r.body().contains("\"violated-policies\":[\"default\"]"), r.body());
                }
            }
            // the burst, plus what refilled at 10/s while the requests ran (bounded by their own duration)
            double elapsed = (System.nanoTime() - start) / 1e9;
            assertTrue(ok >= 20 && ok <= 20 + 10 * elapsed + 1, ok + " admitted in " + elapsed + " s");
            assertEquals(40 - ok, refused);
            assertEquals(ok, t.servletCalls.get(), "refused requests never reached the servlet");
        }
    }

    @Test
    void requestsOutsideTheMappingAreNotLimited(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "tollgate.policy.default.limits", "1/min"))) {
            HttpResponse<String> other = t.get("/elsewhere");
            assertFalse(other.headers().firstValue("RateLimit").isPresent());
        }
    }

    @Test
    void asyncServletsWorkBehindTheFilter(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "tollgate.policy.default.limits", "2/min"))) {
            assertEquals("async", t.get("/api/async").body());
            assertEquals("async", t.get("/api/async").body());
            assertEquals(429, t.get("/api/async").statusCode());
        }
    }

    @Test
    void shadowModeLetsEverythingThroughWithoutHeaders(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), params(redis,
                "tollgate.policy.default.limits", "1/min", "tollgate.policy.default.mode", "shadow"))) {
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> r = t.get("/api/hello");
                assertEquals(200, r.statusCode());
                assertFalse(r.headers().firstValue("RateLimit").isPresent());
            }
            assertEquals(5, t.servletCalls.get());
        }
    }

    @Test
    void aSystemPropertyOverridesTheInitParam(RedisEndpoint redis) throws Exception {
        System.setProperty("tollgate.policy.default.limits", "2/min");
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "tollgate.policy.default.limits", "100/min"))) {
            assertEquals("\"default\";q=2;w=60", t.get("/api/hello").headers().firstValue("RateLimit-Policy").orElseThrow());
        } finally {
            System.clearProperty("tollgate.policy.default.limits");
        }
    }

    @Test
    void initParamsWinOverContextParamsWhichFillTheRest(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "tollgate.policy.default.limits", "3/min"),
                Map.of("tollgate.policy.default.limits", "100/min", "tollgate.headers", "legacy"))) {
            HttpResponse<String> r = t.get("/api/hello");
            assertEquals("3", r.headers().firstValue("X-RateLimit-Limit").orElseThrow());
            assertFalse(r.headers().firstValue("RateLimit").isPresent());
        }
    }

    @Test
    void aBadValueStopsTheApplicationFromStarting(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "tollgate.policy.default.limits", "10/fortnight"))) {
            assertFalse(t.started(), "the context must not start with a bad limit");
            assertTrue(t.get("/api/hello").statusCode() >= 400);
        }
    }

    @Test
    void hostileHeadersNeverMakeAServerError(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), params(redis,
                "tollgate.policy.default.limits", "1000/s",
                "tollgate.policy.default.key", "header:X-Api-Key, principal, ip"))) {
            List<String> values = List.of("x".repeat(6_000), "{tag}", "}{", "\u00e9\u00e8", "a b c", "%00", "::", "\\", "\"quoted\"");
            for (String v : values) {
                HttpResponse<String> r = t.get("/api/hello", "X-Api-Key", v);
                assertEquals(200, r.statusCode(), "X-Api-Key: " + v.substring(0, Math.min(v.length(), 20)));
            }
        }
    }

    @Test
    void aFilterThatDidNotStartAnswers503NeverAnUnlimitedPass(RedisEndpoint redis) throws Exception {
        TollgateFilter neverStarted = new TollgateFilter() {
            @Override
            public void init(jakarta.servlet.FilterConfig config) {
                // as a container that routes requests through a filter whose start failed
            }
        };
        try (EmbeddedTomcat t = new EmbeddedTomcat(neverStarted, params(redis, "tollgate.policy.default.limits", "1/s"))) {
            HttpResponse<String> r = t.get("/api/hello");
            assertEquals(503, r.statusCode());
            assertEquals("1", r.headers().firstValue("Retry-After").orElseThrow());
            assertEquals(0, t.servletCalls.get());
        }
    }

    @Test
    void whileRedisIsDeadTheFilterAnswersOnlyWhatItsFailureModeSays(dev.tollgate.testing.RedisProcess own) throws Exception {
        for (String mode : List.of("local", "open", "closed")) {
            Map<String, String> p = params(own, "tollgate.policy.default.limits", "3/min", "tollgate.redis.failure-mode", mode);
            p.put("tollgate.redis.timeout", "100ms");
            try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), p)) {
                own.kill();
                java.util.Set<Integer> statuses = new java.util.TreeSet<>();
                for (int i = 0; i < 10; i++) {
                    statuses.add(t.get("/api/hello").statusCode());
                }
                own.restart();
                java.util.Set<Integer> expected = switch (mode) {
                    case "local" -> java.util.Set.of(200, 429);
                    case "open" -> java.util.Set.of(200);
                    default -> java.util.Set.of(503);
                };
                assertEquals(expected, statuses, "failure mode " + mode);
            }
        }
    }
}
