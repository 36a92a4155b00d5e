package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Integration;
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
