package dev.tollgate.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * WildFly from {@code wildfly-dist}, in standalone mode with the default {@code standalone.xml}.
 * Each run gets its own server base directory (a copy of {@code standalone/configuration}, the WAR
 * in {@code deployments/}, picked up by the deployment scanner). The JVM is started through
 * jboss-modules as {@code standalone.sh} starts it, minus the shell (killing the shell would orphan
 * the JVM): the same memory and module options, the {@code --add-exports/--add-opens} list read
 * from this version's {@code bin/common.sh}.
 */
final class WildFly implements AppServer {

    /** {@code DEFAULT_MODULAR_JVM_OPTIONS="$DEFAULT_MODULAR_JVM_OPTIONS --add-opens=java.base/java.lang=ALL-UNNAMED"} */
    private static final Pattern MODULE_OPTION = Pattern.compile(
            "^\\s*DEFAULT_MODULAR_JVM_OPTIONS=\"\\$DEFAULT_MODULAR_JVM_OPTIONS (--add-(?:opens|exports)=[^\"\\s]+)\"\\s*$",
            Pattern.MULTILINE);

    private final String version;
    private final Path home;

    WildFly(String version, Path home) {
        this.version = version;
        this.home = home;
    }

    @Override
    public String name() {
        return "WildFly " + version;
    }

    @Override
    public String id() {
        return "wildfly";
    }

    /** HTTP, HTTPS, management HTTP, management HTTPS. */
    @Override
    public int portCount() {
        return 4;
    }

    @Override
    public Duration startTimeout() {
        return Duration.ofSeconds(180);
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        Tomcat.copyTree(home.resolve("standalone").resolve("configuration"), base.resolve("configuration"));
        Files.createDirectories(base.resolve("deployments"));
        Files.createDirectories(base.resolve("log"));
        for (Deployment d : deployments) {
            Files.copy(d.war(), base.resolve("deployments").resolve(d.warFileName()));
        }

        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.add("-D[Standalone]");
        // standalone.conf's JAVA_OPTS
        cmd.add("-Xms64m");
        cmd.add("-Xmx512m");
        cmd.add("-Djava.net.preferIPv4Stack=true");
        cmd.add("-Djboss.modules.system.pkgs=org.jboss.byteman");
        cmd.add("-Djava.awt.headless=true");
        cmd.addAll(jvmOptions);
        cmd.addAll(moduleOptions());
        cmd.add("-Dorg.jboss.boot.log.file=" + base.resolve("log").resolve("server.log"));
        cmd.add("-Dlogging.configuration=file:" + base.resolve("configuration").resolve("logging.properties"));
        cmd.add("-jar");
        cmd.add(home.resolve("jboss-modules.jar").toString());
        cmd.add("-mp");
        cmd.add(home.resolve("modules").toString());
        cmd.add("org.jboss.as.standalone");
        cmd.add("-Djboss.home.dir=" + home);
        cmd.add("-Djboss.server.base.dir=" + base);
        cmd.add("-Djboss.bind.address=127.0.0.1");
        cmd.add("-Djboss.bind.address.management=127.0.0.1");
        cmd.add("-Djboss.http.port=" + ports[0]);
        cmd.add("-Djboss.https.port=" + ports[1]);
        cmd.add("-Djboss.management.http.port=" + ports[2]);
        cmd.add("-Djboss.management.https.port=" + ports[3]);
        return cmd;
    }

    /**
     * The boot has ended ({@code WFLYSRV0025} "started", or {@code WFLYSRV0026} "started (with
     * errors)") and the deployment scanner has marked every WAR {@code .deployed} or {@code .failed}.
     */
    @Override
    public boolean started(ServerProcess server) {
        boolean booted = server.logContains("WFLYSRV0025") || server.logContains("WFLYSRV0026");
        return booted && server.deployments().stream().allMatch(d -> deploymentMarker(server, d) != null);
    }

    /** Of the first (or only) WAR: "deployed", "failed", or {@code null} while neither marker exists. */
    static String deploymentMarker(ServerProcess server) {
        return deploymentMarker(server, server.deployment());
    }

    /** "deployed", "failed", or {@code null} while neither marker exists. */
    static String deploymentMarker(ServerProcess server, Deployment deployment) {
        Path dir = server.base().resolve("deployments");
        String war = deployment.warFileName();
        for (String marker : List.of("deployed", "failed")) {
            if (Files.exists(dir.resolve(war + "." + marker))) {
                return marker;
            }
        }
        return null;
    }

    /** The text of the first WAR's {@code .failed} marker (WildFly writes the failure description into it), or "". */
    static String failedMarkerText(ServerProcess server) throws IOException {
        Path failed = server.base().resolve("deployments").resolve(server.deployment().warFileName() + ".failed");
        return Files.exists(failed) ? Files.readString(failed, StandardCharsets.UTF_8) : "";
    }

    /**
     * The unconditional module options of {@code bin/common.sh}. Its one conditional option
     * ({@code --add-opens=$PACKAGE_NAME}, for {@code com.sun.net.ssl.internal.ssl}) names a package
     * that Java 17 no longer has, so the script leaves it out there, and so do we.
     */
    private List<String> moduleOptions() throws IOException {
        String script = Files.readString(home.resolve("bin").resolve("common.sh"), StandardCharsets.UTF_8);
        Set<String> options = new LinkedHashSet<>();
        Matcher m = MODULE_OPTION.matcher(script);
        while (m.find()) {
            if (!m.group(1).contains("$")) {
                options.add(m.group(1));
            }
        }
        if (options.size() < 5) {
            throw new IllegalStateException("Found only " + options + " in " + home.resolve("bin/common.sh")
                    + "; has its format changed?");
        }
        return new ArrayList<>(options);
    }
}
