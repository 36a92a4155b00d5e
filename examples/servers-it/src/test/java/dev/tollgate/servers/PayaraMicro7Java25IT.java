package dev.tollgate.servers;

import org.junit.jupiter.api.Nested;

/**
 * Payara Micro 7 (Jakarta EE 11, which needs Java 21 or later) on Java 25 (the JDK {@link Jdk}
 * finds), with {@link PayaraMicroIT}'s tests. Skipped, loudly, where this machine has no JDK 25.
 */
class PayaraMicro7Java25IT extends PayaraMicroContract {

    PayaraMicro7Java25IT() {
        super(Servers.payaraMicro7OnJava25());
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(PayaraMicro7Java25IT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(PayaraMicro7Java25IT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class CdiService extends CdiServiceContract {
        CdiService() {
            super(PayaraMicro7Java25IT.this, App.JAXRS_APP);
        }
    }

    @Nested
    class OutboundClient extends OutboundClientContract {
        OutboundClient() {
            super(PayaraMicro7Java25IT.this, App.JAXRS_APP);
        }
    }
}
