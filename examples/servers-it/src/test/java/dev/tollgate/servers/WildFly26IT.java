package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * WildFly 26.1 (Java EE 8: Servlet 4, JAX-RS 2.1 on RESTEasy 4, CDI 2.0 on Weld 3, MicroProfile
 * Config) on the build's Java (17), with both examples as the build transformed them to javax: the
 * servlet contract, the JAX-RS contract (route templates, two policies, the login policy), and the
 * CDI interceptor of {@code ReportService}, as on the current WildFly. Settings through the
 * environment and one system property (which must win), as in {@link WildFlyContract}.
 */
class WildFly26IT extends ServerContract {

    WildFly26IT() {
        super(Javax.wildfly26(), Javax.JAXRS_APP);
    }

    @Override
    protected List<App> mainApps() {
        return List.of(Javax.SERVLET_APP, Javax.JAXRS_APP);
    }

    @Override
    protected boolean prefixAlsoAsSystemProperty() {
        return true;
    }

    @Test
    void bothJavaxApplicationsAreDeployed() {
        for (App app : mainApps()) {
            assertEquals("deployed", WildFly.deploymentMarker(server(), app.deployment()), app.warFile());
        }
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(WildFly26IT.this, Javax.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(WildFly26IT.this, Javax.JAXRS_APP);
        }
    }

    @Nested
    class CdiService extends CdiServiceContract {
        CdiService() {
            super(WildFly26IT.this, Javax.JAXRS_APP);
        }
    }
}
