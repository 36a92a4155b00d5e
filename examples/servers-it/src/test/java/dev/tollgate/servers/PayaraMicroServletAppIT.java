package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** The servlet example on Payara Micro 6, where Tollgate reads its settings through MicroProfile Config. */
class PayaraMicroServletAppIT extends RateLimitedAppContract {

    PayaraMicroServletAppIT() {
        super(Servers.payaraMicro(), App.SERVLET_APP);
    }

    /**
     * The contract: with an invalid limit no request reaches the application. Payara Micro 6 breaks
     * it today: its web container logs the failed {@code Filter.init} (TOLLGATE-001) and starts the
     * application without the filter, so every request passes, unlimited. That needs a change in
     * TollgateFilter (see examples/servers-it/README.md), not in this test; enable it with that change.
     */
    @Disabled("Known gap (examples/servers-it/README.md): Payara starts the application without the filter "
            + "when Filter.init fails, so requests pass unlimited")
    @Test
    void anInvalidLimitNeverLetsARequestThroughAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = launch(serverKind, "bad-limits", "10/fortnight", newKeyPrefix("bad")).start()) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = bad.get(app.limitedPath());
                assertTrue(r.statusCode() == 404 || r.statusCode() >= 500,
                        "request " + (i + 1) + " must not be served, got " + r.statusCode());
            }
            assertTollgate001(bad, "10/fortnight", "MicroProfile Config source ");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }
}
