package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * The servlet example on a Tomcat, plus what Tomcat does with a bad value: the filter's
 * {@code init} fails, so Tomcat does not start the context, and the context is not there (404).
 * Tomcat has no MicroProfile Config: Tollgate reads the environment and system properties itself.
 */
abstract class TomcatServletAppContract extends RateLimitedAppContract {

    TomcatServletAppContract(AppServer tomcat) {
        super(tomcat, App.SERVLET_APP);
    }

    @Test
    void anInvalidLimitKeepsTheApplicationFromStartingAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = launch(serverKind, "bad-limits", "10/fortnight", newKeyPrefix("bad")).start()) {
            assertEquals(404, bad.get(app.limitedPath()).statusCode(), "the context must not be available");
            assertTollgate001(bad, "10/fortnight", "environment variable TOLLGATE_POLICY_DEFAULT_LIMITS");
            assertFalse(bad.logLines("Context [" + app.deployment().contextPath() + "] startup failed").isEmpty(),
                    "Tomcat reports that the context did not start");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }
}
