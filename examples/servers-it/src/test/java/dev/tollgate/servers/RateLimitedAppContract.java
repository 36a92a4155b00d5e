package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.testing.RedisEndpoint;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every server must do with an example application, checked over HTTP against the main
 * start of a {@link ServerContract}, where the operator set {@code TOLLGATE_POLICY_DEFAULT_LIMITS=3/s burst 6}
 * over the application's own {@code 5/s burst 10}. The application's {@code limitedPath} is
 * limited by the {@code default} policy alone, keyed by the client's address.
 *
 * <p>Used as a {@code @Nested} class of a server's test class:
 * {@code @Nested class ServletApp extends RateLimitedAppContract { ServletApp() { super(WildFlyIT.this, App.SERVLET_APP); } }}
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ServerDiagnostics.class)
public abstract class RateLimitedAppContract {

    private static final int BURST = 6;
    private static final double RATE_PER_SECOND = 3.0;
    /** q is the burst, w the seconds an empty bucket takes to fill: 6 tokens at 3/s. */
    static final String POLICY_HEADER = "\"default\";q=6;w=2";
    private static final Pattern RATE_LIMIT_HEADER = Pattern.compile("\"default\";r=(\\d+);t=(\\d+)");

    protected final ServerContract on;
    protected final App app;

    protected RateLimitedAppContract(ServerContract on, App app) {
        this.on = on;
        this.app = app;
    }

    /** The main start of the server, with this application among others. */
    protected ServerProcess server() {
        return on.server();
    }

    protected RedisEndpoint redis() {
        return on.redis();
    }

    protected String expectedKeyPrefix() {
        return on.expectedKeyPrefix();
    }

    /** A GET of a path in this application. */
    protected HttpResponse<String> get(String path) {
        return server().get(app.deployment(), path);
    }

    /** Whether a TOLLGATE-010 line is this application's, among those of every application of the start. */
    protected boolean isStartLineOfThisApp(String line) {
        return !line.contains("policy login [");
    }

    /** What this application's TOLLGATE-010 line must show of the operator's settings. */
    protected List<String> expectedInStartLine() {
        return List.of("store " + redis().uri() + " ", "key prefix '" + expectedKeyPrefix() + "'",
                "policy default [enforce, limits [" + ServerContract.DEFAULT_LIMITS + "], key ip,");
    }

    /** Deleting this server's buckets gives the client a full bucket again, as if it had been idle. */
    @BeforeEach
    void fullBucket() {
        for (String prefix : List.of(on.envKeyPrefix(), expectedKeyPrefix())) {
            for (String key : keys(prefix)) {
                redis().command("DEL", key);
            }
        }
    }

    @Test
    void anAllowedRequestReachesTheApplicationAndCarriesTheRateLimitHeaders() {
        HttpResponse<String> r = get(app.limitedPath());
        assertEquals(200, r.statusCode(), () -> "status; body: " + r.body());
        assertEquals(app.body(), r.body().strip());
        // q=6: TOLLGATE_POLICY_DEFAULT_LIMITS won over the application's own value (which would give q=10)
        assertEquals(List.of(POLICY_HEADER), r.headers().allValues("RateLimit-Policy"));
        assertEquals(5, remaining(r), "one of six tokens spent");
    }

    @Test
    void aBurstGetsTheCapacityThen429WithRetryAfterAndAProblemBody() {
        int n = 12;
        List<HttpResponse<String>> answers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            answers.add(get(app.limitedPath()));
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
                server().title(), n, elapsed, allowed, mostAllowed, n - allowed);
        assertTrue(allowed <= mostAllowed, allowed + " allowed in " + elapsed + " s; at most " + mostAllowed);
        assertTrue(lastRefusal != null, "no request was refused");
        System.out.println("[servers-it] " + server().title() + ": a refusal: " + lastRefusal.version() + " "
                + lastRefusal.statusCode() + " " + lastRefusal.headers().map());

        // Retry-After is honest: a request sent after it passes.
        long retryAfter = Long.parseLong(header(lastRefusal, "Retry-After"));
        pauseSeconds(retryAfter);
        HttpResponse<String> after = get(app.limitedPath());
        assertEquals(200, after.statusCode(), "after waiting Retry-After (" + retryAfter + " s)");
    }

    @Test
    void pathsTheFilterDoesNotCoverAreNotLimited() {
        for (int i = 0; i < BURST * 2; i++) {
            HttpResponse<String> r = get(app.freePath());
            assertTrue(r.statusCode() != 429, "request " + (i + 1) + " to " + app.freePath() + " was refused");
            assertFalse(r.headers().firstValue("RateLimit").isPresent(), "RateLimit header on " + app.freePath());
            assertFalse(r.headers().firstValue("RateLimit-Policy").isPresent());
        }
    }

    @Test
    void theBucketIsInRedisUnderTheOperatorsPrefix() {
        long t0 = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            assertEquals(200, get(app.limitedPath()).statusCode());
        }
        List<String> keys = keys(expectedKeyPrefix());
        double elapsed = (System.nanoTime() - t0) / 1e9;
        // Three tokens taken: the key lives until the bucket is full again, a second after the
        // last request. Only a machine that took that long over these requests could miss it.
        if (elapsed < 1.0 || !keys.isEmpty()) {
            assertEquals(List.of(expectedKeyPrefix() + app.keyNamespace() + "{ip=127.0.0.1}:default"), keys);
        }
        if (!expectedKeyPrefix().equals(on.envKeyPrefix())) {
            assertEquals(List.of(), keys(on.envKeyPrefix()), "the prefix from the environment must have lost");
        }
    }

    @Test
    void theStartLogShowsTheOperatorsSettings() {
        List<String> started = server().awaitLogLines("TOLLGATE-010", Duration.ofSeconds(5)).stream()
                .filter(this::isStartLineOfThisApp).collect(Collectors.toList());
        assertEquals(1, started.size(), () -> "one TOLLGATE-010 line of " + app.warFile() + ": " + started);
        String line = started.get(0);
        for (String expected : expectedInStartLine()) {
            assertTrue(line.contains(expected), () -> "\"" + expected + "\" in " + line);
        }
        System.out.println("[servers-it] " + server().title() + ": " + line.strip());
        List<String> slf4j = server().logLines("SLF4J");
        System.out.println("[servers-it] " + server().title() + ": SLF4J lines in the log: "
                + (slf4j.isEmpty() ? "none" : slf4j));
    }

    // ---- shared checks ----

    /** Everything a refused request must carry. */
    protected static void assertRefusal(HttpResponse<String> r) {
        assertRefusal(r, "default", POLICY_HEADER);
        assertEquals(0, remaining(r));
    }

    /** A 429 by {@code policy} alone, with Retry-After, a problem body and the policy headers of the resource. */
    protected static void assertRefusal(HttpResponse<String> r, String policy, String policyHeader) {
        assertEquals(429, r.statusCode());
        long retryAfter = Long.parseLong(header(r, "Retry-After"));
        assertTrue(retryAfter >= 1, "Retry-After " + retryAfter);
        String type = header(r, "Content-Type").replace(" ", "").toLowerCase(Locale.ROOT);
        assertTrue(type.startsWith("application/problem+json"), type);
        assertTrue(r.body().contains("\"status\":429"), r.body());
        assertTrue(r.body().contains("\"violated-policies\":[\"" + policy + "\"]"), r.body());
        assertEquals(policyHeader, header(r, "RateLimit-Policy"));
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

    /**
     * The buckets in Redis under a prefix: its keys but the records of the policies' limits
     * ({@code <prefix><namespace>:policy:<name>}, one per policy, which a node writes again now and then).
     */
    protected List<String> keys(String prefix) {
        String reply = redis().command("KEYS", prefix + "*");
        List<String> keys = new ArrayList<>();
        if (reply != null) {
            reply.lines().filter(l -> !l.isEmpty() && !l.contains(":policy:")).forEach(keys::add);
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
