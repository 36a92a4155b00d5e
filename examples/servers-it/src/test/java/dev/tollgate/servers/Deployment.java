package dev.tollgate.servers;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A WAR and the context root it is deployed at.
 *
 * @param war         the WAR file
 * @param contextRoot without slashes, e.g. {@code servlet-app}; empty for the root context
 */
public record Deployment(Path war, String contextRoot) {

    public Deployment {
        if (!Files.isRegularFile(war)) {
            throw new IllegalStateException("No WAR at " + war + "; the build copies it there in pre-integration-test"
                    + " (run through Maven: mvn verify -pl examples/servers-it -am)");
        }
        if (contextRoot.startsWith("/") || contextRoot.endsWith("/")) {
            throw new IllegalArgumentException("context root without slashes: " + contextRoot);
        }
    }

    /** The file name a server that deploys by file name needs: {@code servlet-app.war}, or {@code ROOT.war}. */
    public String warFileName() {
        return (contextRoot.isEmpty() ? "ROOT" : contextRoot) + ".war";
    }

    /** The path of the context: {@code /servlet-app}, or empty for the root context. */
    public String contextPath() {
        return contextRoot.isEmpty() ? "" : "/" + contextRoot;
    }
}
