package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * A JAX-RS resource under a concurrency limit of one (Jersey in Tomcat, real Redis): its slot comes
 * back when the response is done, whether the resource returned, threw a
 * {@code WebApplicationException}, threw an exception a mapper turned into a response, or threw one
 * no mapper handles (Jersey answers 500 and still runs the response filters). With one
 * slot and a 60 s lease, the next request passes only if the slot came back.
 */
@WithRedis
class ConcurrencyIT {

    /** An application's own mapped exception. */
    public static final class Mapped extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    public static final class MappedMapper implements ExceptionMapper<Mapped> {
        @Override
        public Response toResponse(Mapped e) {
            return Response.status(409).entity("mapped").build();
        }
    }

    @Path("/work")
    public static class Work {
        @GET
        @RateLimited("one-at-a-time")
        public String work(@QueryParam("end") String end) {
            switch (end == null ? "" : end) {
                case "wae" -> throw new WebApplicationException(503);
                case "mapped" -> throw new Mapped();
                case "boom" -> throw new IllegalStateException("unmapped");
                default -> {
                    return "done";
                }
            }
        }
    }

    static ResourceConfig app(RedisEndpoint redis) {
        ResourceConfig rc = new ResourceConfig(Work.class, MappedMapper.class, TollgateFeature.class);
        rc.property("tollgate.redis.uri", redis.uri());
        rc.property("tollgate.redis.timeout", "2s");
        rc.property("tollgate.redis.key-prefix", "jaxrs-" + UUID.randomUUID() + ":");
        rc.property("tollgate.policies", "one-at-a-time");
        rc.property("tollgate.policy.one-at-a-time.concurrency", "1");
        rc.property("tollgate.policy.one-at-a-time.concurrency-lease", "60s");
        return rc;
    }

    @Test
    void aResourceGivesItsSlotBackOnSuccessAndOnExceptions(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis))) {
            String[][] cases = {{"ok", "200"}, {"wae", "503"}, {"mapped", "409"}, {"ok", "200"}, {"mapped", "409"}, {"boom", "500"}};
            for (String[] c : cases) {
                HttpResponse<String> r = t.get("/api/work?end=" + c[0]);
                assertEquals(Integer.parseInt(c[1]), r.statusCode(), c[0] + ": " + r.body());
            }
            assertEquals(200, t.get("/api/work").statusCode(), "the slot came back every time");
        }
    }

    @Test
    void aSecondRequestWhileOneRunsIsRefusedAsAConcurrencyLimit(RedisEndpoint redis) throws Exception {
        // the slot of a request that never completes: taken through the same store, never released
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis))) {
            assertEquals(200, t.get("/api/work").statusCode());
            var limiter = (dev.tollgate.RateLimiter) t.context.getServletContext().getAttribute(TollgateFeature.LIMITER_ATTRIBUTE);
            var policy = limiter.config().policy("one-at-a-time").orElseThrow();
            var held = limiter.check(dev.tollgate.testing.TestRequest.get("/work").from("127.0.0.1"),
                    java.util.List.of(policy));
            assertTrue(held.permit().held());
            HttpResponse<String> refused = t.get("/api/work");
            assertEquals(429, refused.statusCode());
            assertTrue(refused.body().contains("Concurrency limit of policy 'one-at-a-time'"), refused.body());
            assertTrue(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow()) >= 1);
            held.permit().release();
            assertEquals(200, t.get("/api/work").statusCode());
        }
    }
}
