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
 * What a client of a micro-deployment sees, the same for the JAX-RS filter, the servlet filter and
 * the interceptor's mapper: {@link MicroDeployments#BURST} calls pass with the standard
 * {@code RateLimit} fields counting down, the next one gets the standard 429.
 */
final class RateLimitedHttp {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private RateLimitedHttp() {
    }

    static void assertLimitedAfterBurst(URI uri) throws IOException, InterruptedException {
        String policy = '"' + MicroDeployments.POLICY + '"';
        String declared = policy + ";q=" + MicroDeployments.BURST + ";w=3600";
        for (int left = MicroDeployments.BURST - 1; left >= 0; left--) {
            HttpResponse<String> ok = get(uri);
            assertEquals(200, ok.statusCode(), () -> "passes within the burst: " + describe(ok));
            assertEquals("pong", ok.body().strip());
            assertEquals(declared, header(ok, "RateLimit-Policy"), () -> describe(ok));
            assertTrue(header(ok, "RateLimit").startsWith(policy + ";r=" + left + ";t="), () -> describe(ok));
        }
        HttpResponse<String> refused = get(uri);
        assertEquals(429, refused.statusCode(), () -> "refused after the burst: " + describe(refused));
        assertEquals(declared, header(refused, "RateLimit-Policy"), () -> describe(refused));
        assertTrue(header(refused, "RateLimit").startsWith(policy + ";r=0;t="), () -> describe(refused));
        long retryAfterSeconds = Long.parseLong(header(refused, "Retry-After"));
        assertTrue(retryAfterSeconds >= 1 && retryAfterSeconds <= 3600, () -> describe(refused));
        assertTrue(header(refused, "Content-Type").startsWith("application/problem+json"), () -> describe(refused));
        assertTrue(refused.body().contains("\"violated-policies\":[" + policy + "]"), () -> describe(refused));
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
