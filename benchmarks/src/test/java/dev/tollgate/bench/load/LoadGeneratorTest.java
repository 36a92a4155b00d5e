package dev.tollgate.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The load generator against a small HTTP server of the test's own on loopback: the schedule of an
 * open loop, the reading of every kind of answer on a kept connection, and which group each answer
 * counts in. No assertion depends on how fast the machine is: only on what was sent and answered.
 */
class LoadGeneratorTest {

    private ServerSocket server;
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    private final AtomicInteger accepted = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    accepted.incrementAndGet();
                    Thread c = new Thread(() -> serve(s), "test-http");
                    c.setDaemon(true);
                    c.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }, "test-accept");
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    /**
     * Answers by path: {@code /len} a body with Content-Length, {@code /chunked} a chunked body,
     * {@code /close} then closes the connection; 429 to the client {@code runaway}, else 200.
     */
    private void serve(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
             OutputStream out = s.getOutputStream()) {
            for (String first = in.readLine(); first != null; first = in.readLine()) {
                String path = first.split(" ")[1];
                String id = null;
                for (String h = in.readLine(); h != null && !h.isEmpty(); h = in.readLine()) {
                    if (h.regionMatches(true, 0, LoadGenerator.HEADER + ":", 0, LoadGenerator.HEADER.length() + 1)) {
                        id = h.substring(LoadGenerator.HEADER.length() + 1).trim();
                    }
                }
                seen.computeIfAbsent(String.valueOf(id), k -> new AtomicInteger()).incrementAndGet();
                String status = "runaway".equals(id) ? "429 Too Many Requests" : "200 OK";
                String answer = switch (path) {
                    case "/chunked" -> "HTTP/1.1 " + status + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
                    case "/close" -> "HTTP/1.1 " + status + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
                    default -> "HTTP/1.1 " + status + "\r\nContent-Length: 11\r\nX-Other: 1\r\n\r\nhello world";
                };
                out.write(answer.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                if (path.equals("/close")) {
                    return;
                }
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    @Test
    void ticketsAreDueAtTheRateFromTheStartWhoeverTakesThem() {
        LoadGenerator.Tickets t = new LoadGenerator.Tickets(1_000, 4);
        assertEquals(0, t.take());
        assertEquals(1, t.take());
        assertEquals(2, t.take());
        assertEquals(1_000, t.due(0));
        assertEquals(1_000 + 250_000_000L, t.due(1));
        assertEquals(1_000 + 2_500_000_000L, t.due(10));
        assertEquals(1_000 + 333_333_333L, new LoadGenerator.Tickets(1_000, 3).due(1));
        assertThrows(IllegalArgumentException.class, () -> new LoadGenerator.Tickets(0, 0));
    }

    @Test
    void aRequestNamesItsClientAndHost() {
        try (LoadGenerator g = new LoadGenerator("127.0.0.1", 8080, 1)) {
            assertEquals("GET /api/work HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Client-Id: client-7\r\n"
                    + "User-Agent: tollgate-bench\r\n\r\n", new String(g.request("/api/work", "client-7"), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void everyKindOfAnswerIsReadWholeAndTheConnectionKeptOrReopened() throws IOException {
        try (LoadGenerator g = new LoadGenerator("127.0.0.1", server.getLocalPort(), 1)) {
            LoadGenerator.Connection c = g.new Connection();
            for (String path : List.of("/len", "/chunked", "/len", "/chunked")) {
                assertEquals(200, c.send(g.request(path, "a")), path);
            }
            assertEquals(1, accepted.get(), "bodies read whole: one connection kept for four answers");
            assertEquals(429, c.send(g.request("/close", "runaway")));
            assertEquals(200, c.send(g.request("/len", "a")));
            assertEquals(2, accepted.get(), "reopened after the server closed it");
            c.close();
        }
        assertEquals(5, seen.get("a").get());
    }

    @Test
    void anOpenLoopSpreadsItsRequestsOverItsClientsAndCountsEachAnswerOnce() throws InterruptedException {
        List<String> ids = List.of("client-0", "client-1", "client-2");
        LoadGenerator.Group r;
        try (LoadGenerator g = new LoadGenerator("127.0.0.1", server.getLocalPort(), 2)) {
            r = g.openLoop("/len", ids, 200, Duration.ofMillis(300));
            LoadGenerator.Group again = g.openLoop("/chunked", ids, 200, Duration.ofMillis(100));
            assertEquals(again.sent.get(), again.answered() + again.errors.get());
        }
        assertTrue(r.sent.get() + r.notSent.get() > 0, "the loop had tickets due before its end");
        assertEquals(r.sent.get(), r.answered() + r.errors.get(), "every request sent is answered or failed, once");
        assertEquals(0, r.errors.get());
        assertEquals(0, r.denied.getTotalCount());
        assertEquals(r.allowed.getTotalCount(), r.all().getTotalCount());
        assertTrue(seen.keySet().stream().allMatch(ids::contains), "only the loop's clients: " + seen.keySet());
        assertTrue(accepted.get() <= 2, "the two connections are kept from phase to phase, " + accepted.get() + " opened");
    }

    @Test
    void aPhaseCountsTheWellBehavedClientsAndTheRunawayApart() throws InterruptedException {
        LoadGenerator.Group[] g;
        try (LoadGenerator gen = new LoadGenerator("127.0.0.1", server.getLocalPort(), 2)) {
            g = gen.phase("/len", Duration.ofMillis(300), 3, 20, 100);
        }
        LoadGenerator.Group polite = g[0];
        LoadGenerator.Group runaway = g[1];
        assertTrue(polite.sent.get() >= 3, "each well-behaved client sends its first request within its period");
        assertEquals(polite.sent.get(), polite.allowed.getTotalCount() + polite.errors.get());
        assertEquals(0, polite.denied.getTotalCount());
        assertEquals(runaway.sent.get(), runaway.denied.getTotalCount() + runaway.errors.get());
        assertEquals(0, runaway.allowed.getTotalCount());
        assertTrue(runaway.sent.get() + runaway.notSent.get() > 0, "the runaway had tickets due before the end");
        for (int c = 0; c < 3; c++) {
            assertTrue(seen.get("client-" + c).get() >= 1, "client-" + c + " was heard");
        }
        assertEquals(runaway.sent.get() - runaway.errors.get(), seen.getOrDefault("runaway", new AtomicInteger()).get());
    }
}
