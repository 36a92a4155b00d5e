package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.Retry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a concurrency slot does when the client closes its connection in the middle of a request,
 * on a real server: {@code servlet-app} started on its own with the operator's
 * {@code TOLLGATE_POLICY_SLOW_CONCURRENCY=1} on {@code GET /api/slow?ms=N} (a synchronous servlet
 * that sleeps N ms) and a lease of {@value #LEASE_SECONDS} s. The client sends the request over a
 * raw socket, waits until its slot is taken in Redis, and closes the socket.
 *
 * <p>A synchronous servlet is not told that its client left (none of the servers interrupts it):
 * the slot comes back when the servlet returns and the filter releases it, or, for a request that
 * runs longer than its lease, when the lease expires, whichever is first. Both times are measured
 * from the close and printed; each test fails if the slot is held past the lease (with a margin
 * for a loaded machine). Afterwards, of two parallel requests exactly one is admitted.
 *
 * <p>Used as a {@code @Nested} class of a server's test class (it starts a server of its own).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ServerDiagnostics.class)
public abstract class ClientDisconnectContract {

    static final int LEASE_SECONDS = 5;
    /** For the checks' own pace (polling every 100 ms) on a busy 2-core machine. */
    private static final long MARGIN_MS = 2_000;

    private final ServerContract on;
    private final App app = App.SERVLET_APP;
    private final HttpClient http = HttpClient.newHttpClient();
    private ServerProcess server;
    private String keyPrefix;

    protected ClientDisconnectContract(ServerContract on) {
        this.on = on;
    }

    @BeforeAll
    void startWithAConcurrencyLimit() {
        if (on.serverKind.java().isEmpty()) {
            return; // every test is skipped below
        }
        keyPrefix = on.newKeyPrefix("disconnect");
        server = on.launch("disconnect", app, keyPrefix)
                .env("TOLLGATE_POLICIES", "default,slow")
                .env("TOLLGATE_POLICY_DEFAULT_MATCH", "/api/hello")
                .env("TOLLGATE_POLICY_SLOW_MATCH", "GET /api/slow")
                .env("TOLLGATE_POLICY_SLOW_CONCURRENCY", "1")
                .env("TOLLGATE_POLICY_SLOW_CONCURRENCY_LEASE", LEASE_SECONDS + "s")
                .start();
        // the first request starts the filter on some servers; /api/hello takes no slot
        server.awaitStatus(app.deployment(), app.limitedPath(), 200, Duration.ofSeconds(60));
    }

    @BeforeEach
    void assumeTheServersJavaIsHere() {
        Assumptions.assumeTrue(on.serverKind.java().isPresent(), () -> on.serverKind.name() + ": " + on.serverKind.whyNoJava());
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private URI slow(long ms) {
        return server.uri(app.deployment(), "/api/slow?ms=" + ms);
    }

    /** The live and expired leases in Redis under this start's prefix. */
    private long leases() {
        String keys = on.redis().command("KEYS", keyPrefix + "*:c");
        long n = 0;
        if (keys != null) {
            for (String key : keys.lines().filter(l -> !l.isEmpty()).toList()) {
                n += Long.parseLong(on.redis().command("ZCARD", key));
            }
        }
        return n;
    }

    private int status(URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sends {@code GET /api/slow?ms=<sleepMs>} over a raw socket, closes it once the slot is taken,
     * and returns the milliseconds from the close until a new request is admitted (printed also from
     * when the test saw the slot taken).
     */
    private long disconnectAndMeasure(long sleepMs) throws IOException {
        assertEquals(0, leases(), "no slot held before");
        long takenAt;
        long closedAt;
        try (Socket s = new Socket("127.0.0.1", server.httpPort())) {
            OutputStream out = s.getOutputStream();
            URI uri = slow(sleepMs);
            out.write(("GET " + uri.getRawPath() + "?" + uri.getRawQuery() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            Retry.until(Duration.ofSeconds(10), () -> {
                if (leases() != 1) {
                    throw new IllegalStateException("the slot is not taken yet");
                }
                return true;
            });
            takenAt = System.nanoTime();
            assertEquals(429, status(slow(0)), "the one slot is held");
            closedAt = System.nanoTime();
        }
        Retry.until(Duration.ofMillis(LEASE_SECONDS * 1_000L + MARGIN_MS), () -> {
            int status = status(slow(0));
            if (status != 200) {
                throw new IllegalStateException("still refused: " + status);
            }
            return status;
        });
        long now = System.nanoTime();
        System.out.println("[servers-it] " + server.title() + ": client closed its connection during /api/slow?ms=" + sleepMs
                + " (lease " + LEASE_SECONDS + " s): slot back " + (now - closedAt) / 1_000_000 + " ms after the close, "
                + (now - takenAt) / 1_000_000 + " ms after the slot was seen taken");
        return (now - closedAt) / 1_000_000;
    }

    /** Of two parallel requests exactly one is admitted: the slot came back once, not twice. */
    private void exactlyOneIsAdmitted() throws Exception {
        List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            answers.add(http.sendAsync(HttpRequest.newBuilder(slow(1_500)).build(), HttpResponse.BodyHandlers.discarding()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<Void>> a : answers) {
            statuses.add(a.get().statusCode());
        }
        statuses.sort(null);
        assertEquals(List.of(200, 429), statuses, "one slot: one of two parallel requests runs");
    }

    @Test
    void aClientThatLeavesASlowRequestGetsItsSlotBackWhenTheServletReturns() throws Exception {
        long sleepMs = 2_000;
        long ms = disconnectAndMeasure(sleepMs);
        assertTrue(ms < sleepMs + MARGIN_MS, ms + " ms: back when the servlet returned, before the lease");
        exactlyOneIsAdmitted();
    }

    @Test
    void aClientThatLeavesARequestLongerThanTheLeaseGetsItsSlotBackAtTheLease() throws Exception {
        long sleepMs = 10_000;
        long ms = disconnectAndMeasure(sleepMs);
        assertTrue(ms < LEASE_SECONDS * 1_000L + MARGIN_MS, ms + " ms: never held past the lease");
        exactlyOneIsAdmitted();
        // the abandoned servlet returns later; its release finds its lease gone and frees no other
        Thread.sleep(Math.max(0, sleepMs - ms) + 500); // waiting for the server's servlet, not timing the test
        exactlyOneIsAdmitted();
    }
}
