package dev.tollgate.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Open Liberty from its full runtime zip ({@code io.openliberty:openliberty-runtime}), started as an
 * operator starts it: {@code bin/server run tollgate}, with {@code WLP_USER_DIR} pointing at this
 * run's own user directory ({@code servers/tollgate/server.xml}, {@code jvm.options}, the WARs in
 * {@code apps/}). The script ends by {@code exec}-ing the JVM, so the process this class starts is
 * the server's JVM. The features are those an operator of these applications enables: Servlet,
 * CDI, Jakarta REST (server and client), JSON-B and MicroProfile Config. Messages of level INFO go
 * to the console (Tollgate logs its start at INFO), which {@link ServerProcess} captures.
 *
 * <p>{@link #withGlobalLib(Path)}: a jar in the server's {@code lib/global}, Liberty's global
 * shared library, seen by every application that has no class loader configuration of its own:
 * where an operator drops the servlet drop-in jar.
 */
final class OpenLiberty implements AppServer {

    static final String SERVER_NAME = "tollgate";

    private final String version;
    private final Path home;
    private final Optional<Path> globalLib;

    OpenLiberty(String version, Path home, Optional<Path> globalLib) {
        this.version = version;
        this.home = home;
        this.globalLib = globalLib;
    }

    /** The Open Liberty the build unpacked, at the version its {@code pom.xml} names. */
    static OpenLiberty fromBuild() {
        return new OpenLiberty(Build.version("openliberty"),
                Build.serversDir().resolve("openliberty").resolve("wlp"), Optional.empty());
    }

    /** The same server with {@code jar} in {@code lib/global}. */
    OpenLiberty withGlobalLib(Path jar) {
        return new OpenLiberty(version, home, Optional.of(jar));
    }

    @Override
    public String name() {
        return "Open Liberty " + version;
    }

    @Override
    public String id() {
        return "openliberty";
    }

    /** HTTP only (HTTPS is off). */
    @Override
    public int portCount() {
        return 1;
    }

    @Override
    public Duration startTimeout() {
        return Duration.ofSeconds(180);
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        Path script = home.resolve("bin").resolve("server");
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("No " + script + "; the build unpacks Open Liberty in pre-integration-test");
        }
        Path serverDir = Files.createDirectories(base.resolve("servers").resolve(SERVER_NAME));
        Path apps = Files.createDirectories(serverDir.resolve("apps"));
        StringBuilder applications = new StringBuilder();
        for (Deployment d : deployments) {
            Files.copy(d.war(), apps.resolve(d.warFileName()));
            applications.append("  <webApplication location=\"").append(d.warFileName()).append("\" contextRoot=\"/")
                    .append(d.contextRoot()).append("\"/>\n");
        }
        if (globalLib.isPresent()) {
            Path global = Files.createDirectories(serverDir.resolve("lib").resolve("global"));
            Files.copy(globalLib.get(), global.resolve(globalLib.get().getFileName()));
        }
        String serverXml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<server description=\"Tollgate examples\">\n"
                + "  <featureManager>\n"
                + "    <feature>servlet-6.0</feature>\n"
                + "    <feature>cdi-4.0</feature>\n"
                + "    <feature>restfulWS-3.1</feature>\n"
                + "    <feature>restfulWSClient-3.1</feature>\n"
                + "    <feature>jsonb-3.0</feature>\n"
                + "    <feature>mpConfig-3.1</feature>\n"
                + "  </featureManager>\n"
                + "  <httpEndpoint id=\"defaultHttpEndpoint\" host=\"127.0.0.1\" httpPort=\"" + ports[0]
                + "\" httpsPort=\"-1\"/>\n"
                + "  <logging consoleLogLevel=\"INFO\" consoleFormat=\"SIMPLE\"/>\n"
                + "  <applicationMonitor updateTrigger=\"disabled\" dropinsEnabled=\"false\"/>\n"
                + applications
                + "</server>\n";
        Files.writeString(serverDir.resolve("server.xml"), serverXml, StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>(List.of("-Xms64m", "-Xmx512m"));
        options.addAll(jvmOptions);
        Files.write(serverDir.resolve("jvm.options"), options, StandardCharsets.UTF_8);

        // bin/server reads these from its environment; env(1) sets them and execs the script's shell
        // (/bin/sh, its own #!, so that unpacking need not keep the executable bit), which execs the
        // JVM: one process throughout.
        Path javaHome = java.toAbsolutePath().getParent().getParent();
        return List.of("/usr/bin/env", "WLP_USER_DIR=" + base, "JAVA_HOME=" + javaHome, "JRE_HOME=",
                "WLP_OUTPUT_DIR=" + base.resolve("output"), "/bin/sh", script.toString(), "run", SERVER_NAME);
    }

    /**
     * {@code CWWKF0011I} "The tollgate server is ready to run a smarter planet" (logged once the
     * applications have started or failed), and each WAR has its "started" ({@code CWWKZ0001I}) or
     * "failed" ({@code CWWKZ0002E}, {@code CWWKZ0004E}) message.
     */
    @Override
    public boolean started(ServerProcess server) {
        if (!server.logContains("CWWKF0011I")) {
            return false;
        }
        return server.deployments().stream().allMatch(d -> applicationOutcome(server, d) != null);
    }

    /** "started", "failed", or {@code null} while Liberty has said neither of the WAR's application. */
    static String applicationOutcome(ServerProcess server, Deployment d) {
        String app = d.warFileName().substring(0, d.warFileName().length() - ".war".length());
        for (String line : server.logLines(" " + app)) {
            if (line.contains("CWWKZ0001I")) {
                return "started";
            }
            if (line.contains("CWWKZ0002E") || line.contains("CWWKZ0004E")) {
                return "failed";
            }
        }
        return null;
    }
}
