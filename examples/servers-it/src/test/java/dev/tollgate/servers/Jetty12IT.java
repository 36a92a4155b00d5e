package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Jetty 12 in its {@code ee10} environment (Servlet 6.0), configured by environment variables only:
 * {@code servlet-app}, {@code jaxrs-app-tomcat} (Jersey and SmallRye Config inside the WAR, as on
 * Tomcat: Jetty's distribution has no JAX-RS, CDI or MicroProfile Config unless an operator adds
 * modules for them, so the CDI examples do not run here), and the servlet drop-in jar in a WAR of
 * its own. The servlet application has no MicroProfile Config: Tollgate reads the environment and
 * system properties itself.
 */
class Jetty12IT extends ServerContract {

    Jetty12IT() {
        super(Servers.jetty12(), App.JAXRS_APP_TOMCAT);
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(Jetty12IT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(Jetty12IT.this, App.JAXRS_APP_TOMCAT);
        }
    }

    @Nested
    class DropInJar extends DropInJarContract {
        DropInJar() {
            super(Jetty12IT.this);
        }
    }

    /**
     * TollgateInitializer fails the context's start: Jetty logs the failure, goes on starting the
     * server, and answers the context's requests with 503, never reaching the application.
     */
    @Test
    void anInvalidLimitKeepsTheServletAppFromStartingAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = startServletAppWithAnInvalidLimit()) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = bad.get(App.SERVLET_APP.limitedPath());
                assertNotServed(r, "request " + (i + 1));
                assertEquals(503, r.statusCode(), "request " + (i + 1) + ": " + r.body());
            }
            assertTollgate001(bad, "10/fortnight", "environment variable TOLLGATE_POLICY_DEFAULT_LIMITS");
            assertFalse(bad.logLines("Failed startup of context").stream().filter(l -> l.contains(",/servlet-app,")).toList()
                    .isEmpty(), "Jetty reports that /servlet-app did not start");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /**
     * Jersey's servlet fails to load at start-up (TOLLGATE-003), and, unlike Tomcat, Jetty fails the
     * whole context with it: 503 for every request.
     */
    @Test
    void anUnknownPolicyStopsTheJaxRsApp() {
        checkThatAnUnknownPolicyStopsTheJaxRsApp(503, bad -> assertFalse(
                bad.logLines("Failed startup of context").stream().filter(l -> l.contains(",/jaxrs-app,")).toList().isEmpty(),
                "Jetty reports that /jaxrs-app did not start"));
    }
}
