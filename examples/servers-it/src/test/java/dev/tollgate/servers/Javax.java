package dev.tollgate.servers;

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

    /** Tomcat 9 (Servlet 4.0, javax), on the build's Java. */
    static AppServer tomcat9() {
        return new Tomcat("tomcat-9", Build.version("tomcat9"), Build.onlyDirectoryIn(Build.serversDir().resolve("tomcat-9")));
    }
}
