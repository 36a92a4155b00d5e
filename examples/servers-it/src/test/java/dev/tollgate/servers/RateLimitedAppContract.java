package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRedis;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every server must do with an example application, checked over HTTP against one server
 * started once for the class, configured as an operator would: {@code TOLLGATE_REDIS_URI} points
 * at the tests' Redis, {@code TOLLGATE_POLICY_DEFAULT_LIMITS=3/s burst 6} overrides the
 * application's own {@code web.xml} ({@code 5/s burst 10}), and a key prefix of this class's own
 * keeps its buckets apart from every other server's.
 *
 * <p>A subclass names the server and the application; see {@link App} to test another WAR.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ServerDiagnostics.class)
public abstract class RateLimitedAppContract {

    /** Set in the environment; the application's web.xml says 5/s burst 10. */
    protected static final String LIMITS = "3/s burst 6";
    private static final int BURST = 6;
    private static final double RATE_PER_SECOND = 3.0;
    /** q is the burst, w the seconds an empty bucket takes to fill: 6 tokens at 3/s. */
    private static final String POLICY_HEADER = "\"default\";q=6;w=2";
    private static final Pattern RATE_LIMIT_HEADER = Pattern.compile("\"default\";r=(\\d+);t=(\\d+)");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    protected final AppServer serverKind;
    protected final App app;
    protected RedisEndpoint redis;
    protected ServerProcess server;
    /** The prefix given as TOLLGATE_REDIS_KEY_PREFIX. */
    protected String envKeyPrefix;

    protected RateLimitedAppContract(AppServer serverKind, App app) {
        this.serverKind = serverKind;
        this.app = app;
    }

    /** A subclass may add to what the operator sets, e.g. a system property. */
    protected Launch configure(Launch launch) {
        return launch;
    }

    /** The prefix Tollgate must use for its Redis keys, given what {@link #configure} set. */
    protected String expectedKeyPrefix() {
        return envKeyPrefix;
    }

    /** A fresh key prefix for one server run: "tomcat-10.1-3f2a9c1e:". */
    protected String newKeyPrefix(String what) {
        return serverKind.id() + "-" + what + "-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /** The operator's settings for a run of this class's application on {@code kind}, with these limits. */
    protected Launch launch(AppServer kind, String label, String limits, String keyPrefix) {
        return Launch.of(kind, app.deployment(), label)
                .env("TOLLGATE_REDIS_URI", redis.uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", keyPrefix)
                // The default budget (100 ms) is for production; a loaded 2-core CI machine can miss it.
                .env("TOLLGATE_REDIS_TIMEOUT", "2s")
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", limits);
    }

    @BeforeAll
    void startServer() {
        redis = TestRedis.shared();
        envKeyPrefix = newKeyPrefix("env");
        server = configure(launch(serverKind, "main", LIMITS, envKeyPrefix)).start();
        // The first request through the filter (WildFly initialises filters only then); it takes one token.
        server.awaitStatus(app.limitedPath(), 200, READY_TIMEOUT);
    }

    @AfterAll
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    /** Deleting this server's buckets gives the client a full bucket again, as if it had been idle. */
    @BeforeEach
    void fullBucket() {
        for (String prefix : List.of(envKeyPrefix, expectedKeyPrefix())) {
            for (String key : keys(prefix)) {
                redis.command("DEL", key);
            }
        }
    }

    @Test
    void anAllowedRequestReachesTheApplicationAndCarriesTheRateLimitHeaders() {
        HttpResponse<String> r = server.get(app.limitedPath());
        assertEquals(200, r.statusCode(), () -> "status; body: " + r.body());
        assertEquals(app.body(), r.body().strip());
        // q=6: TOLLGATE_POLICY_DEFAULT_LIMITS won over web.xml's init-param (which would give q=10)
        assertEquals(List.of(POLICY_HEADER), r.headers().allValues("RateLimit-Policy"));
        assertEquals(5, remaining(r), "one of six tokens spent");
    }

    @Test
    void aBurstGetsTheCapacityThen429WithRetryAfterAndAProblemBody() {
        int n = 12;
        List<HttpResponse<String>> answers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            answers.add(server.get(app.limitedPath()));
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;

        int allowed = 0;
        HttpResponse<String> lastRefusal = null;
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = answers.get(i);
            if (r.statusCode() == 200) {
                allowed++;
                assertEquals(app.body(), r.body().strip());
                assertEquals(POLICY_HEADER, header(r, "RateLimit-Policy"));
                assertTrue(remaining(r) < BURST, "remaining below the burst");
            } else if (r.statusCode() == 429) {
                assertRefusal(r);
                lastRefusal = r;
            } else {
                fail("request " + (i + 1) + " got " + r.statusCode() + ": " + r.body());
            }
        }
        for (int i = 0; i < BURST; i++) {
            assertEquals(200, answers.get(i).statusCode(), "request " + (i + 1) + " of a full bucket of " + BURST);
        }
        // Tokens refill at 3/s while the burst runs, so a slow machine may see a few more pass.
        int mostAllowed = BURST + (int) Math.floor(RATE_PER_SECOND * elapsed) + 1;
        System.out.printf(Locale.ROOT, "[servers-it] %s: %d requests in %.3f s: %d allowed (at most %d may be), %d refused%n",
                server.title(), n, elapsed, allowed, mostAllowed, n - allowed);
        assertTrue(allowed <= mostAllowed, allowed + " allowed in " + elapsed + " s; at most " + mostAllowed);
        assertTrue(lastRefusal != null, "no request was refused");
        System.out.println("[servers-it] " + server.title() + ": a refusal: " + lastRefusal.version() + " "
                + lastRefusal.statusCode() + " " + lastRefusal.headers().map());

        // Retry-After is honest: a request sent after it passes.
        long retryAfter = Long.parseLong(header(lastRefusal, "Retry-After"));
        pauseSeconds(retryAfter);
        HttpResponse<String> after = server.get(app.limitedPath());
        assertEquals(200, after.statusCode(), "after waiting Retry-After (" + retryAfter + " s)");
    }

    @Test
    void pathsTheFilterDoesNotCoverAreNotLimited() {
        for (int i = 0; i < BURST * 2; i++) {
            HttpResponse<String> r = server.get(app.freePath());
            assertTrue(r.statusCode() != 429, "request " + (i + 1) + " to " + app.freePath() + " was refused");
            assertFalse(r.headers().firstValue("RateLimit").isPresent(), "RateLimit header on " + app.freePath());
            assertFalse(r.headers().firstValue("RateLimit-Policy").isPresent());
        }
    }

    @Test
    void theBucketIsInRedisUnderTheOperatorsPrefix() {
        for (int i = 0; i < 3; i++) {
            assertEquals(200, server.get(app.limitedPath()).statusCode());
        }
        // three tokens taken: the key lives until the bucket is full again, one second from now
        assertEquals(List.of(expectedKeyPrefix() + "{ip=127.0.0.1}:default"), keys(expectedKeyPrefix()));
        if (!expectedKeyPrefix().equals(envKeyPrefix)) {
            assertEquals(List.of(), keys(envKeyPrefix), "the prefix from the environment must have lost");
        }
    }

    @Test
    void theStartLogShowsTheOperatorsSettings() {
        List<String> started = server.awaitLogLines("TOLLGATE-010", Duration.ofSeconds(5));
        assertEquals(1, started.size(), () -> "one TOLLGATE-010 line: " + started);
        String line = started.get(0);
        assertTrue(line.contains("store " + redis.uri()), line);
        assertTrue(line.contains("limits [" + LIMITS + "]"), line);
        System.out.println("[servers-it] " + server.title() + ": " + line.strip());
        List<String> slf4j = server.logLines("SLF4J");
        System.out.println("[servers-it] " + server.title() + ": SLF4J lines in the log: "
                + (slf4j.isEmpty() ? "none" : slf4j));
    }

    // ---- shared checks ----

    /** Everything a refused request must carry. */
    protected static void assertRefusal(HttpResponse<String> r) {
        assertEquals(429, r.statusCode());
        long retryAfter = Long.parseLong(header(r, "Retry-After"));
        assertTrue(retryAfter >= 1, "Retry-After " + retryAfter);
        String type = header(r, "Content-Type").replace(" ", "").toLowerCase(Locale.ROOT);
        assertTrue(type.startsWith("application/problem+json"), type);
        assertTrue(r.body().contains("\"status\":429"), r.body());
        assertTrue(r.body().contains("\"violated-policies\":[\"default\"]"), r.body());
        assertEquals(POLICY_HEADER, header(r, "RateLimit-Policy"));
        assertEquals(0, remaining(r));
    }

    /**
     * The log has a TOLLGATE-001 line that names the key, the bad value and where it came from;
     * printed, because where it came from differs between servers.
     */
    protected static void assertTollgate001(ServerProcess p, String badLimits, String source) {
        List<String> lines = p.awaitLogLines("TOLLGATE-001", Duration.ofSeconds(10));
        assertFalse(lines.isEmpty(), "no TOLLGATE-001 in the log of " + p.title());
        String expected = "tollgate.policy.default.limits = '" + badLimits + "' (from " + source;
        assertTrue(lines.stream().anyMatch(l -> l.contains(expected)),
                () -> "no TOLLGATE-001 line with \"" + expected + "\": " + lines);
        System.out.println("[servers-it] " + p.title() + ": " + lines.get(0).strip());
    }

    protected static String header(HttpResponse<String> r, String name) {
        return r.headers().firstValue(name).orElseThrow(() -> new AssertionError(
                "no " + name + " header; status " + r.statusCode() + ", headers " + r.headers().map()));
    }

    /** r of the RateLimit header. */
    protected static int remaining(HttpResponse<String> r) {
        String v = header(r, "RateLimit");
        Matcher m = RATE_LIMIT_HEADER.matcher(v);
        assertTrue(m.matches(), "RateLimit: " + v);
        return Integer.parseInt(m.group(1));
    }

    /** The Redis keys under a prefix. */
    protected List<String> keys(String prefix) {
        String reply = redis.command("KEYS", prefix + "*");
        List<String> keys = new ArrayList<>();
        if (reply != null) {
            reply.lines().filter(l -> !l.isEmpty()).forEach(keys::add);
        }
        return keys;
    }

    private static void pauseSeconds(long seconds) {
        try {
            Thread.sleep(seconds * 1000); // waiting as a client must, per Retry-After
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
