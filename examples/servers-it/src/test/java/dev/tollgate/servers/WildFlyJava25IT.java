package dev.tollgate.servers;

import org.junit.jupiter.api.Nested;

/**
 * {@link WildFlyIT}'s tests, with the same WildFly on Java 25 (the JDK {@link Jdk} finds). Skipped,
 * loudly, where this machine has no JDK 25.
 */
class WildFlyJava25IT extends WildFlyContract {

    WildFlyJava25IT() {
        super(Servers.wildflyOnJava25());
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(WildFlyJava25IT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(WildFlyJava25IT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class CdiService extends CdiServiceContract {
        CdiService() {
            super(WildFlyJava25IT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class OutboundClient extends OutboundClientContract {
        OutboundClient() {
            super(WildFlyJava25IT.this, App.JAXRS_APP);
        }
    }
}
