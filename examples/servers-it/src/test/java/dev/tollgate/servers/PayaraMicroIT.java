package dev.tollgate.servers;

import org.junit.jupiter.api.Nested;

/**
 * Payara Micro 6 on the build's Java (17).
 */
class PayaraMicroIT extends PayaraMicroContract {

    PayaraMicroIT() {
        super(Servers.payaraMicro());
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(PayaraMicroIT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(PayaraMicroIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class ClientDisconnect extends ClientDisconnectContract {
        ClientDisconnect() {
            super(PayaraMicroIT.this);
        }
    }

    @Nested
    class CdiService extends CdiServiceContract {
        CdiService() {
            super(PayaraMicroIT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class OutboundClient extends OutboundClientContract {
        OutboundClient() {
            super(PayaraMicroIT.this, App.JAXRS_APP);
        }
    }
}
