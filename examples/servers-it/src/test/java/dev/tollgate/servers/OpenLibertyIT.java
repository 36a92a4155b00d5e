package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Open Liberty on the build's Java (17): {@code servlet-app} and {@code jaxrs-app} (on Liberty's own
 * RESTEasy, Weld and SmallRye Config) in the main start, configured through the environment; the
 * servlet drop-in jar in Liberty's global shared library; what Liberty does with a bad limit.
 */
class OpenLibertyIT extends ServerContract {

    OpenLibertyIT() {
        super(OpenLiberty.fromBuild(), App.JAXRS_APP);
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(OpenLibertyIT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(OpenLibertyIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class CdiService extends CdiServiceContract {
        CdiService() {
            super(OpenLibertyIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class ClientDisconnect extends ClientDisconnectContract {
        ClientDisconnect() {
            super(OpenLibertyIT.this);
        }
    }

    @Nested
    class OutboundClient extends OutboundClientContract {
        OutboundClient() {
            super(OpenLibertyIT.this, App.JAXRS_APP);
        }
    }

    /**
     * The drop-in jar in {@code lib/global}, a WAR with only a {@code web.xml} naming the filter
     * ({@code 1/s burst 4}), Redis through the environment: 12 quick requests admit the burst (one
     * more if a second passed meanwhile), the rest are 429, and the bucket is in Redis under the
     * operator's prefix and the application's namespace.
     */
    @Test
    void theDropInJarInLibertysGlobalLibraryLimitsAWarWithoutTollgateInside() throws IOException {
        Deployment war = SharedLibWar.write(Build.workDir().resolve("openliberty-drop-in-wars"), "plain", "1/s burst 4");
        String prefix = newKeyPrefix("dropin");
        Launch launch = Launch.of(((OpenLiberty) serverKind).withGlobalLib(
                        Build.libsDir().resolve("tollgate-filter-servlet-all.jar")), war, "drop-in")
                .env("TOLLGATE_REDIS_URI", redis().uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", prefix)
                .env("TOLLGATE_REDIS_TIMEOUT", "2s");
        try (ServerProcess liberty = launch.start()) {
            assertEquals("started", OpenLiberty.applicationOutcome(liberty, war));
            int admitted = SharedLibWar.admitted(liberty, war, 12);
            System.out.printf("[servers-it] %s: 12 quick requests, 1/s burst 4: %d admitted%n", liberty.title(), admitted);
            assertTrue(admitted >= 4 && admitted <= 5, "the burst of 4 (and one refill at most): " + admitted);
            assertFalse(liberty.logLines("TOLLGATE-010").isEmpty(), "Tollgate logs its start");
            List<String> keys = redis().command("KEYS", prefix + "*").lines().toList();
            assertTrue(keys.stream().anyMatch(k -> k.startsWith(prefix + "/plain:") && k.endsWith(":default")),
                    "a bucket of /plain under the operator's prefix: " + keys);
        }
    }

    /**
     * Liberty does not fail an application whose ServletContainerInitializer throws: it logs
     * {@code CWWWC0001W} naming TollgateInitializer and starts the application all the same
     * ({@code CWWKZ0001I}). The filter then refuses to initialise (TOLLGATE-001 again) at each
     * request it would cover, so those requests fail (5xx, never served unlimited); the log names
     * key, value and source.
     */
    @Test
    void anInvalidLimitKeepsTheServletAppFromServingAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = startServletAppWithAnInvalidLimit()) {
            assertEquals("started", OpenLiberty.applicationOutcome(bad, App.SERVLET_APP.deployment()),
                    "Liberty starts the application despite its initializer's failure");
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = bad.get(App.SERVLET_APP.limitedPath());
                statuses.add(r.statusCode());
                assertNotServed(r, "request " + (i + 1));
            }
            System.out.println("[servers-it] " + bad.title() + ": with an invalid limit, " + App.SERVLET_APP.limitedPath()
                    + " answered " + statuses);
            assertTollgate001(bad, "10/fortnight", "MicroProfile Config source EnvConfigSource");
            assertTrue(bad.logLines("CWWWC0001W").stream().anyMatch(l -> l.contains("TollgateInitializer")),
                    "Liberty reports the initializer's failure");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /**
     * TOLLGATE-003 fails the JAX-RS application's servlet, but Liberty has started the application
     * ({@code CWWKZ0001I}): every request to it gets 500.
     */
    @Test
    void anUnknownPolicyStopsTheJaxRsApp() {
        checkThatAnUnknownPolicyStopsTheJaxRsApp(500,
                bad -> assertEquals("started", OpenLiberty.applicationOutcome(bad, jaxrsApp.deployment())));
    }
}
