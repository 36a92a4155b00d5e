package dev.tollgate.servers;

import org.junit.jupiter.api.Nested;

/**
 * WildFly on the build's Java (17).
 */
class WildFlyIT extends WildFlyContract {

    WildFlyIT() {
        super(Servers.wildfly());
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(WildFlyIT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(WildFlyIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class ClientDisconnect extends ClientDisconnectContract {
        ClientDisconnect() {
            super(WildFlyIT.this);
        }
    }

    @Nested
    class CdiService extends CdiServiceContract {
        CdiService() {
            super(WildFlyIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class OutboundClient extends OutboundClientContract {
        OutboundClient() {
            super(WildFlyIT.this, App.JAXRS_APP);
        }
    }
}
