package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.Retry;
import dev.tollgate.testing.WithRedis;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.Test;

/**
 * A request is decided once: with the filter mapped for the {@code REQUEST}, {@code ASYNC} and
 * {@code FORWARD} dispatcher types in a real Tomcat over a real Redis, an async servlet that
 * dispatches its request again, and a servlet that forwards it, take one token and one slot per
 * request, and the slot comes back when the response is done.
 */
@WithRedis
class RedispatchIT {

    /** An async servlet that dispatches its request back to itself, and a servlet that forwards to {@code /api/hello}. */
    private static void addServlets(Context c) {
        Wrapper w = Tomcat.addServlet(c, "redispatch", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                if (req.getDispatcherType() == DispatcherType.ASYNC) {
                    resp.getWriter().write("dispatched");
                } else {
                    req.startAsync().dispatch();
                }
            }
        });
        w.setAsyncSupported(true);
        c.addServletMappingDecoded("/api/redispatch", "redispatch");
        Tomcat.addServlet(c, "forward", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException, jakarta.servlet.ServletException {
                req.getRequestDispatcher("/api/hello").forward(req, resp);
            }
        });
        c.addServletMappingDecoded("/api/forward", "forward");
        for (FilterMap m : c.findFilterMaps()) {
            // the mapping of a filter that is also applied to re-dispatches of a request
            m.setDispatcher(DispatcherType.REQUEST.name());
            m.setDispatcher(DispatcherType.ASYNC.name());
            m.setDispatcher(DispatcherType.FORWARD.name());
        }
    }

    /** The remaining tokens of the {@code default} policy, from the {@code RateLimit} field. */
    private static int remaining(HttpResponse<String> r) {
        String field = r.headers().firstValue("RateLimit").orElseThrow();
        return Integer.parseInt(field.replaceAll(".*;r=(\\d+).*", "$1"));
    }

    @Test
    void aRedispatchedRequestTakesOneTokenAndOneSlot(RedisEndpoint redis) throws Exception {
        // one slot: a second check of the same request would find its own slot taken and refuse it
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), TollgateFilterIT.params(redis,
                "tollgate.policy.default.limits", "10/h", "tollgate.policy.default.concurrency", "1",
                "tollgate.policy.default.concurrency-lease", "60s"), Map.of(), RedispatchIT::addServlets)) {
            int before = remaining(t.get("/api/hello"));
            for (String path : new String[] {"/api/redispatch", "/api/forward"}) {
                // the slot of the previous request may come back just after its response was sent
                HttpResponse<String> r = Retry.until(Duration.ofSeconds(5), () -> {
                    try {
                        HttpResponse<String> answer = t.get(path);
                        if (answer.statusCode() != 200) {
                            throw new IllegalStateException(path + ": " + answer.statusCode() + " " + answer.body());
                        }
                        return answer;
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertEquals(path.equals("/api/redispatch") ? "dispatched" : "hello", r.body());
                assertEquals(1, r.headers().allValues("RateLimit").size(), path + ": the headers of one decision");
            }
            int after = Retry.until(Duration.ofSeconds(5), () -> {
                try {
                    HttpResponse<String> answer = t.get("/api/hello");
                    if (answer.statusCode() != 200) {
                        throw new IllegalStateException("the slot did not come back: " + answer.statusCode());
                    }
                    return remaining(answer);
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertEquals(before - 3, after, "one token for each of the two re-dispatched requests and the last one");
        }
    }
}
