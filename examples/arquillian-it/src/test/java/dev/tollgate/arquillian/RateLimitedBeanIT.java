package dev.tollgate.arquillian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.cdi.RateLimitExceededException;
import jakarta.inject.Inject;
import java.net.URL;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The CDI interceptor in the server's own CDI (Weld in both): a bean method limited by its
 * {@code @RateLimitKey} argument, called inside the server through an injected bean, and over HTTP
 * from a resource, where {@code RateLimitExceededMapper} writes the filters' 429. Each test uses
 * tenants of its own, so their buckets never meet.
 */
@ExtendWith(ArquillianExtension.class)
class RateLimitedBeanIT {

    @Deployment
    static WebArchive deployment() {
        return MicroDeployments.war("cdi-interceptor")
                .addClasses(TenantExports.class, ExportResource.class, ExportApplication.class);
    }

    @Inject
    TenantExports exports;

    @Test
    void aTenantIsRefusedAfterItsBurstWhileAnotherTenantStillPasses() {
        for (int i = 0; i < MicroDeployments.BURST; i++) {
            assertEquals("export of acme", exports.export("acme"));
        }
        RateLimitExceededException refused = assertThrows(RateLimitExceededException.class, () -> exports.export("acme"));
        assertEquals(List.of(MicroDeployments.POLICY), refused.policies());
        assertEquals(429, refused.answer().status());
        assertTrue(refused.retryAfterSeconds() >= 1 && refused.retryAfterSeconds() <= 3600, refused::getMessage);

        assertEquals("export of globex", exports.export("globex"));
    }

    @Test
    @RunAsClient
    void overHttpTheMapperAnswersTheFiltersStandard429(@ArquillianResource URL base) throws Exception {
        RateLimitedHttp.assertRefusedAfterBurst(base.toURI().resolve("api/export/initech"));
    }
}
