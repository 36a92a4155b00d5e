package dev.tollgate.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The interceptor in a real CDI container (Weld SE, the CDI of WildFly and Payara) over a real
 * Redis: the extension adds it, the beans' annotations bind it, the service's refusals come as
 * exceptions, slots come back, an unknown policy stops the deployment. There is no HTTP request in
 * Weld SE, so calls without a key argument follow the no-request rule. The configuration comes
 * from system properties (Weld SE has no MicroProfile Config here), set for each test and removed.
 */
@WithRedis
class CdiInterceptorIT {

    @ApplicationScoped
    public static class Reports {
        @RateLimited("tenant-exports")
        public String export(@RateLimitKey String tenant) {
            return "report of " + tenant;
        }

        @RateLimited("job")
        public String nightly() {
            return "done";
        }

        @RateLimited("slots")
        public String failing(@RateLimitKey String tenant) {
            throw new IllegalStateException("the method's own failure, for " + tenant);
        }

        @RateLimited("slots")
        public CompletionStage<String> later(@RateLimitKey String tenant, CompletableFuture<String> result) {
            return result;
        }
    }

    /** A class annotation, and a method whose own annotation replaces it. */
    @ApplicationScoped
    @RateLimited("tenant-exports")
    public static class Archive {
        public String fetch(@RateLimitKey String tenant) {
            return "archive of " + tenant;
        }

        @RateLimited("job")
        public String sweep() {
            return "swept";
        }
    }

    @ApplicationScoped
    public static class Misnamed {
        @RateLimited("no-such-policy")
        public void run() {
        }
    }

    final Map<String, String> properties = new HashMap<>();
    String prefix;

    @BeforeEach
    void configure(RedisEndpoint redis) {
        prefix = "cdi-" + UUID.randomUUID() + ":";
        properties.putAll(Map.of(
                "tollgate.redis.uri", redis.uri(),
                "tollgate.redis.key-prefix", prefix,
                "tollgate.metrics", "none",
                "tollgate.jmx", "false",
                "tollgate.policies", "tenant-exports,job,slots",
                "tollgate.policy.tenant-exports.limits", "3/h burst 3",
                "tollgate.policy.job.limits", "2/h burst 2",
                "tollgate.policy.slots.concurrency", "1",
                "tollgate.policy.slots.concurrency-lease", "10min"));
        properties.forEach(System::setProperty);
    }

    @AfterEach
    void clear() {
        properties.keySet().forEach(System::clearProperty);
    }

    /**
     * A container with the test's beans and Tollgate's interceptor extension, as the service file
     * names it ({@link #theServiceFileNamesTheExtension}). Without discovery: Weld SE would find the
     * metrics extension too, which needs a MicroProfile Metrics implementation this class path lacks.
     * That the interceptor is there once where the jar is also scanned is servers-it's to show.
     */
    static WeldContainer start(Class<?>... beans) {
        return new Weld("tollgate-" + UUID.randomUUID()).disableDiscovery().addExtension(new RateLimitExtension())
                .addBeanClasses(beans).initialize();
    }

    @Test
    void theServiceFileNamesTheExtension() {
        boolean found = false;
        for (var e : java.util.ServiceLoader.load(jakarta.enterprise.inject.spi.Extension.class)) {
            found |= e instanceof RateLimitExtension;
        }
        assertTrue(found);
    }

    @Test
    void callsOfOneTenantAreLimitedInRedisAndAnotherTenantStillPasses(RedisEndpoint redis) {
        try (WeldContainer cdi = start(Reports.class)) {
            Reports reports = cdi.select(Reports.class).get();
            for (int i = 0; i < 3; i++) {
                assertEquals("report of acme", reports.export("acme"));
            }
            RateLimitExceededException e = assertThrows(RateLimitExceededException.class, () -> reports.export("acme"));
            assertEquals(429, e.answer().status());
            assertEquals(List.of("tenant-exports"), e.policies());
            assertEquals(Decision.Source.REDIS, e.decision().source());
            assertTrue(e.retryAfterSeconds() > 0);
            assertEquals("report of globex", reports.export("globex"));
            // no container names this application: the default namespace, as a filter of it would have
            assertTrue(redis.command("EXISTS", prefix + "default:{arg=acme}:tenant-exports").contains("1"),
                    "the tenant's bucket, in the filters' key format");
        }
    }

    @Test
    void withoutARequestOrAKeyEveryCallerOfTheMethodSharesOneBucket() {
        try (WeldContainer cdi = start(Reports.class)) {
            Reports reports = cdi.select(Reports.class).get();
            assertEquals("done", reports.nightly());
            assertEquals("done", reports.nightly());
            RateLimitExceededException e = assertThrows(RateLimitExceededException.class, reports::nightly);
            assertTrue(e.decision().denying().get(0).clientKey().startsWith("method="), e.decision().toString());
        }
    }

    @Test
    void aMethodAnnotationReplacesTheClassAnnotation() {
        try (WeldContainer cdi = start(Archive.class)) {
            Archive archive = cdi.select(Archive.class).get();
            for (int i = 0; i < 3; i++) {
                archive.fetch("acme");
            }
            assertThrows(RateLimitExceededException.class, () -> archive.fetch("acme"));
            archive.sweep();
            archive.sweep();
            RateLimitExceededException e = assertThrows(RateLimitExceededException.class, archive::sweep);
            assertEquals(List.of("job"), e.policies(), "counted under the method's policy only");
        }
    }

    @Test
    void aSlotComesBackWhenTheCallThrowsAndWhenItsStageCompletes() {
        try (WeldContainer cdi = start(Reports.class)) {
            Reports reports = cdi.select(Reports.class).get();
            for (int i = 0; i < 3; i++) {
                // the method's own exception each time, never a refusal: the slot came back
                assertThrows(IllegalStateException.class, () -> reports.failing("acme"));
            }
            CompletableFuture<String> pending = new CompletableFuture<>();
            reports.later("acme", pending);
            RateLimitExceededException held = assertThrows(RateLimitExceededException.class,
                    () -> reports.later("acme", new CompletableFuture<>()));
            assertEquals(429, held.answer().status(), "the slot is held until the stage completes");
            pending.complete("ok");
            CompletableFuture<String> next = new CompletableFuture<>();
            reports.later("acme", next);
            next.complete("ok");
        }
    }

    @Test
    void theContainerClosesTheLimiterItMade() {
        RateLimiter made;
        try (WeldContainer cdi = start(Reports.class)) {
            cdi.select(Reports.class).get().export("initech");
            made = RateLimiter.live().stream().filter(l -> l.health().limiter().equals("cdi")).findFirst().orElseThrow();
        }
        assertFalse(RateLimiter.live().contains(made), "closed at shutdown");
    }

    @Test
    void anUnknownPolicyFailsTheDeploymentNamingMethodAndPolicy() {
        Exception e = assertThrows(Exception.class, () -> start(Misnamed.class).close());
        String message = String.valueOf(e.getMessage()) + (e.getCause() == null ? "" : e.getCause().getMessage());
        assertTrue(message.contains("TOLLGATE-003"), message);
        assertTrue(message.contains(Misnamed.class.getName() + "#run"), message);
        assertTrue(message.contains("no-such-policy"), message);
    }

    /** What the limiter would refuse when it opens (here colliding compact key tags) fails the deployment too. */
    @Test
    void whatTheEngineRefusesAtOpenFailsTheDeployment() {
        Map<String, String> collide = Map.of("tollgate.redis.key-format", "compact", "tollgate.plans", "tier116,free",
                "tollgate.plan.default", "free", "tollgate.plan.tier116.role", "gold", "tollgate.plan.free.role", "user",
                "tollgate.policies", "api,tenant-exports,job,slots", "tollgate.policy.api.limits", "10/s",
                "tollgate.policy.api.limits.tier116", "100/s");
        properties.putAll(collide);
        collide.forEach(System::setProperty);
        Exception e = assertThrows(Exception.class, () -> start(Reports.class).close());
        String message = String.valueOf(e.getMessage()) + (e.getCause() == null ? "" : e.getCause().getMessage());
        assertTrue(message.contains("TOLLGATE-001: buckets 'api' and 'api@tier116' hash to the same compact key tag"), message);
    }

    @Test
    void aCostAboveTheBurstFailsTheDeployment() {
        System.setProperty("tollgate.policy.job.limits", "2/h burst 1");
        properties.put("tollgate.policy.job.limits", "2/h burst 1");
        System.setProperty("tollgate.policy.tenant-exports.limits", "3/h burst 2");
        Exception e = assertThrows(Exception.class, () -> start(CostlyBean.class).close());
        String message = String.valueOf(e.getMessage()) + (e.getCause() == null ? "" : e.getCause().getMessage());
        assertTrue(message.contains(CostlyBean.class.getName() + "#bulk"), message);
        assertTrue(message.contains("burst is 2"), message);
    }

    @ApplicationScoped
    public static class CostlyBean {
        @RateLimited(value = "tenant-exports", cost = 5)
        public void bulk(@RateLimitKey String tenant) {
        }
    }
}
