package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The CDI example of {@code examples/jaxrs-app} on a server's main start (WildFly and Payara Micro,
 * whose CDI is Weld): {@code GET /api/reports/{tenant}} calls {@code ReportService.export(@RateLimitKey
 * String tenant)}, {@code @RateLimited("exports")} with {@code 3/h} from the application's
 * {@code microprofile-config.properties}. The server's Weld runs Tollgate's interceptor (added by its
 * extension, enabled by its {@code @Priority}), the interceptor shares the JAX-RS feature's limiter,
 * and {@code RateLimitExceededMapper} answers the refusal as the filters do. Tenants are new for
 * each run, so their buckets start full.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ServerDiagnostics.class)
public abstract class CdiServiceContract {

    private static final int EXPORTS_PER_HOUR = 3;
    private final ServerContract on;
    private final App app;

    protected CdiServiceContract(ServerContract on, App app) {
        this.on = on;
        this.app = app;
    }

    private HttpResponse<String> export(String tenant) {
        return on.server().get(app.deployment(), "/api/reports/" + tenant);
    }

    @Test
    void aTenantGetsItsExportsThenTheMappers429AndAnotherTenantStillPasses() {
        String a = "acme-" + UUID.randomUUID().toString().substring(0, 8);
        String b = "globex-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < EXPORTS_PER_HOUR; i++) {
            HttpResponse<String> r = export(a);
            assertEquals(200, r.statusCode(), () -> "export " + a + ": " + r.body());
            assertEquals("report of " + a, r.body().strip());
        }
        HttpResponse<String> refused = export(a);
        assertEquals(429, refused.statusCode(), () -> "the fourth export of " + a + ": " + refused.body());
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter > 1_000 && retryAfter <= 1_201, "a token each 20 min: Retry-After " + retryAfter);
        String type = refused.headers().firstValue("Content-Type").orElseThrow().replace(" ", "").toLowerCase(Locale.ROOT);
        assertTrue(type.startsWith("application/problem+json"), type);
        assertTrue(refused.body().contains("\"status\":429"), refused.body());
        assertTrue(refused.body().contains("\"violated-policies\":[\"exports\"]"), refused.body());
        assertEquals("\"exports\";q=3;w=3600", refused.headers().firstValue("RateLimit-Policy").orElseThrow());

        HttpResponse<String> other = export(b);
        assertEquals(200, other.statusCode(), () -> "another tenant: " + other.body());

        String key = on.expectedKeyPrefix() + app.keyNamespace() + "{arg=" + a + "}:exports";
        assertEquals("1", on.redis().command("EXISTS", key).strip(), "the tenant's bucket in Redis: " + key);
        System.out.println("[servers-it] " + on.server().title() + ": CDI ReportService#export, tenant " + a + ": "
                + EXPORTS_PER_HOUR + " x 200, then " + refused.statusCode() + " " + refused.headers().map() + " "
                + refused.body());
    }

    /**
     * {@code GET /api/reports} calls {@code ReportService.catalogue()}, which has no key argument: in
     * an HTTP request the interceptor reads the request (through the server's CDI
     * {@code HttpServletRequest} bean) and the {@code reports} policy keys it by the client's address,
     * as the filters would: {@code 30/h burst 3}, so the fourth call of a quick four is refused.
     */
    @Test
    void withoutAKeyArgumentTheCallIsKeyedByTheRequestsClient() {
        String key = on.expectedKeyPrefix() + app.keyNamespace() + "{ip=127.0.0.1}:reports";
        on.redis().command("DEL", key);
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = on.server().get(app.deployment(), "/api/reports");
            assertEquals(200, r.statusCode(), () -> "catalogue: " + r.body());
            assertEquals("daily, monthly", r.body().strip());
        }
        HttpResponse<String> refused = on.server().get(app.deployment(), "/api/reports");
        assertEquals(429, refused.statusCode(), refused::body);
        assertTrue(refused.body().contains("\"violated-policies\":[\"reports\"]"), refused.body());
        assertEquals("1", on.redis().command("EXISTS", key).strip(), "the client's bucket in Redis: " + key);
    }

    /** One engine per application: the interceptor decides with the JAX-RS feature's limiter, and starts none of its own. */
    @Test
    void theInterceptorSharesTheApplicationsLimiter() {
        assertEquals(200, export("initech-" + UUID.randomUUID().toString().substring(0, 8)).statusCode());
        List<String> own = on.server().logLines("Tollgate 'cdi' on");
        assertEquals(List.of(), own, "a limiter of the interceptor's own in " + on.server().title());
    }
}
