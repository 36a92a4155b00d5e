package dev.tollgate.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A server on a Java feature release of its own (Java 25, say), found on this machine by
 * {@link Jdk}; everything else is the wrapped server's. Its name says the Java ("WildFly
 * 39.0.1.Final on Java 25") and its id too ("wildfly-java25"), so that its runs, logs and Redis
 * keys are apart from the same server on the build's Java. Immutable; thread-safe.
 */
final class OnJdk implements AppServer {

    private final AppServer server;
    private final int feature;
    private final Optional<Path> java;

    OnJdk(AppServer server, int feature) {
        this.server = server;
        this.feature = feature;
        this.java = Jdk.java(feature);
    }

    @Override
    public Optional<Path> java() {
        return java;
    }

    @Override
    public String whyNoJava() {
        return "no JDK " + feature + " on this machine: " + Jdk.howToProvide(feature);
    }

    @Override
    public String name() {
        return server.name() + " on Java " + feature;
    }

    @Override
    public String id() {
        return server.id() + "-java" + feature;
    }

    @Override
    public int portCount() {
        return server.portCount();
    }

    @Override
    public Duration startTimeout() {
        return server.startTimeout();
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        return server.prepare(java, base, deployments, ports, jvmOptions);
    }

    @Override
    public boolean started(ServerProcess process) {
        return server.started(process);
    }
}
