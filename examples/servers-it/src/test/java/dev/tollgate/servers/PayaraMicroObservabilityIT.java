package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Payara Micro as it comes: MicroProfile Health at {@code /health/ready} and MicroProfile Metrics
 * at {@code /metrics} on the HTTP port, both on by default. Tollgate's decisions are in the
 * application registry ({@code mp_scope="application"}).
 */
class PayaraMicroObservabilityIT extends ObservabilityContract {

    PayaraMicroObservabilityIT() {
        super(Servers.payaraMicro());
    }

    @Override
    protected URI healthReady(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + "/health/ready");
    }

    @Override
    protected URI metrics(ServerProcess server) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + "/metrics?scope=application");
    }

    /** Open failure mode: after Redis dies requests pass unlimited, counted so, and readiness stays UP. */
    @Test
    void inOpenModeReadinessStaysUpWhenRedisDiesAndThePassesAreCountedAsFallback() {
        try (RedisProcess redis = TestRedis.startProcess();
             ServerProcess server = start("open", redis, "open")) {
            sendAndCheck(server, 3, 3);
            redis.kill();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> r = server.get(App.SERVLET_APP.limitedPath());
                assertEquals(200, r.statusCode(), "open mode, Redis dead: " + r.body());
                assertFalse(r.headers().firstValue("RateLimit").isPresent(), "no rate limit headers in open mode");
            }
            HttpResponse<String> ready = get(healthReady(server));
            print(server, "/health/ready after Redis died (open mode)", ready);
            assertEquals(200, ready.statusCode(), ready.body());
            assertOneTollgateCheck(ready.body(), "UP");
            assertTrue(ready.body().contains("open"), "the data tell the circuit is open: " + ready.body());

            Map<String, Double> after = decisions(server);
            assertEquals(3.0 + 5.0, after.getOrDefault("allowed", 0.0), "allowed, 3 by Redis and 5 while it was dead: " + after);
            assertEquals(3.0, after.getOrDefault("denied", 0.0), "denied " + after);
        }
    }
}
