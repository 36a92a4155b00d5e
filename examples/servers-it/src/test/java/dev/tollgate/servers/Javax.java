package dev.tollgate.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The javax side of the servers (issue 25): Servlet 4 and Java EE 8 servers, and the example
 * applications as the build transformed them from the jakarta WARs (Eclipse Transformer, jakarta.*
 * to javax.*, the WAR's own Tollgate jars included). Kept apart from {@link Servers} and {@link App}
 * so that the jakarta rows stay as they are.
 */
final class Javax {

    private Javax() {
    }

    /** {@code examples/servlet-app}, transformed: {@code servlet-app-javax.war}, at the same context root. */
    static final App SERVLET_APP = new App("servlet-app-javax.war", "servlet-app", "/api/hello", "hello", "/not-under-api");

    /** {@code examples/jaxrs-app}, transformed: {@code jaxrs-app-javax.war}, on the server's own JAX-RS 2.1, CDI 2.0 and MicroProfile Config. */
    static final App JAXRS_APP = new App("jaxrs-app-javax.war", "jaxrs-app", "/api/hello", "hello", "/api/no-such-resource");

    /** Tomcat 9 (Servlet 4.0, javax), on the build's Java. */
    static AppServer tomcat9() {
        return new Tomcat("tomcat-9", Build.version("tomcat9"), Build.onlyDirectoryIn(Build.serversDir().resolve("tomcat-9")));
    }

    /** WildFly 26.1 (Java EE 8, MicroProfile 4, javax), on the build's Java; its run directories apart from the current WildFly's. */
    static AppServer wildfly26() {
        WildFly wildfly = new WildFly(Build.version("wildfly26"), Build.onlyDirectoryIn(Build.serversDir().resolve("wildfly-26")));
        return new AppServer() {
            @Override
            public String name() {
                return wildfly.name();
            }

            @Override
            public String id() {
                return "wildfly-26";
            }

            @Override
            public int portCount() {
                return wildfly.portCount();
            }

            @Override
            public Duration startTimeout() {
                return wildfly.startTimeout();
            }

            @Override
            public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
                    throws IOException {
                return wildfly.prepare(java, base, deployments, ports, jvmOptions);
            }

            @Override
            public boolean started(ServerProcess server) {
                return wildfly.started(server);
            }
        };
    }
}
