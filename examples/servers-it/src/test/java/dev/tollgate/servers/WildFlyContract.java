package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/**
 * A WildFly with its default {@code standalone.xml}: {@code servlet-app}, and {@code jaxrs-app} on
 * WildFly's own RESTEasy, plus what WildFly does with bad configurations. Tollgate reads its
 * settings through WildFly's MicroProfile Config (SmallRye). The operator also passes a system
 * property ({@code -Dtollgate.redis.key-prefix}, as in {@code JAVA_OPTS}) next to the environment
 * variable for the same key: the system property must win (ordinal 400 over 300).
 */
abstract class WildFlyContract extends ServerContract {

    WildFlyContract(AppServer wildfly) {
        super(wildfly, App.JAXRS_APP);
    }

    @Override
    protected boolean prefixAlsoAsSystemProperty() {
        return true;
    }

    /**
     * Undertow starts filters at the first request, but TollgateInitializer checks the
     * configuration while the application deploys: the deployment fails ({@code .failed} marker
     * naming TOLLGATE-001), and there is no context (404).
     */
    @Test
    void anInvalidLimitFailsTheServletAppsDeployment() throws IOException {
        try (ServerProcess bad = startServletAppWithAnInvalidLimit()) {
            assertEquals("failed", WildFly.deploymentMarker(bad));
            String why = WildFly.failedMarkerText(bad);
            assertTrue(why.contains("TOLLGATE-001"), why);
            System.out.println("[servers-it] " + bad.title() + ": servlet-app.war.failed: " + why.strip());
            assertEquals(404, bad.get(App.SERVLET_APP.limitedPath()).statusCode(), "the context must not be available");
            assertTollgate001(bad, "10/fortnight", "MicroProfile Config source ");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /**
     * RESTEasy configures its providers while the deployment starts, so TOLLGATE-003 fails the
     * deployment: {@code .failed} marker naming it, no context (404).
     */
    @Test
    void anUnknownPolicyFailsTheJaxRsAppsDeployment() {
        checkThatAnUnknownPolicyStopsTheJaxRsApp(404, bad -> {
            assertEquals("failed", WildFly.deploymentMarker(bad));
            String why;
            try {
                why = WildFly.failedMarkerText(bad);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertTrue(why.contains("TOLLGATE-003"), why);
        });
    }
}
