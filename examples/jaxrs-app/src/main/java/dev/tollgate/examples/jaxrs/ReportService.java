package dev.tollgate.examples.jaxrs;

import dev.tollgate.cdi.RateLimitKey;
import dev.tollgate.cdi.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A service any code can call (a resource, a JMS listener, a scheduled job), limited per tenant by
 * the {@code exports} policy: the tenant argument is the client key, whoever calls. A refusal is a
 * {@code RateLimitExceededException}, which {@code RateLimitExceededMapper} answers with the
 * filters' 429 when a resource called it.
 */
@ApplicationScoped
public class ReportService {

    @RateLimited("exports")
    public String export(@RateLimitKey String tenant) {
        return "report of " + tenant;
    }
}
