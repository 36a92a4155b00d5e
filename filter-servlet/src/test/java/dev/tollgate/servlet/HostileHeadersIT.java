package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.testing.HostileValues;
import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile requests over real HTTP, written byte by byte on a socket (an HTTP client library would
 * refuse to send most of them): forwarding headers, API keys and plan headers with braces, CR/LF,
 * NUL, non-ASCII bytes and up to 100 KB; hostile paths raw and percent-encoded. Tomcat may refuse a
 * malformed request (400), the filter may refuse a client (429), Tomcat answers 501 to a method it
 * does not implement (CONNECT); no other 5xx may ever come back, and Tollgate must log no internal
 * error.
 */
@WithRedis
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileHeadersIT {

    static final int REQUESTS = 800;

    @Test
    void hostileXForwardedForRequestsNeverGetA5xx(RedisEndpoint redis) throws Exception {
        run(redis, "x-forwarded-for", 0x5e41e7L);
    }

    @Test
    void hostileForwardedRequestsNeverGetA5xx(RedisEndpoint redis) throws Exception {
        run(redis, "forwarded", 0xf0dL);
    }

    private static void run(RedisEndpoint redis, String forwardedHeader, long seed) throws Exception {
        Map<String, String> params = TollgateFilterIT.params(redis,
                "tollgate.trusted-proxies", "127.0.0.1, ::1",
                "tollgate.forwarded-header", forwardedHeader,
                "tollgate.headers", "both",
                "tollgate.plans", "gold,free",
                "tollgate.plan.default", "free",
                "tollgate.plan.selector", "header:X-Plan",
                "tollgate.policies", "addr,apikey",
                "tollgate.policy.addr.limits", "20/s burst 40",
                "tollgate.policy.apikey.key", "header:X-Api-Key, ip",
                "tollgate.policy.apikey.match", "/api/**",
                "tollgate.policy.apikey.cost", "5 POST /api/**, 1",
                "tollgate.policy.apikey.limits", "10/s burst 20",
                "tollgate.policy.apikey.limits.gold", "100/s burst 200");
        HostileValues h = new HostileValues(seed);
        Random r = h.random();
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        long slowestNanos = 0;
        String slowest = "";
        try (Problems problems = new Problems(); EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), params)) {
            assertTrue(t.started());
            for (int i = 0; i < REQUESTS; i++) {
                byte[] request = request(h, r, forwardedHeader);
                int status;
                long sent = System.nanoTime();
                try {
                    status = send(t.port(), request);
                    if (System.nanoTime() - sent > slowestNanos) {
                        slowestNanos = System.nanoTime() - sent;
                        slowest = preview(request);
                    }
                } catch (SocketTimeoutException e) {
                    failures.add("request " + i + ": no answer in 10 s: " + preview(request));
                    continue;
                }
                statuses.merge(status, 1, Integer::sum);
                String method = new String(request, 0, Math.min(request.length, 8), StandardCharsets.ISO_8859_1);
                boolean unsupportedMethod = !method.startsWith("GET ") && !method.startsWith("POST ");
                if (status >= 500 && !(status == 501 && unsupportedMethod)) { // 501: Tomcat implements no CONNECT
                    failures.add("request " + i + ": " + status + " for " + preview(request));
                }
            }
            problems.assertNone();
        }
        System.out.printf("[hostile-http] %s, seed %d: %d raw requests in %d ms; statuses %s (-1: closed without an answer);"
                        + " slowest %d ms: %.100s%n", forwardedHeader, seed, REQUESTS, (System.nanoTime() - start) / 1_000_000,
                statuses, slowestNanos / 1_000_000, slowest);
        if (!failures.isEmpty()) {
            fail(failures.size() + " requests failed, e.g.:\n  " + String.join("\n  ", failures.subList(0, Math.min(5, failures.size()))));
        }
        assertTrue(statuses.getOrDefault(200, 0) > 0, "some requests passed the filter: " + statuses);
        assertTrue(statuses.getOrDefault(429, 0) > 0, "some requests were refused by the filter: " + statuses);
        assertEquals(REQUESTS, statuses.values().stream().mapToInt(Integer::intValue).sum());
    }

    /** One raw HTTP/1.1 request with hostile parts. */
    private static byte[] request(HostileValues h, Random r, String forwardedHeader) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String method = r.nextInt(5) == 0 ? "POST" : r.nextInt(20) == 0 ? h.method() : "GET";
        write(out, method + " " + target(h, r) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n", r);
        boolean rfc7239 = forwardedHeader.equals("forwarded");
        for (int i = r.nextInt(3); i > 0; i--) {
            header(out, rfc7239 ? "Forwarded" : "X-Forwarded-For", h.forwardingHeader(rfc7239), r);
        }
        if (r.nextInt(4) == 0) { // the header the proxies do not write: must be ignored
            header(out, rfc7239 ? "X-Forwarded-For" : "Forwarded", h.forwardingHeader(!rfc7239), r);
        }
        if (r.nextInt(3) > 0) {
            header(out, "X-Api-Key", r.nextInt(4) == 0 ? "key-" + r.nextInt(50) : h.next(), r);
        }
        if (r.nextInt(4) == 0) {
            header(out, "X-Plan", r.nextBoolean() ? "gold" : h.next(), r);
        }
        write(out, "Connection: close\r\n\r\n", r);
        return out.toByteArray();
    }

    private static String target(HostileValues h, Random r) {
        switch (r.nextInt(4)) {
            case 0:
                return "/api/hello";
            case 1: // percent-encoded: Tomcat decodes it, so the filter sees the hostile path
                return "/api/" + percentEncode(h.path());
            case 2:
                return h.path(); // raw: often not even a valid request line
            default:
                return "/api/hello?q=" + percentEncode(h.nextSmall());
        }
    }

    private static void header(ByteArrayOutputStream out, String name, String value, Random r) {
        write(out, name + ": " + value + "\r\n", r);
    }

    /** UTF-8 mostly, sometimes Latin-1 (each char one byte, as many clients send). */
    private static void write(ByteArrayOutputStream out, String s, Random r) {
        out.writeBytes(s.getBytes(r.nextInt(3) == 0 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8));
    }

    private static String percentEncode(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~/".indexOf(c) >= 0) {
                sb.append((char) c);
            } else {
                sb.append('%').append(String.format("%02X", c));
            }
        }
        return sb.toString();
    }

    /** Sends the request, half-closes, and returns the status of the answer (-1 when the server closed without one). */
    private static int send(int port, byte[] request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            try {
                out.write(request);
                out.flush();
                s.shutdownOutput();
            } catch (IOException e) {
                // the server may close a connection whose header is too large before reading it all
            }
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int c;
            try {
                while ((c = in.read()) != -1 && c != '\n' && head.size() < 200) {
                    head.write(c);
                }
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                return -1; // reset by the server
            }
            String line = head.toString(StandardCharsets.ISO_8859_1);
            if (!line.startsWith("HTTP/1.1 ") || line.length() < 12) {
                return -1;
            }
            return Integer.parseInt(line.substring(9, 12));
        }
    }

    private static String preview(byte[] request) {
        String s = new String(request, 0, Math.min(request.length, 300), StandardCharsets.ISO_8859_1);
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            sb.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\x%02x", (int) c));
        }
        return sb + (request.length > 300 ? "...(" + request.length + " bytes)" : "");
    }

    /** Tollgate's warnings and errors while the test runs (an internal error is logged, not thrown). */
    private static final class Problems extends Handler implements AutoCloseable {
        private final Logger logger = Logger.getLogger("dev.tollgate");
        private final Logger decisions = Logger.getLogger("dev.tollgate.decision");
        private final boolean decisionsToParent = decisions.getUseParentHandlers();
        private final List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());

        Problems() {
            setLevel(Level.WARNING);
            logger.addHandler(this);
            decisions.setUseParentHandlers(false); // one refusal line per hostile client would drown the test log
        }

        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                records.add(r);
            }
        }

        void assertNone() {
            if (!records.isEmpty()) {
                LogRecord first = records.get(0);
                fail(records.size() + " warnings or errors logged by Tollgate, the first: " + first.getMessage()
                        + (first.getThrown() == null ? "" : " " + first.getThrown()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
            decisions.setUseParentHandlers(decisionsToParent);
        }
    }
}
