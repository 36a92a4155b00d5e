package dev.tollgate.servers;

import org.junit.jupiter.api.Nested;

/**
 * Tomcat 11 (Servlet 6.1). The operator also passes a system property
 * ({@code -Dtollgate.redis.key-prefix}, as in {@code CATALINA_OPTS}) next to the environment
 * variable for the same key: the system property must win, in Tollgate's own lookup (servlet-app)
 * and in SmallRye Config's (jaxrs-app-tomcat).
 */
class Tomcat11IT extends TomcatContract {

    Tomcat11IT() {
        super(Servers.tomcat11());
    }

    @Override
    protected boolean prefixAlsoAsSystemProperty() {
        return true;
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(Tomcat11IT.this, App.SERVLET_APP);
        }
    }

    @Nested
    class JaxRsApp extends JaxRsAppContract {
        JaxRsApp() {
            super(Tomcat11IT.this, App.JAXRS_APP_TOMCAT);
        }
    }
}
