package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * GlassFish 7 on the build's Java (17): {@code servlet-app} and {@code jaxrs-app} (on GlassFish's own
 * Jersey, Weld and MicroProfile Config) in the main start, configured through the environment; the
 * servlet drop-in jar in the domain's {@code lib/}; what GlassFish does with bad configurations.
 */
class GlassFishIT extends ServerContract {

    GlassFishIT() {
        super(GlassFish.fromBuild(), App.JAXRS_APP);
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(GlassFishIT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(GlassFishIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class CdiService extends CdiServiceContract {
        CdiService() {
            super(GlassFishIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class ClientDisconnect extends ClientDisconnectContract {
        ClientDisconnect() {
            super(GlassFishIT.this);
        }
    }

    @Nested
    class OutboundClient extends OutboundClientContract {
        OutboundClient() {
            super(GlassFishIT.this, App.JAXRS_APP);
        }
    }

    /**
     * The drop-in jar in the domain's {@code lib/}, a WAR with only a {@code web.xml} naming the
     * filter ({@code 1/s burst 4}), Redis through the environment: 12 quick requests admit the burst
     * (one more if a second passed meanwhile), the rest are 429, and the bucket is in Redis under the
     * operator's prefix and the application's namespace.
     */
    @Test
    void theDropInJarInTheDomainsLibLimitsAWarWithoutTollgateInside() throws IOException {
        Deployment war = SharedLibWar.write(Build.workDir().resolve("glassfish-drop-in-wars"), "plain", "1/s burst 4");
        String prefix = newKeyPrefix("dropin");
        Launch launch = Launch.of(((GlassFish) serverKind).withDomainLib(
                        Build.libsDir().resolve("tollgate-filter-servlet-all.jar")), war, "drop-in")
                .env("TOLLGATE_REDIS_URI", redis().uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", prefix)
                .env("TOLLGATE_REDIS_TIMEOUT", "2s");
        try (ServerProcess glassfish = launch.start()) {
            assertEquals("deployed", GlassFish.deploymentMarker(glassfish, war));
            int admitted = SharedLibWar.admitted(glassfish, war, 12);
            System.out.printf("[servers-it] %s: 12 quick requests, 1/s burst 4: %d admitted%n", glassfish.title(), admitted);
            assertTrue(admitted >= 4 && admitted <= 5, "the burst of 4 (and one refill at most): " + admitted);
            assertFalse(glassfish.logLines("TOLLGATE-010").isEmpty(), "Tollgate logs its start");
            List<String> keys = redis().command("KEYS", prefix + "*").lines().toList();
            assertTrue(keys.stream().anyMatch(k -> k.startsWith(prefix + "/plain:") && k.endsWith(":default")),
                    "a bucket of /plain under the operator's prefix: " + keys);
        }
    }

    /**
     * TollgateInitializer fails the application's start: the autodeployer marks the WAR
     * {@code _deployFailed}, there is no context (404), and the log names key, value and source.
     */
    @Test
    void anInvalidLimitFailsTheServletAppsDeployment() {
        try (ServerProcess bad = startServletAppWithAnInvalidLimit()) {
            assertEquals("failed", GlassFish.deploymentMarker(bad, App.SERVLET_APP.deployment()));
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = bad.get(App.SERVLET_APP.limitedPath());
                assertEquals(404, r.statusCode(), "request " + (i + 1) + " must not be served: " + r.body());
            }
            assertTollgate001(bad, "10/fortnight", "MicroProfile Config source Environment Variables");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /** Jersey's servlet fails to load (TOLLGATE-003), which fails the deployment: {@code _deployFailed}, no context (404). */
    @Test
    void anUnknownPolicyFailsTheJaxRsAppsDeployment() {
        checkThatAnUnknownPolicyStopsTheJaxRsApp(404,
                bad -> assertEquals("failed", GlassFish.deploymentMarker(bad, jaxrsApp.deployment())));
    }
}
