package dev.tollgate.arquillian;

import dev.tollgate.cdi.RateLimitKey;
import dev.tollgate.cdi.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/** A bean whose method is limited per tenant, the tenant being an argument (no HTTP request needed). */
@ApplicationScoped
public class TenantExports {

    @RateLimited(MicroDeployments.POLICY)
    public String export(@RateLimitKey String tenant) {
        return "export of " + tenant;
    }
}
