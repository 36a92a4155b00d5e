package dev.tollgate.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GlassFish from its full distribution zip ({@code org.glassfish.main.distributions:glassfish}),
 * started as an operator starts it in the foreground: {@code asadmin start-domain --verbose}, here
 * its jar ({@code lib/client/appserver-cli.jar}) run by the chosen {@code java}, as the
 * {@code asadmin} script runs it. Each run gets its own copy of {@code domain1} (in its own
 * {@code --domaindir}), every listener of {@code domain.xml} moved to a free loopback port, and the
 * WARs in the domain's {@code autodeploy/} (each at its file name's context root). The launcher
 * starts the server's JVM as its child; {@link ServerProcess} stops both.
 *
 * <p>{@link #withDomainLib(Path)}: a jar in the domain's {@code lib/}, on the class path of every
 * application: where an operator drops the servlet drop-in jar.
 */
final class GlassFish implements AppServer {

    /** domain1's ports in {@code server-config}, in the order of {@link #prepare}'s free ports (HTTP first). */
    private static final List<String> PORTS = List.of(
            "port=\"8080\"", "port=\"8181\"", "port=\"4848\"", "port=\"3700\"", "port=\"3820\"", "port=\"3920\"",
            "port=\"8686\"", "name=\"JMS_PROVIDER_PORT\" value=\"7676\"", "-Dosgi.shell.telnet.port=6666");

    private final String version;
    private final Path home;
    private final Optional<Path> domainLib;

    GlassFish(String version, Path home, Optional<Path> domainLib) {
        this.version = version;
        this.home = home;
        this.domainLib = domainLib;
    }

    /** The GlassFish the build unpacked ({@code glassfish7/glassfish}), at the version its {@code pom.xml} names. */
    static GlassFish fromBuild() {
        return new GlassFish(Build.version("glassfish"),
                Build.onlyDirectoryIn(Build.serversDir().resolve("glassfish")).resolve("glassfish"), Optional.empty());
    }

    /** The same server with {@code jar} in the domain's {@code lib/}. */
    GlassFish withDomainLib(Path jar) {
        return new GlassFish(version, home, Optional.of(jar));
    }

    @Override
    public String name() {
        return "GlassFish " + version;
    }

    @Override
    public String id() {
        return "glassfish";
    }

    @Override
    public int portCount() {
        return PORTS.size();
    }

    @Override
    public Duration startTimeout() {
        return Duration.ofSeconds(180);
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        Path cli = home.resolve("lib").resolve("client").resolve("appserver-cli.jar");
        if (!Files.isRegularFile(cli)) {
            throw new IllegalStateException("No " + cli + "; the build unpacks GlassFish in pre-integration-test");
        }
        Path domains = base.resolve("domains");
        Path domain = domains.resolve("domain1");
        Tomcat.copyTree(home.resolve("domains").resolve("domain1"), domain);
        Path domainXml = domain.resolve("config").resolve("domain.xml");
        String xml = Files.readString(domainXml, StandardCharsets.UTF_8);
        for (int i = 0; i < PORTS.size(); i++) {
            String from = PORTS.get(i);
            if (xml.indexOf(from) < 0 || xml.indexOf(from) != xml.lastIndexOf(from)) {
                throw new IllegalStateException("Expected " + from + " once in " + domainXml + "; has its format changed?");
            }
            xml = xml.replace(from, from.replaceAll("[0-9]+", Integer.toString(ports[i])));
        }
        xml = xml.replace("address=\"0.0.0.0\"", "address=\"127.0.0.1\"");
        // The operator's -D options, as `asadmin create-jvm-options` adds them to server-config.
        String anchor = "<jvm-options>-Xmx512m</jvm-options>";
        StringBuilder options = new StringBuilder(anchor);
        for (String option : jvmOptions) {
            options.append("\n        <jvm-options>").append(option.replace("&", "&amp;").replace("<", "&lt;"))
                    .append("</jvm-options>");
        }
        xml = xml.replaceFirst(Pattern.quote(anchor), Matcher.quoteReplacement(options.toString()));
        Files.writeString(domainXml, xml, StandardCharsets.UTF_8);
        if (domainLib.isPresent()) {
            Files.copy(domainLib.get(), domain.resolve("lib").resolve(domainLib.get().getFileName()));
        }
        for (Deployment d : deployments) {
            Files.copy(d.war(), domain.resolve("autodeploy").resolve(d.warFileName()));
        }
        return List.of(java.toString(), "-jar", cli.toString(), "start-domain", "--verbose", "--domaindir",
                domains.toString(), "domain1");
    }

    /** The server's start banner has been logged, and the autodeployer has marked every WAR deployed or failed. */
    @Override
    public boolean started(ServerProcess server) {
        if (!server.logContains("startup time")) {
            return false;
        }
        return server.deployments().stream().allMatch(d -> deploymentMarker(server, d) != null);
    }

    /** "deployed", "failed", or {@code null} while the autodeployer has written neither marker. */
    static String deploymentMarker(ServerProcess server, Deployment d) {
        Path autodeploy = server.base().resolve("domains").resolve("domain1").resolve("autodeploy");
        if (Files.exists(autodeploy.resolve(d.warFileName() + "_deployed"))) {
            return "deployed";
        }
        if (Files.exists(autodeploy.resolve(d.warFileName() + "_deployFailed"))) {
            return "failed";
        }
        return null;
    }
}
