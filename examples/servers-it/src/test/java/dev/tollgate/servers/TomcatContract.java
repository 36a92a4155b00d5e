package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A Tomcat with {@code servlet-app} and {@code jaxrs-app-tomcat} (Jersey and SmallRye Config
 * inside the WAR: Tomcat has neither), plus what Tomcat does with bad configurations. The servlet
 * application has no MicroProfile Config: Tollgate reads the environment and system properties
 * itself there.
 */
abstract class TomcatContract extends ServerContract {

    TomcatContract(AppServer tomcat) {
        super(tomcat, App.JAXRS_APP_TOMCAT);
    }

    /** TollgateInitializer fails the context's start: it is not there (404), and the log says why. */
    @Test
    void anInvalidLimitKeepsTheServletAppFromStartingAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = startServletAppWithAnInvalidLimit()) {
            assertEquals(404, bad.get(App.SERVLET_APP.limitedPath()).statusCode(), "the context must not be available");
            assertTollgate001(bad, "10/fortnight", "environment variable TOLLGATE_POLICY_DEFAULT_LIMITS");
            assertFalse(bad.logLines("Context [" + App.SERVLET_APP.deployment().contextPath() + "] startup failed").isEmpty(),
                    "Tomcat reports that the context did not start");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /**
     * Jersey's servlet fails to load at start-up (TOLLGATE-003), but Tomcat starts a context whose
     * servlet failed ({@code failCtxIfServletStartFails} is false by default): every request under
     * {@code /api} gets 500 as Tomcat tries to start the servlet again, which Jersey then refuses
     * with "The resource configuration is not modifiable in this context". TOLLGATE-003 is logged
     * once; the servlet's failure goes to {@code logs/localhost.<date>.log}, not to the console.
     */
    @Test
    void anUnknownPolicyStopsTheJaxRsApp() {
        checkThatAnUnknownPolicyStopsTheJaxRsApp(500, bad -> {
            assertEquals(List.of(), bad.logLines("Context [" + jaxrsApp.deployment().contextPath() + "] startup failed"),
                    "Tomcat starts the context all the same");
            String localhostLog = localhostLog(bad);
            assertTrue(localhostLog.contains("in web application [/jaxrs-app] threw load() exception"), localhostLog);
            assertTrue(localhostLog.contains("The resource configuration is not modifiable in this context"), localhostLog);
        });
    }

    /** Tomcat's {@code logs/localhost.<date>.log}: what the context logs, stack traces included. */
    private static String localhostLog(ServerProcess p) {
        try (Stream<Path> files = Files.list(p.base().resolve("logs"))) {
            Path log = files.filter(f -> f.getFileName().toString().startsWith("localhost.")).findFirst()
                    .orElseThrow(() -> new AssertionError("no logs/localhost.*.log in " + p.base()));
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
