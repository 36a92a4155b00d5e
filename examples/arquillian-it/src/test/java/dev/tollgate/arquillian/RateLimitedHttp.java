package dev.tollgate.arquillian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What a client of a micro-deployment sees: {@link MicroDeployments#BURST} calls pass, the next
 * one gets the standard 429 (status, {@code RateLimit-Policy}, {@code RateLimit},
 * {@code Retry-After}, problem body), the same from the JAX-RS filter, the servlet filter and the
 * interceptor's mapper. Stateless; thread-safe.
 */
final class RateLimitedHttp {

    /** The policy's name as the fields quote it, and its declaration: burst 3, an hour to fill. */
    private static final String POLICY = '"' + MicroDeployments.POLICY + '"';
    private static final String DECLARED = POLICY + ";q=" + MicroDeployments.BURST + ";w=3600";

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private RateLimitedHttp() {
    }

    /** The filters: each call within the burst carries the {@code RateLimit} fields counting down, then the standard 429. */
    static void assertLimitedAfterBurst(URI uri) throws IOException, InterruptedException {
        for (int left = MicroDeployments.BURST - 1; left >= 0; left--) {
            HttpResponse<String> ok = get(uri);
            assertEquals(200, ok.statusCode(), () -> "passes within the burst: " + describe(ok));
            assertEquals("pong", ok.body().strip());
            assertEquals(DECLARED, header(ok, "RateLimit-Policy"), () -> describe(ok));
            assertTrue(header(ok, "RateLimit").startsWith(POLICY + ";r=" + left + ";t="), () -> describe(ok));
        }
        assertStandardRefusal(get(uri));
    }

    /**
     * The interceptor behind a resource: the calls within the burst pass (the interceptor has no
     * response to put fields on), then the mapper writes the filters' standard 429.
     */
    static void assertRefusedAfterBurst(URI uri) throws IOException, InterruptedException {
        for (int i = 0; i < MicroDeployments.BURST; i++) {
            HttpResponse<String> ok = get(uri);
            assertEquals(200, ok.statusCode(), () -> "passes within the burst: " + describe(ok));
        }
        assertStandardRefusal(get(uri));
    }

    private static void assertStandardRefusal(HttpResponse<String> refused) {
        assertEquals(429, refused.statusCode(), () -> "refused after the burst: " + describe(refused));
        assertEquals(DECLARED, header(refused, "RateLimit-Policy"), () -> describe(refused));
        assertTrue(header(refused, "RateLimit").startsWith(POLICY + ";r=0;t="), () -> describe(refused));
        long retryAfterSeconds = Long.parseLong(header(refused, "Retry-After"));
        assertTrue(retryAfterSeconds >= 1 && retryAfterSeconds <= 3600, () -> describe(refused));
        assertTrue(header(refused, "Content-Type").startsWith("application/problem+json"), () -> describe(refused));
        assertTrue(refused.body().contains("\"violated-policies\":[" + POLICY + "]"), () -> describe(refused));
    }

    static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse("(no " + name + ")");
    }

    private static String describe(HttpResponse<String> response) {
        return response.statusCode() + " " + response.headers().map() + " " + response.body();
    }
}
