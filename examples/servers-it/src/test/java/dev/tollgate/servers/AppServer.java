package dev.tollgate.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One server distribution, unpacked by the build: how to lay out a fresh base directory for one
 * run, the command line that starts it as one JVM, and how to tell that it has finished starting.
 * Implementations: {@link Tomcat}, {@link WildFly}, {@link PayaraMicro}, and {@link OnJdk} for one
 * of them on another Java than the build's.
 */
public interface AppServer {

    /** For people: "Tomcat 10.1.60". */
    String name();

    /** For directories and Redis key prefixes: "tomcat-10.1". Letters, digits, '.', '-'. */
    String id();

    /**
     * The {@code java} that runs this server: the build's own (or {@code -Dtg.servers.java}), unless
     * the server needs another; empty when this machine lacks that JDK, and {@link #whyNoJava()}
     * says what to do.
     */
    default Optional<Path> java() {
        return Optional.of(Build.java());
    }

    /** When {@link #java()} is empty: which JDK is missing and how to provide it. */
    default String whyNoJava() {
        return "";
    }

    /** How many free loopback ports one run needs; the first is the HTTP port. */
    int portCount();

    /** Longest time a start may take on a slow CI machine before it counts as failed. */
    Duration startTimeout();

    /**
     * Fills {@code base} (an empty directory of this run) with the WARs to deploy and returns the
     * whole command line: {@code java}, then {@code jvmOptions} (the operator's {@code -D...}, as in
     * {@code JAVA_OPTS}), then whatever the server needs.
     */
    List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException;

    /**
     * Whether the server has finished starting, including the deployment of every WAR, whether
     * that deployment worked or failed. Called repeatedly while the process runs.
     */
    boolean started(ServerProcess server);
}
