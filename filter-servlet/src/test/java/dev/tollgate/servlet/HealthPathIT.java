package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.WithRedis;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, item 2, in a real Tomcat: the filter, mapped to {@code /api/*} only, answers
 * {@code tollgate.health.path} (the initializer maps it there too) with MicroProfile Health's JSON,
 * 200 while Redis answers, 503 on readiness when Redis is down under failure mode {@code closed}
 * (liveness stays up), never showing the Redis password; and 404 to a connection address the
 * setting does not allow, whatever a forwarding header says. The application's own servlet at
 * that path is never reached.
 */
@WithRedis
class HealthPathIT {

    final AtomicInteger appCalls = new AtomicInteger();

    /** The initializer as a deployment runs it, and a servlet of the application at the same path. */
    void application(Context c) {
        c.findFilterDef("tollgate").setFilterClass(TollgateFilter.class.getName());
        c.addServletContainerInitializer(new TollgateInitializer(), null);
        Tomcat.addServlet(c, "app-health", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                appCalls.incrementAndGet();
                resp.getWriter().write("the application's");
            }
        });
        c.addServletMappingDecoded("/health/*", "app-health");
    }

    static Map<String, String> params(String redisUri, String... keyValues) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.redis.uri", redisUri);
        m.put("tollgate.redis.timeout", "500ms");
        m.put("tollgate.policy.default.limits", "10/s");
        m.put("tollgate.health.path", "/health/tollgate");
        m.put("tollgate.jmx", "false");
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    @Test
    void upWhileRedisAnswers(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), params(redis.uri()), Map.of(), this::application)) {
            assertEquals(200, t.get("/api/hello").statusCode());
            HttpResponse<String> all = t.get("/health/tollgate");
            System.out.println("[health] " + all.statusCode() + " " + all.body());
            assertEquals(200, all.statusCode(), all.body());
            assertEquals("application/json", all.headers().firstValue("Content-Type").orElse("").replaceAll(";.*", ""));
            assertEquals("no-store", all.headers().firstValue("Cache-Control").orElse(""));
            assertTrue(all.body().startsWith("{\"status\":\"UP\",\"checks\":[{\"name\":\"tollgate\",\"status\":\"UP\",\"data\":{"),
                    all.body());
            assertTrue(all.body().contains("\"/ tollgate.store\":\"redis\",\"/ tollgate.circuit\":\"closed\""), all.body());
            assertTrue(all.body().endsWith(",{\"name\":\"tollgate-live\",\"status\":\"UP\"}]}"), all.body());
            HttpResponse<String> ready = t.get("/health/tollgate/ready");
            assertEquals(200, ready.statusCode());
            assertFalse(ready.body().contains("tollgate-live"));
            assertEquals("{\"status\":\"UP\",\"checks\":[{\"name\":\"tollgate-live\",\"status\":\"UP\"}]}",
                    t.get("/health/tollgate/live").body());
            assertEquals("the application's", t.get("/health/other").body(), "other paths are the application's");
            assertEquals(1, appCalls.get(), "the application's servlet at the health path was not reached");
        }
    }

    @Test
    void readinessIsDownWhileRedisIsDownUnderClosed() throws Exception {
        String uri = "redis://tollgate:s3cret-pass@127.0.0.1:" + RedisProcess.freePort();
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(uri, "tollgate.redis.failure-mode", "closed"), Map.of(), this::application)) {
            assertEquals(503, t.get("/api/hello").statusCode(), "closed: requests are refused while Redis is down");
            HttpResponse<String> ready = t.get("/health/tollgate/ready");
            System.out.println("[health] Redis down: " + ready.statusCode() + " " + ready.body());
            assertEquals(503, ready.statusCode());
            assertTrue(ready.body().startsWith("{\"status\":\"DOWN\",\"checks\":[{\"name\":\"tollgate\",\"status\":\"DOWN\""),
                    ready.body());
            assertTrue(ready.body().contains("\"/ tollgate.fallback\":true"), ready.body());
            assertEquals(503, t.get("/health/tollgate").statusCode());
            HttpResponse<String> live = t.get("/health/tollgate/live");
            assertEquals(200, live.statusCode(), "a Redis outage does not make the application not live");
            for (String p : new String[] {"/health/tollgate", "/health/tollgate/ready"}) {
                String body = t.get(p).body();
                assertFalse(body.contains("s3cret"), "no password: " + body);
            }
            assertEquals(0, appCalls.get());
        }
    }

    @Test
    void anAddressTheSettingDoesNotAllowGets404EvenForwarded(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis.uri(), "tollgate.health.allow", "192.0.2.0/24", "tollgate.trusted-proxies", "127.0.0.1"),
                Map.of(), this::application)) {
            for (String p : new String[] {"/health/tollgate", "/health/tollgate/ready", "/health/tollgate/live"}) {
                HttpResponse<String> r = t.get(p);
                assertEquals(404, r.statusCode(), p);
                assertEquals("", r.body(), p);
                HttpResponse<String> forwarded = t.get(p, "X-Forwarded-For", "192.0.2.7");
                assertEquals(404, forwarded.statusCode(), "a forwarded address is not believed: " + p);
            }
            assertEquals(0, appCalls.get(), "refused at the filter, not passed on to the application");
        }
    }
}
