package dev.tollgate.examples.jaxrs;

import dev.tollgate.cdi.RateLimitKey;
import dev.tollgate.cdi.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A service any code can call (a resource, a JMS listener, a scheduled job). {@code export} is
 * limited per tenant by the {@code exports} policy: the tenant argument is the client key, whoever
 * calls. {@code catalogue} has no key argument: in an HTTP request the {@code reports} policy keys
 * it by the client's address, as the filters would. A refusal is a
 * {@code RateLimitExceededException}, which {@code RateLimitExceededMapper} answers with the
 * filters' 429 when a resource called it.
 */
@ApplicationScoped
public class ReportService {

    @RateLimited("exports")
    public String export(@RateLimitKey String tenant) {
        return "report of " + tenant;
    }

    @RateLimited("reports")
    public String catalogue() {
        return "daily, monthly";
    }
}
