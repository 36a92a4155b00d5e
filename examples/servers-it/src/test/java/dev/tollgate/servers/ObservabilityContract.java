package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.servers.owncheck.OwnTollgateCheck;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestRedis;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What an operator sees at the server's own endpoints, with nothing added to the application:
 * Tollgate's readiness at {@code /health/ready} (registered by its CDI extension) and its decisions
 * at the server's metrics endpoint, after traffic with refusals and after a Redis outage.
 *
 * <p>{@code servlet-app} alone, over a Redis of its own that the test kills, with
 * {@code TOLLGATE_POLICY_DEFAULT_LIMITS=3/min} (the WAR says {@code 5/s burst 10}) and no deny
 * cache (so each refusal is Redis' and counted {@code tollgate_rate_limiting_store="redis"}). What the endpoints answered
 * is printed for the closing note.
 */
@ExtendWith(ServerDiagnostics.class)
abstract class ObservabilityContract {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    /** {@code name{labels} value}, one sample of Prometheus' text format. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)\\}\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    protected final AppServer serverKind;

    protected ObservabilityContract(AppServer serverKind) {
        this.serverKind = serverKind;
    }

    /** The server's readiness endpoint. */
    protected abstract URI healthReady(ServerProcess server);

    /** The server's metrics endpoint, in Prometheus' text format; {@code null} where Tollgate's meters do not reach one. */
    protected abstract URI metrics(ServerProcess server);

    protected ServerProcess start(String label, RedisProcess redis, String failureMode) {
        return start(label, redis, failureMode, App.SERVLET_APP.deployment());
    }

    protected ServerProcess start(String label, RedisProcess redis, String failureMode, Deployment app) {
        return Launch.of(serverKind, app, label)
                .env("TOLLGATE_REDIS_URI", redis.uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", "observe-" + UUID.randomUUID() + ":")
                .env("TOLLGATE_REDIS_TIMEOUT", "500ms")
                .env("TOLLGATE_REDIS_FAILURE_MODE", failureMode)
                .env("TOLLGATE_DENY_CACHE", "false")
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", "3/min")
                .start();
    }

    /**
     * Closed failure mode: ready and counting while Redis answers (3 allowed, 3 denied); after
     * Redis dies every request gets 503, counted {@code unavailable}, and readiness is DOWN.
     */
    @Test
    void inClosedModeTheServersEndpointsShowTheDecisionsAndReadinessGoesDownWhenRedisDies() {
        try (RedisProcess redis = TestRedis.startProcess();
             ServerProcess server = start("closed", redis, "closed")) {
            sendAndCheck(server, 3, 3);

            HttpResponse<String> ready = get(healthReady(server));
            print(server, "/health/ready while Redis answers", ready);
            assertEquals(200, ready.statusCode(), ready.body());
            assertOneTollgateCheck(ready.body(), "UP");
            assertTrue(ready.body().contains("\"circuit\"") || ready.body().contains(".circuit\""), ready.body());

            if (metrics(server) != null) {
                Map<String, Double> before = decisions(server);
                assertEquals(3.0, before.getOrDefault("acquired", 0.0), "acquired " + before);
                assertEquals(3.0, before.getOrDefault("limited", 0.0), "limited " + before);
                String max = get(metrics(server)).body().lines()
                        .filter(l -> l.startsWith("tollgate_redis_duration_seconds_max{") && l.contains("error_type=\"none\""))
                        .findFirst().orElseThrow(() -> new AssertionError("no tollgate_redis_duration_seconds_max at " + metrics(server)));
                double seconds = Double.parseDouble(max.substring(max.lastIndexOf(' ') + 1));
                // a unit check, not a timing one: each call is bounded by the 500 ms timeout, raw nanoseconds are millions
                assertTrue(seconds > 0 && seconds < 5, "the Redis timer is in seconds: " + max);
            }

            redis.kill();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> r = server.get(App.SERVLET_APP.limitedPath());
                assertEquals(503, r.statusCode(), "closed mode, Redis dead: " + r.body());
            }
            HttpResponse<String> down = get(healthReady(server));
            print(server, "/health/ready after Redis died (closed mode)", down);
            assertEquals(503, down.statusCode(), down.body());
            assertOneTollgateCheck(down.body(), "DOWN");
            assertTrue(down.body().contains("open"), "the circuit is open: " + down.body());

            if (metrics(server) == null) {
                return;
            }
            Map<String, Double> after = decisions(server);
            assertEquals(5.0, after.getOrDefault("unavailable", 0.0), "unavailable " + after);
            assertEquals(3.0, after.getOrDefault("acquired", 0.0), "acquired " + after);
            String circuit = get(metrics(server)).body().lines().filter(l -> l.startsWith("tollgate_redis_circuit{"))
                    .findFirst().orElseThrow(() -> new AssertionError("no tollgate_redis_circuit at " + metrics(server)));
            assertTrue(circuit.matches(".*\\}\\s+(1|2)(\\.0)?$"), "the circuit is not closed: " + circuit);
            assertTrue(circuit.contains("tollgate_rate_limiting_limiter=\"/servlet-app/tollgate\""),
                    "the limiter's name as a path, no space: " + circuit);
        }
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

            if (metrics(server) == null) {
                return;
            }
            Map<String, Double> after = decisions(server);
            assertEquals(3.0 + 5.0, after.getOrDefault("acquired", 0.0), "acquired, 3 by Redis and 5 while it was dead: " + after);
            assertEquals(3.0, after.getOrDefault("limited", 0.0), "limited " + after);
            Map<String, Double> fallback = decisions(server, labels -> "true".equals(labels.get("tollgate_rate_limiting_fallback")));
            assertEquals(Map.of("acquired", 5.0), fallback, "only the passes while Redis was dead are fallback=\"true\"");
        }
    }

    /**
     * The rule "one {@code tollgate} check per application, the application's if it has one": a
     * copy of {@code servlet-app} that declares its own {@code TollgateHealthCheck} bean
     * ({@link OwnTollgateCheck}) reports exactly one check, and it is that one.
     */
    @Test
    void anApplicationWithItsOwnTollgateCheckGetsThatOneAndNoSecond() throws IOException {
        try (RedisProcess redis = TestRedis.startProcess();
             ServerProcess server = start("own-check", redis, "closed", servletAppWithOwnCheck())) {
            server.awaitStatus(App.SERVLET_APP.limitedPath(), 200, Duration.ofSeconds(60));
            HttpResponse<String> ready = get(healthReady(server));
            print(server, "/health/ready, the application declaring its own TollgateHealthCheck", ready);
            assertEquals(200, ready.statusCode(), ready.body());
            assertOneTollgateCheck(ready.body(), "UP");
            assertTrue(ready.body().replaceAll("\\s", "").contains("\"declared-by\":\"application\""),
                    "the one check is the application's: " + ready.body());
        }
    }

    /** {@code servlet-app} with {@link OwnTollgateCheck} in {@code WEB-INF/classes}, in a directory of its own (Payara deploys by file name). */
    static Deployment servletAppWithOwnCheck() throws IOException {
        Path dir = Files.createDirectories(Build.workDir().resolve("own-check-war"));
        Path war = dir.resolve(App.SERVLET_APP.warFile());
        Files.copy(App.SERVLET_APP.deployment().war(), war, StandardCopyOption.REPLACE_EXISTING);
        String entry = OwnTollgateCheck.class.getName().replace('.', '/') + ".class";
        try (InputStream in = OwnTollgateCheck.class.getClassLoader().getResourceAsStream(entry);
             FileSystem zip = FileSystems.newFileSystem(war)) {
            Path target = zip.getPath("WEB-INF/classes/" + entry);
            Files.createDirectories(target.getParent());
            Files.copy(in, target);
        }
        return new Deployment(war, App.SERVLET_APP.contextRoot());
    }

    /** Sends 6 requests (the first is the one that waits for the application) and checks the split. */
    protected void sendAndCheck(ServerProcess server, int allowed, int denied) {
        server.awaitStatus(App.SERVLET_APP.limitedPath(), 200, Duration.ofSeconds(60));
        int ok = 1;
        int refused = 0;
        for (int i = 1; i < allowed + denied; i++) {
            int status = server.get(App.SERVLET_APP.limitedPath()).statusCode();
            if (status == 200) {
                ok++;
            } else if (status == 429) {
                refused++;
            }
        }
        assertEquals(allowed, ok, "allowed at 3/min");
        assertEquals(denied, refused, "refused at 3/min");
    }

    /**
     * {@code tollgate.rate_limiting.requests} of the policy {@code default}, summed by result over
     * the other tags, as the server's metrics endpoint shows them; the samples are printed.
     */
    protected Map<String, Double> decisions(ServerProcess server) {
        return decisions(server, labels -> true);
    }

    /** As {@link #decisions(ServerProcess)}, of the samples whose labels pass {@code which}. */
    protected Map<String, Double> decisions(ServerProcess server, Predicate<Map<String, String>> which) {
        HttpResponse<String> r = get(metrics(server));
        assertEquals(200, r.statusCode(), r.body());
        List<String> lines = r.body().lines().filter(l -> l.startsWith("tollgate_")).collect(Collectors.toList());
        System.out.println("[servers-it] " + server.title() + ": " + metrics(server).getPath() + ", the tollgate lines:\n  "
                + String.join("\n  ", lines));
        Map<String, Double> byOutcome = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.find() || !m.group(1).equals("tollgate_rate_limiting_requests_total")) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(2));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            if ("default".equals(labels.get("tollgate_rate_limiting_policy")) && which.test(labels)) {
                byOutcome.merge(labels.get("tollgate_rate_limiting_result"), Double.parseDouble(m.group(3)), Double::sum);
            }
        }
        assertTrue(!byOutcome.isEmpty(), "no tollgate_rate_limiting_requests_total of policy default at " + metrics(server) + ":\n"
                + r.body().lines().filter(x -> x.contains("tollgate")).collect(Collectors.joining("\n")));
        return byOutcome;
    }

    /** Exactly one check named {@code tollgate} (the extension adds one, never two), with this status. */
    protected static void assertOneTollgateCheck(String json, String status) {
        String compact = json.replaceAll("\\s", "");
        int checks = compact.split("\"name\":\"tollgate\"", -1).length - 1;
        assertEquals(1, checks, "one tollgate check: " + json);
        assertTrue(compact.matches(".*\"name\":\"tollgate\"[^}]*?\"status\":\"" + status + "\".*")
                || compact.matches(".*\"status\":\"" + status + "\"[^{]*?\"name\":\"tollgate\".*")
                || compact.contains("\"status\":\"" + status + "\""), "tollgate " + status + ": " + json);
    }

    protected static HttpResponse<String> get(URI uri) {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(15)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    protected static void print(ServerProcess server, String what, HttpResponse<String> r) {
        System.out.println("[servers-it] " + server.title() + ": " + what + ": " + r.statusCode() + " " + r.body().strip());
    }
}
