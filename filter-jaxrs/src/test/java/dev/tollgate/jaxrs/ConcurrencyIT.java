package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.Retry;
import dev.tollgate.testing.WithRedis;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * A JAX-RS resource under a concurrency limit of one (Jersey in Tomcat, real Redis): its slot comes
 * back when the response is done, whether the resource returned, threw a
 * {@code WebApplicationException}, threw an exception a mapper turned into a response, or threw one
 * no mapper handles (Jersey answers 500 and still runs the response filters). With one
 * slot and a 60 s lease, the next request passes only if the slot came back.
 *
 * <p>A response's entity is written after the response filters have run: a {@code StreamingOutput}
 * export holds its slot until it has been written, whether it ends, fails while writing or its
 * client goes away, and a {@code HEAD}, a {@code 304} or a 401 with a body from an authentication
 * filter (after Tollgate's first phase took the slot) gives its slot back too. All of it without
 * {@link SlotReleaseListener}: the response filter and the writer interceptor give every slot of a
 * synchronous resource back by themselves.
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
        public Response work(@QueryParam("end") String end) {
            switch (end == null ? "" : end) {
                case "wae" -> throw new WebApplicationException(503);
                case "mapped" -> throw new Mapped();
                case "boom" -> throw new IllegalStateException("unmapped");
                case "304" -> {
                    return Response.notModified().build();
                }
                case "304-entity" -> {
                    return Response.status(304).entity("not sent").build();
                }
                case "stream" -> {
                    return Response.ok((StreamingOutput) out -> out.write("streamed".getBytes(StandardCharsets.UTF_8))).build();
                }
                default -> {
                    return Response.ok("done").build();
                }
            }
        }
    }

    /** An authentication filter that refuses {@code ?end=401} with a body, after Tollgate's first phase took the slot. */
    @jakarta.annotation.Priority(jakarta.ws.rs.Priorities.AUTHENTICATION)
    public static final class Refusing implements jakarta.ws.rs.container.ContainerRequestFilter {
        @Override
        public void filter(jakarta.ws.rs.container.ContainerRequestContext request) {
            if ("401".equals(request.getUriInfo().getQueryParameters().getFirst("end"))) {
                request.abortWith(Response.status(401).entity("who are you?").build());
            }
        }
    }

    /**
     * An export that streams: it writes a first part, hands the test a gate, waits until the test
     * opens it, then writes the rest ({@code ?fail=true}: fails instead, as a write to a client
     * that went away does).
     */
    @Path("/export")
    public static final class Exporting {
        final BlockingQueue<CountDownLatch> streaming = new LinkedBlockingQueue<>();

        @GET
        @RateLimited("one-at-a-time")
        public StreamingOutput export(@QueryParam("fail") boolean fail) {
            return out -> {
                CountDownLatch gate = new CountDownLatch(1);
                // more than the runtime buffers, so that the answer has begun when the test gets the gate
                out.write(("first\n" + ".".repeat(32 * 1024) + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                streaming.add(gate);
                try {
                    if (!gate.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("the test never opened the gate");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
                if (fail) {
                    throw new IOException("the export failed while writing");
                }
                // several writes, so that one to a client that went away fails
                for (int i = 0; i < 64; i++) {
                    out.write(("last " + i + "\n").repeat(256).getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            };
        }

        /** The gate of the next request that has begun streaming. */
        CountDownLatch next() throws InterruptedException {
            CountDownLatch gate = streaming.poll(10, TimeUnit.SECONDS);
            if (gate == null) {
                throw new AssertionError("no export began streaming within 10 s");
            }
            return gate;
        }
    }

    private final Exporting exporting = new Exporting();
    private final String prefix = "jaxrs-" + UUID.randomUUID() + ":";
    private final HttpClient http = HttpClient.newHttpClient();

    ResourceConfig app(RedisEndpoint redis) {
        ResourceConfig rc = new ResourceConfig(Work.class, MappedMapper.class, Refusing.class, TollgateFeature.class).register(exporting);
        rc.property("tollgate.redis.uri", redis.uri());
        rc.property("tollgate.redis.timeout", "2s");
        rc.property("tollgate.redis.key-prefix", prefix);
        rc.property("tollgate.policies", "one-at-a-time");
        rc.property("tollgate.policy.one-at-a-time.concurrency", "1");
        rc.property("tollgate.policy.one-at-a-time.concurrency-lease", "60s");
        return rc;
    }

    @Test
    void aResourceGivesItsSlotBackOnSuccessAndOnExceptions(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis), false)) {
            String[][] cases = {{"ok", "200"}, {"wae", "503"}, {"mapped", "409"}, {"ok", "200"}, {"mapped", "409"},
                    {"boom", "500"}, {"304", "304"}, {"304-entity", "304"}, {"stream", "200"}, {"401", "401"}};
            for (String[] c : cases) {
                HttpResponse<String> r = t.get("/api/work?end=" + c[0]);
                assertEquals(Integer.parseInt(c[1]), r.statusCode(), c[0] + ": " + r.body());
            }
            assertEquals(200, t.get("/api/work").statusCode(), "the slot came back every time");
            HttpResponse<String> head = t.send("HEAD", "/api/work?end=stream");
            assertEquals(200, head.statusCode());
            assertEquals(200, t.send("HEAD", "/api/work").statusCode(), "a HEAD gave its slot back");
            assertEquals(200, t.get("/api/work").statusCode());
            assertEquals(0, leases(redis), "no slot left behind");
        }
    }

    private CompletableFuture<HttpResponse<String>> send(JerseyOnTomcat t, String path) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + t.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The leases in Redis over every lease key of this test's prefix. */
    private long leases(RedisEndpoint redis) {
        String keys = redis.command("KEYS", prefix + "*:c");
        long n = 0;
        if (keys != null && !keys.isEmpty()) {
            for (String key : keys.split("\n")) {
                n += Long.parseLong(redis.command("ZCARD", key));
            }
        }
        return n;
    }

    /** Waits until no lease of this test is left (a slot given back after the client read its answer). */
    private void noLeaseLeft(RedisEndpoint redis) {
        Retry.until(Duration.ofSeconds(5), () -> {
            long live = leases(redis);
            if (live != 0) {
                throw new IllegalStateException(live + " leases still live");
            }
            return live;
        });
    }

    /** One more export, admitted, streamed and ended: the slot was free, and comes back again. */
    private void anotherExportIsAdmitted(JerseyOnTomcat t, RedisEndpoint redis) throws Exception {
        CompletableFuture<HttpResponse<String>> again = send(t, "/api/export");
        exporting.next().countDown();
        HttpResponse<String> r = again.get(10, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().startsWith("first\n") && r.body().endsWith("last 63\n"), "written whole");
        noLeaseLeft(redis);
    }

    @Test
    void aStreamingExportHoldsItsSlotUntilItHasBeenWritten(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis), false)) {
            CompletableFuture<HttpResponse<String>> first = send(t, "/api/export");
            CountDownLatch gate = exporting.next();
            CompletableFuture<HttpResponse<String>> refused = send(t, "/api/export");
            Retry.until(Duration.ofSeconds(10), () -> {
                if (!refused.isDone() && exporting.streaming.isEmpty()) {
                    throw new IllegalStateException("the second export is neither answered nor streaming");
                }
                return true;
            });
            CountDownLatch admitted = exporting.streaming.poll();
            if (admitted != null) {
                admitted.countDown(); // it was admitted and streams: let it end
            }
            HttpResponse<String> second = refused.get(10, TimeUnit.SECONDS);
            assertEquals(429, second.statusCode(), "a second export while the first streams: "
                    + second.body().lines().findFirst().orElse(""));
            assertTrue(second.body().contains("Concurrency limit of policy 'one-at-a-time'"), second.body());
            assertEquals(1, leases(redis), "the streaming export holds its slot");
            gate.countDown();
            HttpResponse<String> done = first.get(10, TimeUnit.SECONDS);
            assertEquals(200, done.statusCode());
            assertTrue(done.body().endsWith("last 63\n"), "the first export was written whole");
            noLeaseLeft(redis);
            anotherExportIsAdmitted(t, redis);
        }
    }

    @Test
    void anExportThatFailsWhileWritingGivesItsSlotBack(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis), false)) {
            CompletableFuture<HttpResponse<String>> failing = send(t, "/api/export?fail=true");
            exporting.next().countDown();
            try {
                failing.get(10, TimeUnit.SECONDS); // a truncated answer, or an error: the client's business
            } catch (java.util.concurrent.ExecutionException e) {
                // the connection was closed mid-answer
            }
            noLeaseLeft(redis);
            anotherExportIsAdmitted(t, redis);
        }
    }

    @Test
    void anExportWhoseClientWentAwayGivesItsSlotBackWhenTheWriteFails(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis), false)) {
            Socket s = new Socket("127.0.0.1", t.port());
            OutputStream out = s.getOutputStream();
            out.write("GET /api/export HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            CountDownLatch gate = exporting.next();
            try (s) {
                InputStream in = s.getInputStream();
                assertTrue(in.read() >= 0, "the answer began");
                assertEquals(1, leases(redis), "the streaming export holds its slot");
            } finally {
                gate.countDown(); // it writes on to a closed connection, and fails
            }
            noLeaseLeft(redis);
            anotherExportIsAdmitted(t, redis);
        }
    }

    @Test
    void aHeadOfAStreamingExportGivesItsSlotBack(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis), false)) {
            CompletableFuture<HttpResponse<String>> head = http.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + t.port() + "/api/export")).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            CountDownLatch gate = exporting.next();
            try {
                assertEquals(429, t.get("/api/work").statusCode(), "the HEAD holds the slot while its entity is written");
            } finally {
                gate.countDown();
            }
            assertEquals(200, head.get(10, TimeUnit.SECONDS).statusCode());
            noLeaseLeft(redis);
            anotherExportIsAdmitted(t, redis);
        }
    }

    @Test
    void aSecondRequestWhileOneRunsIsRefusedAsAConcurrencyLimit(RedisEndpoint redis) throws Exception {
        // the slot of a request that never completes: taken through the same store, never released
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis), false)) {
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
