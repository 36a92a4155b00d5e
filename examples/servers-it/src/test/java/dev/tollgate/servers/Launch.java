package dev.tollgate.servers;

import java.nio.file.Path;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to start: a server, one or more WARs, and what the operator sets. Environment variables go
 * to the server process only, and so are seen by every WAR; system properties become {@code -D}
 * options of the server's JVM (as in {@code JAVA_OPTS} or {@code CATALINA_OPTS}).
 */
public final class Launch {

    final AppServer server;
    final List<Deployment> deployments = new ArrayList<>();
    final String label;
    final Map<String, String> environment = new LinkedHashMap<>();
    final Map<String, String> systemProperties = new LinkedHashMap<>();
    final List<Path> sharedLibs = new ArrayList<>();

    private Launch(AppServer server, Deployment deployment, String label) {
        this.server = Objects.requireNonNull(server);
        this.deployments.add(Objects.requireNonNull(deployment));
        this.label = Objects.requireNonNull(label);
        if (!label.matches("[A-Za-z0-9.-]+")) {
            throw new IllegalArgumentException("label: letters, digits, '.', '-': " + label);
        }
    }

    /**
     * @param label names this run in the work directory and the test log, e.g. {@code main} or
     *              {@code bad-limits}; unique within one server
     */
    public static Launch of(AppServer server, Deployment deployment, String label) {
        return new Launch(server, deployment, label);
    }

    /**
     * One more WAR in the same server (so that one start serves the checks of several
     * applications). Context roots must differ, and each WAR's file name must be its context root
     * ({@code jaxrs-app.war} at {@code /jaxrs-app}), as Payara Micro derives one from the other.
     */
    public Launch deploy(Deployment another) {
        for (Deployment d : deployments) {
            if (d.contextRoot().equals(another.contextRoot())) {
                throw new IllegalArgumentException("two WARs at /" + another.contextRoot());
            }
        }
        deployments.add(another);
        return this;
    }

    public Launch env(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /**
     * A jar in the server's shared {@code lib/} (Tomcat: {@code $CATALINA_BASE/lib}, which its
     * common class loader reads), seen by every application: the drop-in jar as an operator
     * installs it once for all. Tomcat only.
     */
    public Launch sharedLib(Path jar) {
        if (!(server instanceof Tomcat)) {
            throw new UnsupportedOperationException("a shared lib/ is set up for Tomcat only, not " + server.name());
        }
        sharedLibs.add(jar);
        return this;
    }

    public Launch systemProperty(String name, String value) {
        systemProperties.put(name, value);
        return this;
    }

    /** Starts it; see {@link ServerProcess#start(Launch)}. */
    public ServerProcess start() {
        return ServerProcess.start(this);
    }

    /** "Tomcat 10.1.60 [main]" */
    String title() {
        return server.name() + " [" + label + "]";
    }
}
