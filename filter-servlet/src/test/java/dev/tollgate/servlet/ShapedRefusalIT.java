package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.WithRedis;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** A policy's shaped refusal through the filter in a real embedded Tomcat, over a real Redis. */
@WithRedis
class ShapedRefusalIT {

    @Test
    void aPolicyShapedLikeNginxAnswers503WithItsTypeTitleAndHeaders(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), TollgateFilterIT.params(redis,
                "tollgate.policies", "partner,site",
                "tollgate.policy.partner.limits", "1/min",
                "tollgate.policy.partner.refusal-status", "503",
                "tollgate.policy.partner.refusal-type", "https://example.com/problems/partner-quota",
                "tollgate.policy.partner.refusal-title", "Partner quota used up",
                "tollgate.policy.partner.refusal-headers", "X-Reason: quota; Cache-Control: no-store",
                "tollgate.policy.site.limits", "1/min"))) {
            assertEquals(200, t.get("/api/hello").statusCode());
            HttpResponse<String> r = t.get("/api/hello");
            assertEquals(503, r.statusCode(), "both policies refuse; partner comes first in tollgate.policies");
            assertEquals("quota", r.headers().firstValue("X-Reason").orElseThrow());
            assertEquals("no-store", r.headers().firstValue("Cache-Control").orElseThrow());
            assertTrue(Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow()) >= 1);
            assertTrue(r.body().startsWith("{\"type\":\"https://example.com/problems/partner-quota\","
                    + "\"title\":\"Partner quota used up\",\"status\":503,"), r.body());
            assertTrue(r.body().contains("\"violated-policies\":[\"partner\",\"site\"]"), r.body());
            assertEquals(1, t.servletCalls.get(), "the refused request never reached the servlet");
        }
    }

    @Test
    void anUnshapedPolicyFirstInOrderKeepsTheStandard429(RedisEndpoint redis) throws Exception {
        try (EmbeddedTomcat t = new EmbeddedTomcat(new TollgateFilter(), TollgateFilterIT.params(redis,
                "tollgate.policies", "site,partner",
                "tollgate.policy.site.limits", "1/min",
                "tollgate.policy.partner.limits", "1/min",
                "tollgate.policy.partner.refusal-status", "503",
                "tollgate.policy.partner.refusal-headers", "X-Reason: quota"))) {
            t.get("/api/hello");
            HttpResponse<String> r = t.get("/api/hello");
            assertEquals(429, r.statusCode());
            assertTrue(r.headers().firstValue("X-Reason").isEmpty());
            assertTrue(r.body().startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                    + "\"title\":\"Request cannot be satisfied as assigned quota has been exceeded\",\"status\":429,"),
                    r.body());
        }
    }
}
