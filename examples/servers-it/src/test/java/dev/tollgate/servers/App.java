package dev.tollgate.servers;

/**
 * An example application under test: which WAR (as the build copied it into its WAR directory),
 * where it is deployed, and one path behind Tollgate with what that path answers.
 *
 * <p>To test another WAR, copy it in this module's {@code pom.xml} (one more {@code artifactItem}
 * of the {@code copy-wars} execution, and the WAR as a {@code provided} dependency so that the
 * reactor builds it first), add a constant here, and extend {@link RateLimitedAppContract}.
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

    public Deployment deployment() {
        return new Deployment(Build.warsDir().resolve(warFile), contextRoot);
    }
}
