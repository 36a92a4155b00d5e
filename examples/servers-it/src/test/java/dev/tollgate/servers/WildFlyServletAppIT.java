package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The servlet example on WildFly with its default {@code standalone.xml}, where Tollgate reads its
 * settings through MicroProfile Config (SmallRye). The operator also passes a system property
 * ({@code -Dtollgate.redis.key-prefix}, as in {@code JAVA_OPTS}) next to the environment variable
 * for the same key: the system property must win (ordinal 400 over 300).
 */
class WildFlyServletAppIT extends RateLimitedAppContract {

    private String systemPropertyPrefix;

    WildFlyServletAppIT() {
        super(Servers.wildfly(), App.SERVLET_APP);
    }

    @Override
    protected Launch configure(Launch launch) {
        systemPropertyPrefix = newKeyPrefix("sysprop");
        return launch.systemProperty("tollgate.redis.key-prefix", systemPropertyPrefix);
    }

    @Override
    protected String expectedKeyPrefix() {
        return systemPropertyPrefix;
    }

    /**
     * Undertow initialises a filter at the first request that reaches it, not at deployment, so by
     * default WildFly reports the deployment as successful although the filter cannot start.
     * What must hold all the same: no request under the filter reaches the application, and the
     * log says why. (That the application should not start at all is the next test.)
     */
    @Test
    void withDefaultSettingsAnInvalidLimitRefusesEveryLimitedRequestAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = launch(serverKind, "bad-limits", "10/fortnight", newKeyPrefix("bad")).start()) {
            System.out.println("[servers-it] " + bad.title() + ": deployment marker with an invalid limit: ."
                    + WildFly.deploymentMarker(bad));
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = bad.get(app.limitedPath());
                assertTrue(r.statusCode() == 404 || r.statusCode() >= 500,
                        "request " + (i + 1) + " must not be served, got " + r.statusCode());
                assertFalse(r.headers().firstValue("RateLimit").isPresent());
            }
            assertTollgate001(bad, "10/fortnight", "MicroProfile Config source ");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /**
     * With {@code eager-filter-initialization="true"} on Undertow's servlet container (an operator
     * setting in standalone.xml), the failing filter fails the deployment: {@code .failed} marker
     * naming TOLLGATE-001, and no context.
     */
    @Test
    void withEagerFilterInitialisationAnInvalidLimitFailsTheDeployment() throws IOException {
        try (ServerProcess bad = launch(Servers.wildflyEagerFilters(), "bad-limits", "10/fortnight",
                newKeyPrefix("bad")).start()) {
            assertEquals("failed", WildFly.deploymentMarker(bad));
            String why = WildFly.failedMarkerText(bad);
            assertTrue(why.contains("TOLLGATE-001"), why);
            assertEquals(404, bad.get(app.limitedPath()).statusCode(), "the context must not be available");
            assertTollgate001(bad, "10/fortnight", "MicroProfile Config source ");
        }
    }
}
