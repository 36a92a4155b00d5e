package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Decision;
import dev.tollgate.RateLimiter;
import dev.tollgate.cdi.RateLimitExceededException;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * A refusal of a CDI method, turned into a response by {@link RateLimitExceededMapper}, reads as
 * the filters' refusal of a resource under the same policy: status, header fields, media type and
 * problem body (numbers aside: two refusals a moment apart may differ by a second). Jersey in
 * Tomcat over Redis; the service's refusal is made from the application's limiter, as the CDI
 * interceptor makes it (no CDI container here: Weld SE runs it in filter-core's {@code CdiInterceptorIT}).
 * Also: the JAX-RS filter lists the policies it decided in a servlet request attribute, which the
 * interceptor reads to count a call keyed by the same request once.
 */
@WithRedis
class RateLimitExceededMapperIT {

    @Path("/filtered")
    public static class Filtered {
        @GET
        @RateLimited("exports")
        public String get() {
            return "filtered";
        }
    }

    @Path("/service")
    public static class Service {
        @Context
        ServletContext context;

        @GET
        public String get() {
            RateLimiter rl = (RateLimiter) context.getAttribute(TollgateFeature.LIMITER_ATTRIBUTE);
            var policies = List.of(rl.config().policy("exports").orElseThrow());
            Decision d = rl.check(TestRequest.get("/service").from("192.0.2.9"), policies, 0);
            if (!d.allowed()) {
                throw new RateLimitExceededException(d, rl.answer(d), "Service#get");
            }
            return "served";
        }
    }

    /** What the CDI interceptor reads to count a request-keyed call once: the policies the filter decided. */
    @Path("/decided")
    public static class Decided {
        @Context
        jakarta.servlet.http.HttpServletRequest request;

        @GET
        @RateLimited("shown")
        public String get() {
            return String.valueOf(request.getAttribute(dev.tollgate.adapter.Integration.DECIDED_ATTRIBUTE));
        }
    }

    @Test
    void theFilterListsThePoliciesItDecidedInAServletRequestAttribute(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat server = new JerseyOnTomcat(app(redis))) {
            HttpResponse<String> r = server.get("/api/decided");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("[shown]", r.body());
        }
    }

    static ResourceConfig app(RedisEndpoint redis) {
        ResourceConfig rc = new ResourceConfig(Filtered.class, Service.class, Decided.class, TollgateFeature.class,
                RateLimitExceededMapper.class);
        rc.property("tollgate.redis.uri", redis.uri());
        rc.property("tollgate.redis.key-prefix", "mapper-" + UUID.randomUUID() + ":");
        rc.property("tollgate.policies", "exports,shown");
        rc.property("tollgate.policy.exports.limits", "1/h");
        rc.property("tollgate.policy.shown.limits", "10/s");
        rc.property("tollgate.headers", "both");
        rc.property("tollgate.jmx", "false");
        return rc;
    }

    @Test
    void theMappersAnswerIsTheFiltersAnswer(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat server = new JerseyOnTomcat(app(redis))) {
            assertEquals(200, server.get("/api/filtered").statusCode());
            HttpResponse<String> filters = server.get("/api/filtered");
            assertEquals(200, server.get("/api/service").statusCode());
            HttpResponse<String> mapper = server.get("/api/service");

            assertEquals(429, filters.statusCode());
            assertEquals(filters.statusCode(), mapper.statusCode());
            assertEquals(fields(filters), fields(mapper));
            assertEquals(filters.body().replaceAll("[0-9]+", "N"), mapper.body().replaceAll("[0-9]+", "N"));
            assertTrue(mapper.body().contains("exports"), mapper.body());
            long filtersRetry = Long.parseLong(filters.headers().firstValue("Retry-After").orElseThrow());
            long mapperRetry = Long.parseLong(mapper.headers().firstValue("Retry-After").orElseThrow());
            assertTrue(Math.abs(filtersRetry - mapperRetry) <= 1, filtersRetry + " vs " + mapperRetry);
        }
    }

    /** The Tollgate and content fields of a response, numbers aside. */
    static Map<String, String> fields(HttpResponse<String> r) {
        Map<String, String> out = new TreeMap<>();
        r.headers().map().forEach((name, values) -> {
            String n = name.toLowerCase(java.util.Locale.ROOT);
            if (n.startsWith("ratelimit") || n.startsWith("x-ratelimit") || n.equals("retry-after") || n.equals("content-type")) {
                out.put(n, String.join(",", values).replaceAll("[0-9]+", "N"));
            }
        });
        return out;
    }
}
