package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.adapter.Integration;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The JAX-RS integration on a real runtime (Jersey) in a real Tomcat, over a real Redis. */
@WithRedis
class TollgateFeatureIT {

    @Path("/users")
    public static class Users {
        @GET
        @Path("/{id}")
        @RateLimited("per-route")
        public String user(@PathParam("id") String id) {
            return "user " + id;
        }
    }

    @Path("/login")
    public static class Login {
        @POST
        @RateLimited("login")
        public String login() {
            return "welcome";
        }
    }

    @Path("/me")
    public static class Me {
        @GET
        @RateLimited({"per-user", "per-route"})
        public String me(@Context SecurityContext security) {
            return security.getUserPrincipal().getName();
        }
    }

    @Path("/multi")
    @RateLimited({"five", "one"})
    public static class Multi {
        @GET
        public String get() {
            return "multi";
        }

        @GET
        @Path("/own")
        @RateLimited("five")
        public String own() {
            return "own";
        }
    }

    @Path("/export")
    public static class Export {
        @GET
        @RateLimited(value = "five", cost = 3)
        public String export() {
            return "export";
        }
    }

    @Path("/open")
    public static class Open {
        @GET
        public String open() {
            return "open";
        }
    }

    /**
     * A JAX-RS authentication filter as applications write them: "Authorization: User <name>" sets
     * the principal; a login without the right password is rejected with 401.
     */
    @Priority(Priorities.AUTHENTICATION)
    public static class DemoAuthentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            if (request.getUriInfo().getPath().contains("login")) {
                if (!"secret".equals(request.getHeaderString("X-Password"))) {
                    request.abortWith(Response.status(401).build());
                }
                return;
            }
            String auth = request.getHeaderString("Authorization");
            if (auth != null && auth.startsWith("User ")) {
                String name = auth.substring(5);
                request.setSecurityContext(new SecurityContext() {
                    public Principal getUserPrincipal() {
                        return () -> name;
                    }

                    public boolean isUserInRole(String role) {
                        return false;
                    }

                    public boolean isSecure() {
                        return false;
                    }

                    public String getAuthenticationScheme() {
                        return "User";
                    }
                });
            }
        }
    }

    static ResourceConfig app(RedisEndpoint redis, Map<String, String> extra) {
        ResourceConfig rc = new ResourceConfig(Users.class, Login.class, Me.class, Multi.class, Open.class, Export.class,
                DemoAuthentication.class, TollgateFeature.class);
        rc.property("tollgate.redis.uri", redis.uri());
        rc.property("tollgate.redis.timeout", "2s");
        rc.property("tollgate.redis.key-prefix", "jaxrs-" + UUID.randomUUID() + ":");
        rc.property("tollgate.policies", "per-route,login,per-user,five,one,default");
        rc.property("tollgate.policy.per-route.limits", "2/min");
        rc.property("tollgate.policy.per-route.key", "ip+route");
        rc.property("tollgate.policy.login.limits", "3/min");
        rc.property("tollgate.policy.per-user.limits", "2/min");
        rc.property("tollgate.policy.per-user.key", "principal");
        rc.property("tollgate.policy.five.limits", "5/min");
        rc.property("tollgate.policy.one.limits", "1/min");
        rc.property("tollgate.policy.default.limits", "2/min");
        rc.property("tollgate.policy.default.match", "/open/**");
        extra.forEach(rc::property);
        return rc;
    }

    @Test
    void theRouteTemplateNotTheRawPathIsTheKey(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of()))) {
            HttpResponse<String> first = t.get("/api/users/1");
            assertEquals("user 1", first.body());
            assertEquals("\"per-route\";q=2;w=60", first.headers().firstValue("RateLimit-Policy").orElseThrow());
            assertEquals("\"per-route\";r=1;t=30", first.headers().firstValue("RateLimit").orElseThrow());
            assertEquals(200, t.get("/api/users/2").statusCode());
            HttpResponse<String> third = t.get("/api/users/3");
            assertEquals(429, third.statusCode(), "/users/1, /users/2 and /users/3 share the bucket of /users/{id}");
            assertEquals("30", third.headers().firstValue("Retry-After").orElseThrow());
            assertTrue(third.headers().firstValue("Content-Type").orElseThrow().startsWith("application/problem+json"));
            assertTrue(third.body().contains("\"violated-policies\":[\"per-route\"]"), third.body());
        }
    }

    @Test
    void anAddressPolicyOnLoginCountsTheAttemptsAuthenticationRejects(RedisEndpoint redis) throws Exception {
        List<String> logged = captureLogs();
        // the whole key in the log, which only tollgate.log.client-keys=clear shows
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of("tollgate.log.client-keys", "clear")))) {
            assertEquals(401, t.send("POST", "/api/login").statusCode());
            assertEquals(401, t.send("POST", "/api/login", "X-Password", "guess").statusCode());
            assertEquals(401, t.send("POST", "/api/login", "X-Password", "guess2").statusCode());
            HttpResponse<String> blocked = t.send("POST", "/api/login", "X-Password", "secret");
            assertEquals(429, blocked.statusCode(), "the fourth attempt is refused before the password is checked");
        } finally {
            stopCapturing();
        }
        assertTrue(logged.stream().anyMatch(m -> m.contains("policy 'login' refuses client ip=127.0.0.1 ")),
                "the key is the peer's address: " + logged);
    }

    @Test
    void aPrincipalPolicySeesTheUserAnAuthenticationFilterSet(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of("tollgate.policy.per-route.limits", "100/min")))) {
            HttpResponse<String> alice = t.get("/api/me", "Authorization", "User alice");
            assertEquals("alice", alice.body());
            assertEquals(2, alice.headers().allValues("RateLimit").size(), "one field line per phase");
            assertTrue(alice.headers().allValues("RateLimit").contains("\"per-user\";r=1;t=30"), alice.headers().map().toString());
            assertEquals(200, t.get("/api/me", "Authorization", "User alice").statusCode());
            assertEquals(429, t.get("/api/me", "Authorization", "User alice").statusCode());
            assertEquals(200, t.get("/api/me", "Authorization", "User bob").statusCode(), "bob has a bucket of his own");
        }
    }

    @Test
    void aClassAnnotationAppliesToEveryMethodUnlessTheMethodHasItsOwn(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of()))) {
            HttpResponse<String> first = t.get("/api/multi");
            assertEquals("\"five\";q=5;w=60, \"one\";q=1;w=60", first.headers().firstValue("RateLimit-Policy").orElseThrow());
            HttpResponse<String> second = t.get("/api/multi");
            assertEquals(429, second.statusCode());
            assertTrue(second.body().contains("\"violated-policies\":[\"one\"]"), second.body());
            assertEquals("\"five\";q=5;w=60", t.get("/api/multi/own").headers().firstValue("RateLimit-Policy").orElseThrow());
        }
    }

    @Test
    void anAnnotationMayChargeMoreThanOneToken(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of()))) {
            assertEquals("\"five\";r=2;t=12", t.get("/api/export").headers().firstValue("RateLimit").orElseThrow());
            assertEquals(429, t.get("/api/export").statusCode(), "3 more do not fit in the 2 left");
        }
    }

    @Test
    void unannotatedResourcesAreLimitedOnlyInGlobalMode(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of()))) {
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> r = t.get("/api/open");
                assertEquals(200, r.statusCode());
                assertFalse(r.headers().firstValue("RateLimit").isPresent());
            }
        }
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of("tollgate.jaxrs.global", "true")))) {
            assertEquals("\"default\";q=2;w=60", t.get("/api/open").headers().firstValue("RateLimit-Policy").orElseThrow());
            assertEquals(200, t.get("/api/open").statusCode());
            assertEquals(429, t.get("/api/open").statusCode());
            assertEquals("\"per-route\";q=2;w=60", t.get("/api/users/9").headers().firstValue("RateLimit-Policy").orElseThrow(),
                    "an annotated method keeps its own policies in global mode");
        }
    }

    /**
     * What a servlet filter of the same application reads ({@code Integration.namedInCode}): a
     * policy a resource names and that has no {@code match} of its own applies only there.
     */
    @Test
    void thePoliciesResourcesNameAreDeclaredForTheApplicationUntilItStops(RedisEndpoint redis) throws Exception {
        ClassLoader application;
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of()))) {
            assertEquals(200, t.get("/api/open").statusCode(), "Tomcat starts the runtime before its first request");
            application = t.context.getServletContext().getClassLoader();
            assertEquals(Set.of("per-route", "login", "per-user", "five", "one"), Integration.namedInCode(application));
        }
        assertEquals(Set.of(), Integration.namedInCode(application), "withdrawn when the runtime destroys the feature");
    }

    @Test
    void anUnknownPolicyNameStopsTheApplication(RedisEndpoint redis) throws Exception {
        List<String> logged = captureLogs();
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of("tollgate.policies", "login,per-user,five,one,default")))) {
            assertEquals(500, t.get("/api/users/1").statusCode(), "the JAX-RS application never starts");
            assertEquals(500, t.get("/api/open").statusCode());
        } finally {
            stopCapturing();
        }
        assertTrue(logged.stream().anyMatch(m -> m.startsWith("TOLLGATE-003: @RateLimited on " + Users.class.getName()
                + "#user names the policy 'per-route'")), logged.toString());
        assertTrue(dev.tollgate.RateLimiter.live().stream().noneMatch(l -> l.health().limiter().endsWith("jaxrs")),
                "the failed deployment's limiter was closed, its Redis connections with it");
    }

    /** The system properties a test set for a reload (they win over the application's properties). */
    private final List<String> reloaded = new java.util.ArrayList<>();

    /** Sets these system properties ({@code null}: clears it) and reloads the feature's limiter. */
    private void reload(JerseyOnTomcat t, String... keysAndValues) throws Exception {
        dev.tollgate.RateLimiter limiter = limiter(t);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            reloaded.add(keysAndValues[i]);
            if (keysAndValues[i + 1] == null) {
                System.clearProperty(keysAndValues[i]);
            } else {
                System.setProperty(keysAndValues[i], keysAndValues[i + 1]);
            }
        }
        assertTrue(limiter.reload(), "the configuration changed");
    }

    /** The feature's limiter; Jersey deploys the application at its first request. */
    private static dev.tollgate.RateLimiter limiter(JerseyOnTomcat t) throws Exception {
        if (t.context.getServletContext().getAttribute(TollgateFeature.LIMITER_ATTRIBUTE) == null) {
            t.get("/api/open");
        }
        return (dev.tollgate.RateLimiter) t.context.getServletContext().getAttribute(TollgateFeature.LIMITER_ATTRIBUTE);
    }

    @AfterEach
    void clearReloadedProperties() {
        reloaded.forEach(System::clearProperty);
    }

    /** Four failed logins (the authentication filter answers 401 when the password is wrong). */
    private static List<Integer> fourFailedLogins(JerseyOnTomcat t) throws Exception {
        List<Integer> statuses = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            statuses.add(t.send("POST", "/api/login", "X-Password", "guess" + i).statusCode());
        }
        return statuses;
    }

    @Test
    void aReloadThatKeysALoginPolicyByAddressMovesItBeforeAuthentication(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of("tollgate.policy.login.key", "principal")))) {
            assertEquals(List.of(401, 401, 401, 401), fourFailedLogins(t),
                    "keyed by principal, the policy is decided after authentication: failed logins do not count");
            reload(t, "tollgate.policy.login.key", "ip");
            assertEquals(List.of(401, 401, 401, 429), fourFailedLogins(t),
                    "keyed by address after the reload, it is decided before authentication: failed logins count");
        }
    }

    @Test
    void aReloadThatKeysALoginPolicyByPrincipalMovesItAfterAuthentication(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of()))) {
            reload(t, "tollgate.policy.login.key", "principal");
            assertEquals(List.of(401, 401, 401, 401), fourFailedLogins(t),
                    "keyed by principal after the reload: decided after authentication, failed logins do not count");
            HttpResponse<String> passed = t.send("POST", "/api/login", "X-Password", "secret");
            assertEquals(200, passed.statusCode());
            assertTrue(passed.headers().firstValue("RateLimit").orElse("(none)").startsWith("\"login\";r=2;"),
                    "a login that passes authentication counts: " + passed.headers().map());
            reload(t, "tollgate.policy.login.key", null);
            // the login that passed had no principal, so it was keyed by its address: one of the three is gone
            assertEquals(List.of(401, 401, 429, 429), fourFailedLogins(t), "keyed by address again: failed logins count again");
        }
    }

    @Test
    void enabledFollowsTheReloadedConfigurationBothWays(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of("tollgate.enabled", "false")))) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> r = t.get("/api/multi");
                assertEquals(200, r.statusCode(), "off at deployment");
                assertFalse(r.headers().firstValue("RateLimit").isPresent());
            }
            reload(t, "tollgate.enabled", "true");
            assertEquals("\"five\";q=5;w=60, \"one\";q=1;w=60",
                    t.get("/api/multi").headers().firstValue("RateLimit-Policy").orElse("(none)"), "turned on by a reload");
            assertEquals(429, t.get("/api/multi").statusCode(), "limited once turned on");
            reload(t, "tollgate.enabled", "false");
            HttpResponse<String> off = t.get("/api/multi");
            assertEquals(200, off.statusCode(), "turned off again");
            assertFalse(off.headers().firstValue("RateLimit").isPresent());
            reload(t, "tollgate.enabled", "true");
            assertEquals(429, t.get("/api/multi").statusCode(), "on again, the bucket as it was");
        }
    }

    @Test
    void globalModeFollowsTheReloadedConfiguration(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, Map.of()))) {
            assertFalse(t.get("/api/open").headers().firstValue("RateLimit").isPresent(), "not global at deployment");
            reload(t, "tollgate.jaxrs.global", "true");
            assertEquals("\"default\";q=2;w=60", t.get("/api/open").headers().firstValue("RateLimit-Policy").orElse("(none)"));
            assertEquals(200, t.get("/api/open").statusCode());
            assertEquals(429, t.get("/api/open").statusCode());
            reload(t, "tollgate.jaxrs.global", "false");
            assertEquals(200, t.get("/api/open").statusCode(), "unannotated resources are free again");
        }
    }

    private Handler capture;
    /** Held strongly: JUL forgets an unreferenced logger, handlers and all. */
    private static final Logger TOLLGATE_LOG = Logger.getLogger("dev.tollgate");

    /** Collects what Tollgate logs (messages formatted) until {@link #stopCapturing()}. */
    private List<String> captureLogs() {
        List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        capture = new Handler() {
            public void publish(LogRecord r) {
                logged.add(r.getMessage());
            }

            public void flush() {
            }

            public void close() {
            }
        };
        TOLLGATE_LOG.addHandler(capture);
        return logged;
    }

    private void stopCapturing() {
        TOLLGATE_LOG.removeHandler(capture);
    }
}
