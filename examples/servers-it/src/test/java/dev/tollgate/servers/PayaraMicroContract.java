package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A Payara Micro: {@code servlet-app}, and {@code jaxrs-app} on Payara's own Jersey, plus what
 * Payara does with bad configurations. Tollgate reads its settings through Payara's MicroProfile
 * Config. Payara Micro 6 and 7 behave alike here.
 */
abstract class PayaraMicroContract extends ServerContract {

    PayaraMicroContract(AppServer payara) {
        super(payara, App.JAXRS_APP);
    }

    /**
     * TollgateInitializer fails the context's start, so Payara does not load the application: no
     * context (404). (Before it, Payara ran the application without the filter: 200, unlimited.)
     * Payara logs "servlet-app was successfully deployed" first, then the failure, and the
     * application is missing from the "Deployed" list and the URLs of its start banner.
     */
    @Test
    void anInvalidLimitKeepsTheServletAppFromStartingAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = startServletAppWithAnInvalidLimit()) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = bad.get(App.SERVLET_APP.limitedPath());
                assertEquals(404, r.statusCode(), "request " + (i + 1) + " must not be served: " + r.body());
            }
            assertTollgate001(bad, "10/fortnight", "MicroProfile Config source ");
            assertNotLoaded(bad, App.SERVLET_APP);
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /** Jersey's servlet fails to load (TOLLGATE-003), which fails the context: no context (404). */
    @Test
    void anUnknownPolicyKeepsTheJaxRsAppFromStarting() {
        checkThatAnUnknownPolicyStopsTheJaxRsApp(404, bad -> assertNotLoaded(bad, jaxrsApp));
    }

    private static void assertNotLoaded(ServerProcess p, App app) {
        String context = app.deployment().contextPath();
        assertFalse(p.logLines("Startup of context " + context + " failed due to previous errors").isEmpty(),
                "Payara reports that the context did not start");
        assertFalse(p.logLines("Exception while loading the app").isEmpty());
        assertTrue(p.logLines("http://localhost:" + p.httpPort() + context).isEmpty(), "not among the URLs");
    }
}
