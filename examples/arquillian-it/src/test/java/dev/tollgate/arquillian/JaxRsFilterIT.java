package dev.tollgate.arquillian;

import java.net.URL;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A {@code @RateLimited} JAX-RS resource in the server's own JAX-RS (RESTEasy, Jersey), configured through MicroProfile Config. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class JaxRsFilterIT {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployments.war("jaxrs-filter").addClasses(PingApplication.class, PingResource.class);
    }

    @ArquillianResource
    URL base;

    @Test
    void refusesWithTheStandard429AfterItsLimit() throws Exception {
        RateLimitedHttp.assertLimitedAfterBurst(base.toURI().resolve("api/ping"));
    }
}
