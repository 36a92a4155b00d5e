package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRedis;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One server and the example applications. The <em>main</em> start deploys {@code servlet-app}
 * and the JAX-RS example for this server side by side, configured once as an operator would,
 * through the environment; {@code @Nested} classes of the subclass check each application against
 * that one start (a start of WildFly or Payara Micro costs 10 to 60 s). Tests of bad
 * configurations start the server again, with one WAR each.
 *
 * <p>The operator's settings of the main start:
 * <ul>
 *   <li>{@code TOLLGATE_REDIS_URI}: the tests' Redis; {@code TOLLGATE_REDIS_KEY_PREFIX}: one of
 *       this class's own; {@code TOLLGATE_REDIS_TIMEOUT=2s};</li>
 *   <li>{@code TOLLGATE_POLICY_DEFAULT_LIMITS=3/s burst 6} (both applications say {@code 5/s burst 10});</li>
 *   <li>{@code TOLLGATE_POLICY_PER_ROUTE_LIMITS=4/min} and {@code TOLLGATE_POLICY_LOGIN_LIMITS=3/min}
 *       (the JAX-RS application says {@code 20/min} and {@code 5/min}; the servlet application has
 *       neither policy and ignores them).</li>
 * </ul>
 * Both applications read the same environment, so they share the key prefix and, for the same
 * client, the bucket of the {@code default} policy, as they would in production. The nested
 * classes run one after the other and each test starts with empty buckets.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ServerDiagnostics.class)
public abstract class ServerContract {

    static final String DEFAULT_LIMITS = "3/s burst 6";
    static final String PER_ROUTE_LIMITS = "4/min";
    static final String LOGIN_LIMITS = "3/min";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    protected final AppServer serverKind;
    /** The JAX-RS example as built for this server. */
    protected final App jaxrsApp;
    private RedisEndpoint redis;
    private ServerProcess server;
    /** The prefix given as TOLLGATE_REDIS_KEY_PREFIX. */
    private String envKeyPrefix;

    protected ServerContract(AppServer serverKind, App jaxrsApp) {
        this.serverKind = serverKind;
        this.jaxrsApp = jaxrsApp;
    }

    /**
     * Whether the operator of this server also passes {@code -Dtollgate.redis.key-prefix} (as in
     * {@code JAVA_OPTS}) next to the environment variable for the same key, in the main start: then
     * the system property must win.
     */
    protected boolean prefixAlsoAsSystemProperty() {
        return false;
    }

    /** The prefix passed as a system property in the main start; null when none is. */
    private String systemPropertyKeyPrefix;

    /** The prefix Tollgate must use for its Redis keys in the main start. */
    protected String expectedKeyPrefix() {
        return systemPropertyKeyPrefix != null ? systemPropertyKeyPrefix : envKeyPrefix;
    }

    /** The WARs of the main start; another WAR to test on this server goes here. */
    protected List<App> mainApps() {
        return List.of(App.SERVLET_APP, jaxrsApp);
    }

    @BeforeAll
    void startMainServer() {
        if (serverKind.java().isEmpty()) {
            // Not started: every test of this class is then skipped (below), one by one, so that the
            // build's counts show them as skipped.
            String why = serverKind.name() + ": SKIPPED, every test of this class: " + serverKind.whyNoJava();
            System.out.println("[servers-it] " + "*".repeat(20) + " " + why + " " + "*".repeat(20));
            System.err.println("[servers-it] WARNING: " + why);
            return;
        }
        System.out.println("[servers-it] " + serverKind.name() + ": java " + serverKind.java().get());
        redis = TestRedis.shared();
        envKeyPrefix = newKeyPrefix("env");
        List<App> apps = mainApps();
        Launch launch = launch("main", apps.get(0), envKeyPrefix)
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", DEFAULT_LIMITS)
                .env("TOLLGATE_POLICY_PER_ROUTE_LIMITS", PER_ROUTE_LIMITS)
                .env("TOLLGATE_POLICY_LOGIN_LIMITS", LOGIN_LIMITS);
        apps.subList(1, apps.size()).forEach(app -> launch.deploy(app.deployment()));
        if (prefixAlsoAsSystemProperty()) {
            systemPropertyKeyPrefix = newKeyPrefix("sysprop");
            launch.systemProperty("tollgate.redis.key-prefix", systemPropertyKeyPrefix);
        }
        server = launch.start();
        // The first request through each application (WildFly starts a filter only then); it takes a
        // token, which the nested classes give back by emptying the buckets before each test.
        for (App app : apps) {
            server.awaitStatus(app.deployment(), app.limitedPath(), 200, READY_TIMEOUT);
        }
    }

    /**
     * A server that needs a JDK this machine lacks (Java 25) is not started, and each of its tests,
     * those of the nested classes too, is reported as skipped, not passed.
     */
    @BeforeEach
    void assumeTheServersJavaIsHere() {
        Assumptions.assumeTrue(serverKind.java().isPresent(), () -> serverKind.name() + ": " + serverKind.whyNoJava());
    }

    /**
     * Jedis logs through SLF4J 1.7, bundled in each WAR; with a binding in the WAR (the examples
     * carry {@code slf4j-jdk14}) or the server's own SLF4J (WildFly), its log reaches the server's
     * log. Without either, SLF4J prints its "NOP" warning and drops Jedis' log.
     */
    @Test
    void jedisLogsReachTheServersLogNotSlf4jsNopFallback() {
        List<String> nop = new ArrayList<>();
        nop.addAll(server.logLines("org.slf4j.impl.StaticLoggerBinder"));
        nop.addAll(server.logLines("no-operation (NOP) logger"));
        nop.addAll(server.logLines("No SLF4J providers were found"));
        assertEquals(List.of(), nop, "SLF4J's fallback warnings in the log of " + server.title());
    }

    /** The server runs on the JVM this class chose for it (Java 25 for the Java 25 rows), not on the build's by accident. */
    @Test
    void theServerRunsOnTheJavaChosenForIt() throws IOException {
        Path expected = serverKind.java().orElseThrow().toRealPath();
        Optional<String> running = server.executable();
        Assumptions.assumeTrue(running.isPresent(), "this operating system does not tell a process's executable");
        assertEquals(expected, Path.of(running.get()).toRealPath(), "the executable of " + server.title());
    }

    @AfterAll
    void stopMainServer() {
        if (server != null) {
            server.close();
        }
    }

    /** The main start, with both applications. */
    ServerProcess server() {
        return server;
    }

    RedisEndpoint redis() {
        return redis;
    }

    String envKeyPrefix() {
        return envKeyPrefix;
    }

    /** A fresh key prefix for one server run: "wildfly-env-3f2a9c1e:". */
    protected String newKeyPrefix(String what) {
        return serverKind.id() + "-" + what + "-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    /** One WAR on this server with Redis and a key prefix set by the operator, for a start of its own. */
    protected Launch launch(String label, App app, String keyPrefix) {
        return Launch.of(serverKind, app.deployment(), label)
                .env("TOLLGATE_REDIS_URI", redis.uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", keyPrefix)
                // The default budget (100 ms) is for production; a loaded 2-core CI machine can miss it.
                .env("TOLLGATE_REDIS_TIMEOUT", "2s")
                // Each test starts from a full bucket by deleting the keys in Redis; a node's deny
                // cache would go on refusing until the Retry-After it remembers (its documented
                // trade-off), so these servers run without it.
                .env("TOLLGATE_DENY_CACHE", "false");
    }

    /** {@code servlet-app} alone, with {@code TOLLGATE_POLICY_DEFAULT_LIMITS=10/fortnight}. */
    protected ServerProcess startServletAppWithAnInvalidLimit() {
        return launch("bad-limits", App.SERVLET_APP, newKeyPrefix("bad"))
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", "10/fortnight")
                .start();
    }

    /**
     * The JAX-RS example alone, with an operator's
     * {@code TOLLGATE_POLICIES=default,login,exports,reports,partner,partner-stand-in} that leaves out
     * {@code per-route}, which {@code @RateLimited} on {@code UserResource#user} names
     * ({@code exports} and {@code reports} stay, for the CDI interceptor, which would otherwise fail
     * the deployment first, and so do the outbound example's two):
     * TOLLGATE-003, and no resource of the application may answer (not even those that name only
     * configured policies): every request gets {@code status}, 404 where the server did not start the
     * application, 500 where it runs it without its JAX-RS servlet. Then {@code serverSpecific}
     * checks how this server reports it.
     */
    protected void checkThatAnUnknownPolicyStopsTheJaxRsApp(int status, Consumer<ServerProcess> serverSpecific) {
        try (ServerProcess bad = launch("unknown-policy", jaxrsApp, newKeyPrefix("unknown"))
                .env("TOLLGATE_POLICIES", "default,login,exports,reports,partner,partner-stand-in")
                .start()) {
            List<String> answers = new ArrayList<>();
            for (String path : List.of("/api/hello", "/api/users/1", "/api/hello")) {
                HttpResponse<String> r = bad.get(path);
                answers.add("GET " + path + " " + r.statusCode());
                assertNotServed(r, "GET " + path);
                assertEquals(status, r.statusCode(), "GET " + path);
            }
            HttpResponse<String> login = bad.postForm(jaxrsApp.deployment(), "/api/login", "user=demo&password=demo");
            answers.add("POST /api/login " + login.statusCode());
            assertNotServed(login, "POST /api/login");
            assertEquals(status, login.statusCode(), "POST /api/login");
            System.out.println("[servers-it] " + bad.title() + ": with an unknown policy: " + answers);

            List<String> lines = bad.awaitLogLines("TOLLGATE-003", Duration.ofSeconds(10));
            assertFalse(lines.isEmpty(), "no TOLLGATE-003 in the log of " + bad.title());
            String expected = "TOLLGATE-003: @RateLimited on dev.tollgate.examples.jaxrs.UserResource#user names the"
                    + " policy 'per-route', which is not configured";
            assertTrue(lines.stream().anyMatch(l -> l.contains(expected)), () -> "no \"" + expected + "\" in " + lines);
            System.out.println("[servers-it] " + bad.title() + ": " + lines.size() + " TOLLGATE-003 line(s), the first: "
                    + lines.get(0).strip());
            serverSpecific.accept(bad);
        }
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

    /** Not served by the application: no context (404) or an error (5xx), never a 2xx, 401 or 429. */
    static void assertNotServed(HttpResponse<String> r, String what) {
        assertTrue(r.statusCode() == 404 || r.statusCode() >= 500,
                () -> what + " must not be served, got " + r.statusCode() + ": " + r.body());
        assertFalse(r.headers().firstValue("RateLimit").isPresent(), what + " carries a RateLimit header");
    }
}
