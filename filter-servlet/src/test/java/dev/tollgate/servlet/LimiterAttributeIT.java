package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.Health;
import dev.tollgate.RateLimiter;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * The route docs/operations.md ("Health") gives application code to the limiter of a filter the
 * container made: the {@code ServletContext} attribute {@link TollgateFilter#LIMITER_ATTRIBUTE},
 * read by a servlet of the application in a real Tomcat, over a real Redis.
 */
@WithRedis
class LimiterAttributeIT {

    @Test
    void aServletOfTheApplicationReachesTheFiltersLimiterAndItsHealth(RedisEndpoint redis) throws Exception {
        AtomicReference<ServletContext> context = new AtomicReference<>();
        TollgateFilter filter = new TollgateFilter();
        try (EmbeddedTomcat t = new EmbeddedTomcat(filter,
                TollgateFilterIT.params(redis, "tollgate.policy.default.limits", "10/s"), java.util.Map.of(), c -> {
                    Tomcat.addServlet(c, "health", new HttpServlet() {
                        private static final long serialVersionUID = 1L;

                        @Override
                        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                            context.set(getServletContext());
                            RateLimiter limiter = (RateLimiter) getServletContext().getAttribute(TollgateFilter.LIMITER_ATTRIBUTE);
                            Health h = limiter.health();
                            resp.setStatus(h.ready() ? 200 : 503);
                            resp.getWriter().write(h.store() + " " + h.circuit() + " " + h.redisCalls());
                        }
                    });
                    c.addServletMappingDecoded("/health", "health");
                })) {
            assertEquals(200, t.get("/api/hello").statusCode());
            HttpResponse<String> health = t.get("/health");
            assertEquals(200, health.statusCode());
            assertTrue(health.body().matches("redis closed [1-9][0-9]*"), health.body());
            ServletContext ctx = context.get();
            assertSame(filter.limiter(), ctx.getAttribute(TollgateFilter.LIMITER_ATTRIBUTE));
            assertSame(filter.limiter(), ctx.getAttribute(TollgateFilter.LIMITER_ATTRIBUTE + ".tollgate"), "under the filter's name too");
            assertEquals("dev.tollgate.RateLimiter", TollgateFilter.LIMITER_ATTRIBUTE, "the name docs/operations.md gives");

            filter.destroy();
            assertNull(ctx.getAttribute(TollgateFilter.LIMITER_ATTRIBUTE), "a destroyed filter's limiter is withdrawn");
            assertNull(ctx.getAttribute(TollgateFilter.LIMITER_ATTRIBUTE + ".tollgate"));
        }
    }
}
