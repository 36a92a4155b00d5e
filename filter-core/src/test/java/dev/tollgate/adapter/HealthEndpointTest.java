package dev.tollgate.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Health;
import dev.tollgate.HttpAnswer;
import dev.tollgate.config.ConfigException;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.HealthSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 24, item 2: what the health path answers, to whom, and what a bad setting does. */
class HealthEndpointTest {

    static HealthSettings settings(Map<String, String> values) {
        return HealthSettings.load(ConfigLookup.of(ConfigSources.of("test", values)));
    }

    static final HealthEndpoint ENDPOINT = new HealthEndpoint(settings(Map.of("tollgate.health.path", "/health/tollgate")));

    static final Health UP = new Health("/ tollgate", true, "redis", "closed", false, 12, 0, null);
    static final Health DOWN = new Health("/ tollgate", false, "redis", "open", true, 20, 3,
            "redis.clients.jedis.exceptions.JedisConnectionException: Failed to connect to rediss://app:s3cret@cache.example:6380.");

    @Test
    void itIsOffUnlessAPathIsSetAndAnswersOnlyItsThreePaths() {
        HealthEndpoint off = new HealthEndpoint(settings(Map.of()));
        assertEquals(null, off.path());
        assertFalse(off.covers("/health/tollgate"));
        for (String p : List.of("/health/tollgate", "/health/tollgate/ready", "/health/tollgate/live")) {
            assertTrue(ENDPOINT.covers(p), p);
        }
        for (String p : List.of("/health", "/health/tollgateX", "/health/tollgate/", "/health/tollgate/started", "/api")) {
            assertFalse(ENDPOINT.covers(p), p);
            assertEquals(HttpAnswer.PASS, ENDPOINT.answer("GET", p, "127.0.0.1", true, List.of(UP)), p);
        }
    }

    @Test
    void readinessAndLivenessInMicroProfileHealthsShape() {
        HttpAnswer all = ENDPOINT.answer("GET", "/health/tollgate", "127.0.0.1", true, List.of(UP));
        assertEquals(200, all.status());
        assertEquals("application/json", all.contentType());
        assertEquals("{\"status\":\"UP\",\"checks\":[{\"name\":\"tollgate\",\"status\":\"UP\",\"data\":{"
                + "\"/ tollgate.store\":\"redis\",\"/ tollgate.circuit\":\"closed\",\"/ tollgate.fallback\":false,"
                + "\"/ tollgate.redisCalls\":12,\"/ tollgate.redisFailures\":0}},"
                + "{\"name\":\"tollgate-live\",\"status\":\"UP\"}]}", all.body());
        assertTrue(all.headers().contains(new HttpAnswer.Header("Cache-Control", "no-store")));

        HttpAnswer ready = ENDPOINT.answer("GET", "/health/tollgate/ready", "::1", true, List.of(DOWN));
        assertEquals(503, ready.status());
        assertTrue(ready.body().startsWith("{\"status\":\"DOWN\",\"checks\":[{\"name\":\"tollgate\",\"status\":\"DOWN\""), ready.body());
        assertFalse(ready.body().contains("tollgate-live"), "readiness alone");
        assertFalse(ready.body().contains("s3cret"), "a password in a failure's text is masked: " + ready.body());
        assertTrue(ready.body().contains("rediss://****@cache.example:6380"), ready.body());

        HttpAnswer live = ENDPOINT.answer("GET", "/health/tollgate/live", "127.0.0.1", true, List.of(DOWN));
        assertEquals(200, live.status(), "Redis down does not make Tollgate not live");
        assertEquals("{\"status\":\"UP\",\"checks\":[{\"name\":\"tollgate-live\",\"status\":\"UP\"}]}", live.body());
        HttpAnswer notStarted = ENDPOINT.answer("GET", "/health/tollgate/live", "127.0.0.1", false, List.of());
        assertEquals(503, notStarted.status());
        assertEquals(503, ENDPOINT.answer("GET", "/health/tollgate/ready", "127.0.0.1", false, List.of()).status());
        assertEquals(503, ENDPOINT.answer("GET", "/health/tollgate", "127.0.0.1", true, List.of(UP, DOWN)).status(),
                "down when any limiter is not ready");
    }

    @Test
    void onlyTheAllowedConnectionAddressesAreAnswered() {
        for (String loopback : List.of("127.0.0.1", "127.8.9.10", "::1", "0:0:0:0:0:0:0:1", "[::1]", "::ffff:127.0.0.1")) {
            assertEquals(200, ENDPOINT.answer("GET", "/health/tollgate", loopback, true, List.of(UP)).status(), loopback);
        }
        for (String other : List.of("192.0.2.1", "10.0.0.1", "2001:db8::1", "", "unknown")) {
            HttpAnswer a = ENDPOINT.answer("GET", "/health/tollgate", other, true, List.of(UP));
            assertEquals(404, a.status(), other);
            assertEquals("", a.body());
        }
        assertEquals(404, ENDPOINT.answer("GET", "/health/tollgate", null, true, List.of(UP)).status());
        HealthEndpoint pods = new HealthEndpoint(settings(Map.of("tollgate.health.path", "/h", "tollgate.health.allow", "10.0.0.0/8")));
        assertEquals(200, pods.answer("GET", "/h/ready", "10.1.2.3", true, List.of(UP)).status());
        assertEquals(404, pods.answer("GET", "/h/ready", "127.0.0.1", true, List.of(UP)).status(), "loopback is no longer listed");
        HttpAnswer post = ENDPOINT.answer("POST", "/health/tollgate", "127.0.0.1", true, List.of(UP));
        assertEquals(405, post.status());
        assertTrue(post.headers().contains(new HttpAnswer.Header("Allow", "GET, HEAD")));
    }

    @Test
    void aBadValueNamesKeyValueAndWhatIsAccepted() {
        for (String bad : List.of("health", "/", "/health/", "/a//b", "/a/../b", "/health/*", "/h?x=1")) {
            ConfigException e = assertThrows(ConfigException.class, () -> settings(Map.of("tollgate.health.path", bad)), bad);
            assertTrue(e.getMessage().contains("tollgate.health.path = '" + bad + "'") && e.getMessage().contains("Accepted: a path"),
                    e.getMessage());
        }
        for (String bad : List.of("localhost", "0.0.0.0/0", ",", "10.0.0.0/33")) {
            ConfigException e = assertThrows(ConfigException.class, () -> settings(Map.of("tollgate.health.allow", bad)), bad);
            assertTrue(e.getMessage().contains("tollgate.health.allow = '" + bad + "'") && e.getMessage().contains("Accepted: addresses"),
                    e.getMessage());
        }
        // the whole configuration refuses them too, so a bad value stops every start
        assertThrows(ConfigException.class, () -> dev.tollgate.config.TollgateConfig.load(
                ConfigLookup.of(ConfigSources.of("test", Map.of("tollgate.health.path", "nope"))), null));
    }

    @Test
    void jsonStringsAreEscaped() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", HealthEndpoint.string("a\"b\\c\nd\u0001"));
    }
}
