package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The servlet drop-in jar on a server: a WAR of {@link DropInWar} (the jar alone in
 * {@code WEB-INF/lib}, the filter declared in {@code web.xml} without a limit), started on its own
 * with the limits and the key prefix in the operator's environment
 * ({@code TOLLGATE_POLICY_DEFAULT_LIMITS=2/s burst 4}). The shaded Jedis inside the jar reaches the
 * tests' Redis, and the filter answers as the servlet example's does.
 *
 * <p>Used as a {@code @Nested} class of a server's test class:
 * {@code @Nested class DropInJar extends DropInJarContract { DropInJar() { super(Jetty12IT.this); } }}
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ServerDiagnostics.class)
public abstract class DropInJarContract {

    private static final String CONTEXT = "drop-in";
    private static final String LIMITS = "2/s burst 4";
    private static final int BURST = 4;
    private static final double RATE_PER_SECOND = 2.0;
    private static final String POLICY_HEADER = "\"default\";q=4;w=2";

    private final ServerContract on;
    private ServerProcess server;
    private Deployment war;
    private String prefix;

    protected DropInJarContract(ServerContract on) {
        this.on = on;
    }

    @BeforeAll
    void startTheDropInWar() throws IOException {
        if (on.serverKind.java().isEmpty()) {
            return; // ServerContract skips every test, these too
        }
        war = DropInWar.write(Build.workDir().resolve(on.serverKind.id() + "-drop-in-war"), CONTEXT);
        prefix = on.newKeyPrefix("drop-in");
        server = Launch.of(on.serverKind, war, "drop-in")
                .env("TOLLGATE_REDIS_URI", on.redis().uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", prefix)
                .env("TOLLGATE_REDIS_TIMEOUT", "2s")
                .env("TOLLGATE_DENY_CACHE", "false")
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", LIMITS)
                .start();
        // The first request through the filter; its token goes back with the keys before each test.
        server.awaitStatus(DropInWar.PATH, 200, Duration.ofSeconds(60));
    }

    @AfterAll
    void stopTheDropInWar() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void fullBucket() {
        for (String key : keys()) {
            on.redis().command("DEL", key);
        }
    }

    @Test
    void theBurstPassesThenA429WithRetryAfterAndAProblemBody() {
        int n = 10;
        List<HttpResponse<String>> answers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            answers.add(server.get(DropInWar.PATH));
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        int allowed = 0;
        HttpResponse<String> refusal = null;
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = answers.get(i);
            if (r.statusCode() == 200) {
                allowed++;
                assertEquals(DropInWar.BODY, r.body().strip());
                assertEquals(List.of(POLICY_HEADER), r.headers().allValues("RateLimit-Policy"),
                        "the environment's limits, in the drop-in's filter");
            } else if (r.statusCode() == 429) {
                refusal = r;
            } else {
                fail("request " + (i + 1) + " got " + r.statusCode() + ": " + r.body());
            }
        }
        for (int i = 0; i < BURST; i++) {
            assertEquals(200, answers.get(i).statusCode(), "request " + (i + 1) + " of a full bucket of " + BURST);
        }
        int mostAllowed = BURST + (int) Math.floor(RATE_PER_SECOND * elapsed) + 1;
        System.out.printf(Locale.ROOT, "[servers-it] %s: %d requests in %.3f s: %d allowed (at most %d may be)%n",
                server.title(), n, elapsed, allowed, mostAllowed);
        assertTrue(allowed <= mostAllowed, allowed + " allowed in " + elapsed + " s; at most " + mostAllowed);
        assertTrue(refusal != null, "no request was refused");
        RateLimitedAppContract.assertRefusal(refusal, "default", POLICY_HEADER);
        System.out.println("[servers-it] " + server.title() + ": a refusal: " + refusal.headers().map() + " " + refusal.body());
    }

    @Test
    void theBucketIsInRedisUnderTheOperatorsPrefixAndTheContextsNamespace() {
        long t0 = System.nanoTime();
        assertEquals(200, server.get(DropInWar.PATH).statusCode());
        List<String> keys = keys();
        // The key lives until the bucket is full again, half a second after one token.
        if ((System.nanoTime() - t0) / 1e9 < 0.5 || !keys.isEmpty()) {
            assertEquals(List.of(prefix + "/" + CONTEXT + ":{ip=127.0.0.1}:default"), keys);
        }
    }

    @Test
    void theStartLogShowsTheOperatorsSettings() {
        List<String> started = server.awaitLogLines("TOLLGATE-010", Duration.ofSeconds(5));
        assertEquals(1, started.size(), () -> "one TOLLGATE-010 line: " + started);
        String line = started.get(0);
        for (String expected : List.of("key prefix '" + prefix + "'", "policy default [enforce, limits [" + LIMITS + "]")) {
            assertTrue(line.contains(expected), () -> "\"" + expected + "\" in " + line);
        }
        System.out.println("[servers-it] " + server.title() + ": " + line.strip());
    }

    /** The buckets under this start's prefix, without the records of the policies' limits. */
    private List<String> keys() {
        String reply = on.redis().command("KEYS", prefix + "*");
        List<String> keys = new ArrayList<>();
        if (reply != null) {
            reply.lines().filter(l -> !l.isEmpty() && !l.contains(":policy:")).forEach(keys::add);
        }
        return keys;
    }
}
