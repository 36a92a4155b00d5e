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
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.CompletionCallback;
import jakarta.ws.rs.container.ConnectionCallback;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous JAX-RS resources ({@code @Suspended AsyncResponse}) under a concurrency limit of
 * two, on Jersey 3.1 in Tomcat 11 over a real Redis. A slot is given back in the response filter,
 * which JAX-RS runs whenever an async response is written: when the application resumes it with a
 * value, when it resumes it with an exception a mapper (or {@code WebApplicationException}) turns
 * into a response, and when its {@code setTimeout} expires with no handler (Jersey answers 503).
 * Each test holds both slots (a third request is refused), ends the two requests one way, and then
 * checks that the lease set in Redis is empty and that of three parallel requests exactly two are
 * admitted again: no slot leaked, none given back twice.
 *
 * <p>An exception no mapper handles, passed to {@code resume}, goes to the servlet container
 * (JAX-RS requires it) and Jersey runs no response filter (it calls the resource's own {@link
 * CompletionCallback}, with the error, which a filter cannot register): {@link SlotReleaseListener}
 * gives that slot back when the servlet request ends. A client that disconnects from a suspended
 * request is not seen by JAX-RS at all (Jersey gives the servlet container no async timeout and
 * registers no listener, and calls a {@link ConnectionCallback}, optional in JAX-RS, only when a
 * write fails). So after a disconnect the slot comes back when the application resumes (its write
 * then goes nowhere), when the request's own timeout expires, or, with neither, at the lease.
 */
@WithRedis
class AsyncConcurrencyIT {

    private static final int SLOTS = 2;

    /** A resource that suspends every request and hands its {@link AsyncResponse} to the test. */
    @Path("/async")
    public static final class Suspending {
        final BlockingQueue<AsyncResponse> suspended = new LinkedBlockingQueue<>();
        /** What JAX-RS reported through the callbacks: "complete", "complete-with-error", "disconnect". */
        final List<String> callbacks = new CopyOnWriteArrayList<>();

        @GET
        @RateLimited("two")
        public void run(@QueryParam("timeoutMs") long timeoutMs, @Suspended AsyncResponse response) {
            response.register((CompletionCallback) error -> callbacks.add(error == null ? "complete" : "complete-with-error"));
            response.register((ConnectionCallback) r -> callbacks.add("disconnect"));
            if (timeoutMs > 0) {
                response.setTimeout(timeoutMs, TimeUnit.MILLISECONDS);
            }
            suspended.add(response);
        }

        AsyncResponse next() throws InterruptedException {
            AsyncResponse r = suspended.poll(10, TimeUnit.SECONDS);
            if (r == null) {
                throw new AssertionError("no request reached the resource within 10 s");
            }
            return r;
        }
    }

    private final Suspending resource = new Suspending();
    private final HttpClient http = HttpClient.newHttpClient();
    private final String prefix = "jaxrs-async-" + UUID.randomUUID() + ":";

    private ResourceConfig app(RedisEndpoint redis, String lease) {
        ResourceConfig rc = new ResourceConfig().register(resource).register(ConcurrencyIT.MappedMapper.class)
                .register(TollgateFeature.class);
        rc.property("tollgate.redis.uri", redis.uri());
        rc.property("tollgate.redis.timeout", "2s");
        rc.property("tollgate.redis.key-prefix", prefix);
        rc.property("tollgate.policies", "two");
        rc.property("tollgate.policy.two.concurrency", Integer.toString(SLOTS));
        rc.property("tollgate.policy.two.concurrency-lease", lease);
        return rc;
    }

    private CompletableFuture<HttpResponse<String>> send(JerseyOnTomcat t, String query) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + t.port() + "/api/async" + query)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Starts {@link #SLOTS} requests, waits until the resource holds them, and checks that a third is refused. */
    private List<Held> fillTheSlots(JerseyOnTomcat t, RedisEndpoint redis, String query) throws Exception {
        List<Held> held = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            CompletableFuture<HttpResponse<String>> answer = send(t, query);
            held.add(new Held(resource.next(), answer));
        }
        HttpResponse<String> third = t.get("/api/async");
        assertEquals(429, third.statusCode(), "both slots are held: " + third.body());
        assertEquals(SLOTS, leases(redis), "the lease set holds the two slots");
        return held;
    }

    private record Held(AsyncResponse response, CompletableFuture<HttpResponse<String>> answer) {
        int status() throws Exception {
            return answer.get(10, TimeUnit.SECONDS).statusCode();
        }
    }

    /**
     * The leases in Redis over every lease key of this test's prefix: held ones, and expired ones
     * not yet dropped (a lease key itself expires with its last lease).
     */
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

    /**
     * The slots are all back, each once: the lease set is empty, and of three parallel requests
     * exactly two are admitted and one is refused (the admitted ones are resumed to end them; a
     * third admitted one would stay suspended and its answer never come).
     */
    private void exactlyTwoAreAdmittedAgain(JerseyOnTomcat t, RedisEndpoint redis) throws Exception {
        Retry.until(Duration.ofSeconds(5), () -> {
            long live = leases(redis);
            if (live != 0) {
                throw new IllegalStateException(live + " leases still live");
            }
            return live;
        });
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < SLOTS + 1; i++) {
            answers.add(send(t, ""));
        }
        // both admitted ones are suspended and the third refused before any is resumed
        List<AsyncResponse> admitted = List.of(resource.next(), resource.next());
        Object firstAnswer = CompletableFuture.anyOf(answers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertEquals(429, ((HttpResponse<?>) firstAnswer).statusCode(), "the third is refused while two are in flight");
        admitted.forEach(r -> r.resume("done"));
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> a : answers) {
            statuses.add(a.get(10, TimeUnit.SECONDS).statusCode());
        }
        statuses.sort(null);
        assertEquals(List.of(200, 200, 429), statuses, "of three parallel requests exactly two were admitted");
        assertTrue(resource.suspended.isEmpty(), "no third request reached the resource");
        assertEquals(0, leases(redis), "the slots of the last two came back too");
    }

    @Test
    void resumedWithAValueGivesTheSlotBack(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "60s"))) {
            for (Held h : fillTheSlots(t, redis, "")) {
                h.response().resume("done");
                assertEquals(200, h.status());
            }
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }

    @Test
    void anExpiredTimeoutGivesTheSlotBack(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "60s"))) {
            for (Held h : fillTheSlots(t, redis, "?timeoutMs=300")) {
                assertEquals(503, h.status(), "Jersey's answer to a timeout without a handler");
            }
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }

    @Test
    void resumedWithAMappedExceptionGivesTheSlotBack(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "60s"))) {
            List<Held> held = fillTheSlots(t, redis, "");
            held.get(0).response().resume(new WebApplicationException(409));
            held.get(1).response().resume(new ConcurrencyIT.Mapped());
            assertEquals(409, held.get(0).status());
            assertEquals(409, held.get(1).status(), "the application's mapper answered");
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }

    /**
     * An exception no mapper handles goes to the servlet container (JAX-RS requires it), and Jersey
     * then runs no response filter, only the resource's own {@link CompletionCallback}: the 500
     * reaches the client, and {@link SlotReleaseListener} gives the slot back when the servlet
     * request ends.
     */
    @Test
    void resumedWithAnUnmappedExceptionGivesTheSlotBackWhenTheRequestEnds(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "60s"))) {
            List<Held> held = fillTheSlots(t, redis, "");
            for (Held h : held) {
                h.response().resume(new IllegalStateException("unmapped"));
                assertEquals(500, h.status());
            }
            long ms = millisUntilTheSlotsAreBack(redis, Duration.ofSeconds(5));
            System.out.println("[jaxrs-async] resumed with an unmapped exception: slots back " + ms
                    + " ms after the 500s; callbacks " + resource.callbacks);
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }

    /**
     * An async resource resumed with a {@code StreamingOutput}: its slot is held until the entity
     * has been written (the response filter runs before), so a third request is refused while
     * both stream, and both slots come back once they have been written.
     */
    @Test
    void resumedWithAStreamingEntityHoldsTheSlotUntilItHasBeenWritten(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "60s"))) {
            BlockingQueue<CountDownLatch> streaming = new LinkedBlockingQueue<>();
            StreamingOutput export = out -> {
                CountDownLatch gate = new CountDownLatch(1);
                out.write("first\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                streaming.add(gate);
                try {
                    gate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                out.write("last\n".getBytes(StandardCharsets.UTF_8));
            };
            List<Held> held = fillTheSlots(t, redis, "");
            List<CountDownLatch> gates = new ArrayList<>();
            for (Held h : held) {
                // Jersey writes a resumed response on the resuming thread
                CompletableFuture.runAsync(() -> h.response().resume(export));
                CountDownLatch gate = streaming.poll(10, TimeUnit.SECONDS);
                assertTrue(gate != null, "the resumed response began streaming");
                gates.add(gate);
            }
            CompletableFuture<HttpResponse<String>> third = send(t, "");
            Retry.until(Duration.ofSeconds(10), () -> {
                if (!third.isDone() && resource.suspended.isEmpty()) {
                    throw new IllegalStateException("the third request is neither answered nor at the resource");
                }
                return true;
            });
            AsyncResponse admitted = resource.suspended.poll();
            if (admitted != null) {
                admitted.resume("done");
            }
            assertEquals(429, third.get(10, TimeUnit.SECONDS).statusCode(), "a third request while both stream is refused");
            assertEquals(SLOTS, leases(redis), "both streaming responses hold their slots");
            gates.forEach(CountDownLatch::countDown);
            for (Held h : held) {
                HttpResponse<String> r = h.answer().get(10, TimeUnit.SECONDS);
                assertEquals(200, r.statusCode());
                assertEquals("first\nlast\n", r.body());
            }
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }

    /** Two suspended requests sent over raw sockets, which the test then closes without reading. */
    private List<AsyncResponse> fillTheSlotsAndDisconnect(JerseyOnTomcat t, RedisEndpoint redis, String query) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        List<AsyncResponse> suspended = new ArrayList<>();
        try {
            for (int i = 0; i < SLOTS; i++) {
                Socket s = new Socket("127.0.0.1", t.port());
                sockets.add(s);
                OutputStream out = s.getOutputStream();
                out.write(("GET /api/async" + query + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                suspended.add(resource.next());
            }
            assertEquals(429, t.get("/api/async").statusCode(), "both slots are held");
            assertEquals(SLOTS, leases(redis));
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
        return suspended;
    }

    /** Milliseconds from now until the lease set of this test is empty, at most {@code within}. */
    private long millisUntilTheSlotsAreBack(RedisEndpoint redis, Duration within) {
        long t0 = System.nanoTime();
        Retry.until(within, () -> {
            long live = leases(redis);
            if (live != 0) {
                throw new IllegalStateException(live + " leases still live");
            }
            return live;
        });
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void aClientThatDisconnectsGetsItsSlotBackWhenTheApplicationResumes(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "60s"))) {
            List<AsyncResponse> suspended = fillTheSlotsAndDisconnect(t, redis, "");
            // JAX-RS has told the application nothing: the requests are still suspended, the slots held
            assertEquals(SLOTS, leases(redis), "a disconnect alone gives nothing back");
            assertTrue(resource.callbacks.isEmpty(), "no callback before the application resumes: " + resource.callbacks);
            suspended.forEach(r -> r.resume("too late"));
            long ms = millisUntilTheSlotsAreBack(redis, Duration.ofSeconds(5));
            System.out.println("[jaxrs-async] disconnected, then resumed: slots back " + ms
                    + " ms after the resume; callbacks " + resource.callbacks);
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }

    @Test
    void aClientThatDisconnectsFromAnIdleRequestGetsItsSlotBackAtTheRequestsTimeout(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "60s"))) {
            fillTheSlotsAndDisconnect(t, redis, "?timeoutMs=1000");
            long ms = millisUntilTheSlotsAreBack(redis, Duration.ofSeconds(5));
            System.out.println("[jaxrs-async] disconnected from an idle request with a 1 s timeout: slots back " + ms
                    + " ms after the disconnect; callbacks " + resource.callbacks);
            assertTrue(ms < 5_000, ms + " ms: by the timeout, far below the 60 s lease");
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }

    @Test
    void aClientThatDisconnectsFromARequestNeverResumedGetsItsSlotBackAtTheLease(RedisEndpoint redis) throws Exception {
        try (JerseyOnTomcat t = new JerseyOnTomcat(app(redis, "2s"))) {
            fillTheSlotsAndDisconnect(t, redis, "");
            // no timeout, never resumed: nothing in JAX-RS or the servlet container ends the request
            long ms = millisUntilTheSlotsAreBack(redis, Duration.ofSeconds(6));
            System.out.println("[jaxrs-async] disconnected from a request never resumed, lease 2 s: slots back " + ms
                    + " ms after the disconnect; callbacks " + resource.callbacks);
            assertTrue(resource.callbacks.isEmpty(), "JAX-RS reported nothing: " + resource.callbacks);
            exactlyTwoAreAdmittedAgain(t, redis);
        }
    }
}
