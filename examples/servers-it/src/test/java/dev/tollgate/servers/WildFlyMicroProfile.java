package dev.tollgate.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * WildFly as an operator runs it to get MicroProfile Health and a metrics endpoint to scrape:
 * {@code standalone-microprofile.xml} (MicroProfile Health, Telemetry, Config...), plus the
 * {@code micrometer} subsystem with its Prometheus registry at {@code /prometheus} on the
 * management interface, which no shipped profile has. That is what these two edits do to the
 * run's copy of the profile (the same as {@code jboss-cli.sh}:
 * {@code /extension=org.wildfly.extension.micrometer:add},
 * {@code /subsystem=micrometer:add},
 * {@code /subsystem=micrometer/registry=prometheus:add(context=/prometheus, security-enabled=false)}).
 * Everything else is {@link WildFly}'s launcher.
 */
final class WildFlyMicroProfile implements AppServer {

    static final String PROFILE = "standalone-microprofile.xml";
    /** Index of the management HTTP port among the run's ports (see {@link WildFly}). */
    static final int MANAGEMENT_PORT = 2;

    private final AppServer wildfly;

    WildFlyMicroProfile(AppServer wildfly) {
        this.wildfly = wildfly;
    }

    @Override
    public String name() {
        return wildfly.name() + " (" + PROFILE + " + micrometer)";
    }

    @Override
    public String id() {
        return wildfly.id() + "-microprofile";
    }

    @Override
    public int portCount() {
        return wildfly.portCount();
    }

    @Override
    public Duration startTimeout() {
        return wildfly.startTimeout();
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        List<String> cmd = new ArrayList<>(wildfly.prepare(java, base, deployments, ports, jvmOptions));
        Path profile = base.resolve("configuration").resolve(PROFILE);
        String xml = Files.readString(profile, StandardCharsets.UTF_8);
        String extensions = "<extensions>";
        String lastSubsystem = "</profile>";
        if (!xml.contains(extensions) || !xml.contains(lastSubsystem)) {
            throw new IllegalStateException(profile + " has no <extensions> or </profile>; has its format changed?");
        }
        xml = xml.replace(extensions, extensions + "\n        <extension module=\"org.wildfly.extension.micrometer\"/>")
                .replace(lastSubsystem, "    <subsystem xmlns=\"urn:wildfly:micrometer:community:2.0\">\n"
                        + "            <prometheus-registry context=\"/prometheus\" security-enabled=\"false\"/>\n"
                        + "        </subsystem>\n    " + lastSubsystem);
        Files.writeString(profile, xml, StandardCharsets.UTF_8);
        cmd.add("--server-config=" + PROFILE);
        return cmd;
    }

    @Override
    public boolean started(ServerProcess server) {
        return wildfly.started(server);
    }
}
