package dev.tollgate.servers;

/**
 * The servlet example on Tomcat 11 (Servlet 6.1). The operator also passes a system property
 * ({@code -Dtollgate.redis.key-prefix}, as in {@code CATALINA_OPTS}) next to the environment
 * variable for the same key: the system property must win.
 */
class Tomcat11ServletAppIT extends TomcatServletAppContract {

    private String systemPropertyPrefix;

    Tomcat11ServletAppIT() {
        super(Servers.tomcat11());
    }

    @Override
    protected Launch configure(Launch launch) {
        systemPropertyPrefix = newKeyPrefix("sysprop");
        return launch.systemProperty("tollgate.redis.key-prefix", systemPropertyPrefix);
    }

    @Override
    protected String expectedKeyPrefix() {
        return systemPropertyPrefix;
    }
}
