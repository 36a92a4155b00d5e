package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.RateLimiter;
import dev.tollgate.config.ConfigLookup;
import dev.tollgate.config.ConfigSources;
import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.Retry;
import dev.tollgate.testing.TestRequest;
import dev.tollgate.testing.WithRedis;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * Concurrency limits through the servlet filter in real Tomcats over a real Redis: exactly N of
 * N+k parallel requests run; slots come back when a synchronous servlet returns, and when an async
 * one completes, times out or fails; two Tomcats sharing Redis hold N together; and a node that
 * took a slot and died frees it after the lease.
 */
@WithRedis
class ConcurrencyIT {

    /** Servlets that hold their request until {@link #gate} opens, counting who got in. */
    static final class Held {
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger inside = new AtomicInteger();

        void add(Context c) {
            Tomcat.addServlet(c, "held", new HttpServlet() {
                private static final long serialVersionUID = 1L;

                @Override
                protected void service(HttpServletRequest req, HttpServletResponse resp) throws java.io.IOException {
                    inside.incrementAndGet();
                    try {
                        gate.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    resp.getWriter().write("done");
                }
            });
            c.addServletMappingDecoded("/api/held", "held");
            Wrapper w = Tomcat.addServlet(c, "async-end", new HttpServlet() {
                private static final long serialVersionUID = 1L;

                @Override
                protected void service(HttpServletRequest req, HttpServletResponse resp) {
                    AsyncContext ctx = req.startAsync();
                    switch (req.getParameter("end")) {
                        case "complete" -> ctx.start(() -> {
                            try {
                                ctx.getResponse().getWriter().write("completed");
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                            ctx.complete();
                        });
                        case "timeout" -> ctx.setTimeout(200); // never completed: the container times it out
                        default -> ctx.dispatch("/fails"); // the dispatch throws: an async error
                    }
                }
            });
            w.setAsyncSupported(true);
            c.addServletMappingDecoded("/api/async-end", "async-end");
            Tomcat.addServlet(c, "fails", new HttpServlet() {
                private static final long serialVersionUID = 1L;

                @Override
                protected void service(HttpServletRequest req, HttpServletResponse resp) {
                    throw new IllegalStateException("the application failed");
                }
            });
            c.addServletMappingDecoded("/fails", "fails");
            Tomcat.addServlet(c, "sync-fails", new HttpServlet() {
                private static final long serialVersionUID = 1L;

                @Override
                protected void service(HttpServletRequest req, HttpServletResponse resp) {
                    throw new IllegalStateException("the application failed");
                }
            });
            c.addServletMappingDecoded("/api/sync-fails", "sync-fails");
        }
    }

    static Map<String, String> params(RedisEndpoint redis, String prefix, String slots, String lease) {
        return TollgateFilterIT.params(redis, "tollgate.policy.default.concurrency", slots,
                "tollgate.policy.default.concurrency-lease", lease, "tollgate.redis.key-prefix", prefix);
    }

    private static CompletableFuture<HttpResponse<String>> send(EmbeddedTomcat t, String path) {
        return t.http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + t.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Sends {@code perNode} requests to each node at once; returns them once k were refused and the rest are inside. */
    private static List<CompletableFuture<HttpResponse<String>>> flood(Held held, int admitted, int perNode,
                                                                      EmbeddedTomcat... nodes) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (EmbeddedTomcat t : nodes) {
            for (int i = 0; i < perNode; i++) {
                all.add(send(t, "/api/held"));
            }
        }
        int refused = all.size() - admitted;
        Retry.until(Duration.ofSeconds(10), () -> {
            long done = all.stream().filter(CompletableFuture::isDone).count();
            if (done < refused || held.inside.get() < admitted) {
                throw new IllegalStateException(done + " answered, " + held.inside.get() + " inside");
            }
            return done;
        });
        return all;
    }

    @Test
    void ofNPlusKParallelSlowRequestsExactlyNRunAndTheirSlotsComeBack(RedisEndpoint redis) throws Exception {
        Held held = new Held();
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "conc-" + System.nanoTime() + ":", "3", "60s"), Map.of(), held::add)) {
            List<CompletableFuture<HttpResponse<String>>> all = flood(held, 3, 7, t);
            assertEquals(3, held.inside.get(), "exactly N got in while the others were answered");
            held.gate.countDown();
            int ok = 0;
            for (CompletableFuture<HttpResponse<String>> f : all) {
                HttpResponse<String> r = f.get(20, TimeUnit.SECONDS);
                if (r.statusCode() == 200) {
                    ok++;
                    assertFalse(r.headers().firstValue("RateLimit").isPresent(), "no rate limit field for a concurrency limit");
                } else {
                    assertEquals(429, r.statusCode());
                    long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
                    assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
                    assertTrue(r.body().contains("Concurrency limit of policy 'default' (3 in flight)"), r.body());
                    assertTrue(r.body().contains("\"violated-policies\":[\"default-concurrency\"]"), r.body());
                    assertFalse(r.headers().firstValue("RateLimit").isPresent());
                }
            }
            assertEquals(3, ok);
            assertEquals(3, held.inside.get(), "refused requests never reached the servlet");
            // every slot came back when its response completed
            List<CompletableFuture<HttpResponse<String>>> again = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                again.add(send(t, "/api/held"));
            }
            for (CompletableFuture<HttpResponse<String>> f : again) {
                assertEquals(200, f.get(20, TimeUnit.SECONDS).statusCode());
            }
            assertEquals(500, t.get("/api/sync-fails").statusCode(), "the servlet threw");
            assertEquals(200, t.get("/api/held").statusCode(), "a servlet that threw gave its slot back");
        }
    }

    @Test
    void anAsyncServletGivesItsSlotBackOnCompletionTimeoutAndError(RedisEndpoint redis) throws Exception {
        Held held = new Held();
        held.gate.countDown();
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(),
                params(redis, "conc-" + System.nanoTime() + ":", "1", "60s"), Map.of(), held::add)) {
            for (String end : List.of("complete", "timeout", "error", "complete", "error", "timeout")) {
                HttpResponse<String> r = t.get("/api/async-end?end=" + end);
                assertTrue(r.statusCode() == 200 || r.statusCode() == 500, end + ": " + r.statusCode());
                // with one slot, the next request passes only if this one's slot came back; the
                // container may still be finishing the last one, so give it a moment
                Retry.until(Duration.ofSeconds(5), () -> {
                    try {
                        int code = t.get("/api/held").statusCode();
                        if (code != 200) {
                            throw new IllegalStateException(end + " kept its slot: " + code);
                        }
                        return code;
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        }
    }

    @Test
    void twoTomcatsSharingOneRedisHoldNTogether(RedisEndpoint redis) throws Exception {
        Held held = new Held();
        String prefix = "conc-" + System.nanoTime() + ":";
        try (EmbeddedTomcat a = new EmbeddedTomcat(new TollgateFilter(), params(redis, prefix, "2", "60s"), Map.of(), held::add);
             EmbeddedTomcat b = new EmbeddedTomcat(new TollgateFilter(), params(redis, prefix, "2", "60s"), Map.of(), held::add)) {
            List<CompletableFuture<HttpResponse<String>>> all = flood(held, 2, 3, a, b);
            assertEquals(2, held.inside.get(), "two nodes, two slots in all");
            held.gate.countDown();
            int ok = 0;
            for (CompletableFuture<HttpResponse<String>> f : all) {
                ok += f.get(20, TimeUnit.SECONDS).statusCode() == 200 ? 1 : 0;
            }
            assertEquals(2, ok);
        }
    }

    @Test
    void aSlotOfANodeThatDiedIsFreedAfterTheLease(RedisEndpoint redis) throws Exception {
        Held held = new Held();
        held.gate.countDown();
        String prefix = "conc-" + System.nanoTime() + ":";
        Map<String, String> p = params(redis, prefix, "1", "1s");
        // the "killed" node: it takes the slot and never gives it back
        TollgateConfig config = TollgateConfig.load(ConfigLookup.of(ConfigSources.of("test", p::get)),
                getClass().getClassLoader());
        try (RateLimiter dead = RateLimiter.create(config)) {
            assertTrue(dead.check(TestRequest.get("/api/held").from("127.0.0.1")).permit().held());
        }
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), p, Map.of(), held::add)) {
            long start = System.nanoTime();
            HttpResponse<String> refused = t.get("/api/held");
            if (refused.statusCode() == 429) {
                assertEquals("1", refused.headers().firstValue("Retry-After").orElseThrow(),
                        "the wait is bounded by the lease");
            }
            Retry.until(Duration.ofSeconds(4), () -> {
                try {
                    int code = t.get("/api/held").statusCode();
                    if (code != 200) {
                        throw new IllegalStateException("still held: " + code);
                    }
                    return code;
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(4).toNanos());
        }
    }
}
