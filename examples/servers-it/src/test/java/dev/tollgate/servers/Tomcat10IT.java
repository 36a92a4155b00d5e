package dev.tollgate.servers;

import org.junit.jupiter.api.Nested;

/** Tomcat 10.1 (Servlet 6.0), configured by environment variables only. */
class Tomcat10IT extends TomcatContract {

    Tomcat10IT() {
        super(Servers.tomcat10());
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(Tomcat10IT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(Tomcat10IT.this, App.JAXRS_APP_TOMCAT);
        }
    }
}
