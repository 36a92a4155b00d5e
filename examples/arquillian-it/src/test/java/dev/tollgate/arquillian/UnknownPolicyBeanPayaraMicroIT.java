package dev.tollgate.arquillian;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link UnknownPolicyBeanIT} as Payara Micro can show it: Payara Micro fails the WAR
 * ({@code CDI deployment failure: TOLLGATE-003 ...} in its log) and boots without it, and its
 * Arquillian adapter (3.1) reports that boot as a deployment. So this checks what a client sees:
 * the WAR, which holds a resource that answers 200 wherever it is deployed (as in
 * {@link RateLimitedBeanIT}), is not served; its context answers 404.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class UnknownPolicyBeanPayaraMicroIT {

    private static final String WAR = "cdi-unknown-policy";

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployments.war(WAR)
                .addClasses(MisnamedLimit.class, TenantExports.class, ExportResource.class, ExportApplication.class);
    }

    @ArquillianResource
    URL server;

    @Test
    void theApplicationIsNotServed() throws Exception {
        var response = RateLimitedHttp.get(server.toURI().resolve("/" + WAR + "/api/export/acme"));
        assertEquals(404, response.statusCode(), () -> "the WAR is not deployed: " + response.statusCode() + " " + response.body());
    }
}
