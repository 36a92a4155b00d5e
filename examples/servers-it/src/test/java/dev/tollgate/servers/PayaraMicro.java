package dev.tollgate.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Payara Micro, the single jar: {@code java -jar payara-micro.jar --deploy app.war}. Each run gets
 * its own {@code java.io.tmpdir} (where Payara Micro unpacks its runtime). Clustering (Hazelcast,
 * which would open port 6900 and look for peers) and phone-home are off. Payara Micro has no option
 * for the listen address, so a pre-boot command file puts the HTTP listener on 127.0.0.1.
 */
final class PayaraMicro implements AppServer {

    private static final Pattern READY = Pattern.compile("Payara Micro .* ready in ");

    private final String version;
    private final Path jar;

    PayaraMicro(String version, Path jar) {
        this.version = version;
        this.jar = jar;
    }

    @Override
    public String name() {
        return "Payara Micro " + version;
    }

    @Override
    public String id() {
        return "payara-micro";
    }

    @Override
    public int portCount() {
        return 1;
    }

    @Override
    public Duration startTimeout() {
        return Duration.ofSeconds(240);
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No " + jar + "; the build copies it there in pre-integration-test");
        }
        Path tmp = Files.createDirectories(base.resolve("tmp"));
        Path preBoot = base.resolve("pre-boot-commands.txt");
        Files.writeString(preBoot,
                "set configs.config.server-config.network-config.network-listeners.network-listener.http-listener.address=127.0.0.1\n",
                StandardCharsets.UTF_8);

        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Djava.io.tmpdir=" + tmp);
        cmd.add("-jar");
        cmd.add(jar.toString());
        cmd.add("--port");
        cmd.add(Integer.toString(ports[0]));
        cmd.add("--nohazelcast");
        cmd.add("--disablephonehome");
        cmd.add("--prebootcommandfile");
        cmd.add(preBoot.toString());
        if (deployments.size() == 1) {
            Deployment d = deployments.get(0);
            cmd.add("--contextroot");
            cmd.add(d.contextRoot().isEmpty() ? "/" : d.contextRoot());
            cmd.add("--deploy");
            cmd.add(d.war().toString());
            return cmd;
        }
        // --contextroot applies to one WAR only; with several, each is deployed at its file name, so
        // each is copied under the name of its context root.
        Path wars = Files.createDirectories(base.resolve("wars"));
        for (Deployment d : deployments) {
            Path war = wars.resolve(d.warFileName());
            Files.copy(d.war(), war);
            cmd.add("--deploy");
            cmd.add(war.toString());
        }
        return cmd;
    }

    /** "Payara Micro 6.2025.10 (build 42) ready in 15,135 (ms)": logged after the deployments, failed or not. */
    @Override
    public boolean started(ServerProcess server) {
        return READY.matcher(server.log()).find();
    }
}
