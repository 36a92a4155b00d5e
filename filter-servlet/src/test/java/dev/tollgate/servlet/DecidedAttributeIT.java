package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.adapter.Integration;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Map;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * The filter lists the policies it decided for a request in {@link Integration#DECIDED_ATTRIBUTE},
 * which the CDI interceptor reads so that a call keyed by the same request is not counted twice.
 * A real Tomcat over a real Redis.
 */
@WithRedis
class DecidedAttributeIT {

    @Test
    void theApplicationSeesThePoliciesTheFilterDecided(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), TollgateFilterIT.params(redis,
                "tollgate.policies", "api,other", "tollgate.policy.api.limits", "10/s",
                "tollgate.policy.other.limits", "10/s", "tollgate.policy.other.match", "/elsewhere/**"), Map.of(), c -> {
                    Tomcat.addServlet(c, "decided", new HttpServlet() {
                        private static final long serialVersionUID = 1L;

                        @Override
                        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                            resp.getWriter().write(String.valueOf(req.getAttribute(Integration.DECIDED_ATTRIBUTE)));
                        }
                    });
                    c.addServletMappingDecoded("/api/decided", "decided");
                })) {
            HttpResponse<String> r = t.get("/api/decided");
            assertEquals(200, r.statusCode());
            assertEquals("[api]", r.body(), "the policy that covered the request, not the one that did not");
        }
    }
}
