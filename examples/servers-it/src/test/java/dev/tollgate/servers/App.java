package dev.tollgate.servers;

/**
 * An example application under test: which WAR (as the build copied it into its WAR directory),
 * where it is deployed, and one path behind Tollgate with what that path answers.
 *
 * <p>To test another WAR, copy it in this module's {@code pom.xml} (one more {@code artifactItem}
 * of the {@code copy-wars} execution, and the WAR as a {@code provided} dependency so that the
 * reactor builds it first), add a constant here, and a {@code @Nested} class extending
 * {@link RateLimitedAppContract} (or a contract of its own) to each server's test class.
 *
 * @param warFile      the file name in the build's WAR directory
 * @param contextRoot  where it is deployed, without slashes
 * @param limitedPath  a path under the rate limit, answering 200 with {@code body}
 * @param body         what {@code limitedPath} answers, without trailing white space
 * @param freePath     a path of the application that Tollgate does not cover (its answer does not matter)
 */
public record App(String warFile, String contextRoot, String limitedPath, String body, String freePath) {

    /** {@code examples/servlet-app}: TollgateFilter on {@code /api/*} with {@code 5/s burst 10} in web.xml. */
    public static final App SERVLET_APP = new App("servlet-app.war", "servlet-app", "/api/hello", "hello", "/not-under-api");

    /**
     * {@code examples/jaxrs-app}: {@code @RateLimited} resources under {@code /api}, using the server's
     * own JAX-RS and MicroProfile Config (WildFly, Payara). A path no resource matches is not limited.
     */
    public static final App JAXRS_APP = new App("jaxrs-app.war", "jaxrs-app", "/api/hello", "hello", "/api/no-such-resource");

    /** {@code examples/jaxrs-app-tomcat}: the same application with Jersey and SmallRye Config inside, at the same context root. */
    public static final App JAXRS_APP_TOMCAT =
            new App("jaxrs-app-tomcat.war", "jaxrs-app", "/api/hello", "hello", "/api/no-such-resource");

    /**
     * The namespace part of this application's keys when no {@code tollgate.namespace} is set: its
     * context path and a colon, e.g. {@code /servlet-app:} in {@code tollgate:/servlet-app:{ip=127.0.0.1}:default}.
     */
    public String keyNamespace() {
        return "/" + contextRoot + ":";
    }

    public Deployment deployment() {
        return new Deployment(Build.warsDir().resolve(warFile), contextRoot);
    }
}
