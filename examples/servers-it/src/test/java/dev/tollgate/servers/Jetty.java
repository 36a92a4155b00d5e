package dev.tollgate.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Eclipse Jetty 12 from {@code jetty-home}, its {@code ee10} environment (Servlet 6.0). Each run
 * gets its own {@code jetty.base}, made as Jetty's documentation makes one: {@code java -jar
 * start.jar --add-modules=http,ee10-deploy,ee10-annotations} (the HTTP connector, deployment from
 * {@code webapps/}, and annotations, which Jetty needs to run a WAR's
 * {@code ServletContainerInitializer}s such as Tollgate's); the WARs in {@code webapps/}, a
 * {@code work/} directory to unpack them in. The server runs as {@code java -jar start.jar} in that
 * base, on 127.0.0.1 and the port given as {@code jetty.http.port}; {@code start.jar} runs the server
 * in its own JVM (it forks only when a module asks for JVM options, and none of these does).
 */
final class Jetty implements AppServer {

    static final String MODULES = "http,ee10-deploy,ee10-annotations";

    private final String version;
    private final Path home;

    Jetty(String version, Path home) {
        this.version = version;
        this.home = home;
    }

    @Override
    public String name() {
        return "Jetty " + version + " (ee10)";
    }

    @Override
    public String id() {
        return "jetty-12";
    }

    @Override
    public int portCount() {
        return 1;
    }

    @Override
    public Duration startTimeout() {
        return Duration.ofSeconds(90);
    }

    @Override
    public List<String> prepare(Path java, Path base, List<Deployment> deployments, int[] ports, List<String> jvmOptions)
            throws IOException {
        addModules(java, base);
        Files.createDirectories(base.resolve("webapps"));
        Files.createDirectories(base.resolve("work"));
        for (Deployment d : deployments) {
            Files.copy(d.war(), base.resolve("webapps").resolve(d.warFileName()));
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Djava.io.tmpdir=" + base.resolve("work"));
        cmd.add("-jar");
        cmd.add(home.resolve("start.jar").toString());
        cmd.add("jetty.home=" + home);
        cmd.add("jetty.base=" + base);
        cmd.add("jetty.http.host=127.0.0.1");
        cmd.add("jetty.http.port=" + ports[0]);
        return cmd;
    }

    /** The operator's one-time set-up of a {@code jetty.base}: {@code start.d/*.ini} for each module. */
    private void addModules(Path java, Path base) throws IOException {
        Path log = base.resolveSibling("add-modules.out");
        Process p = new ProcessBuilder(java.toString(), "-jar", home.resolve("start.jar").toString(),
                "jetty.home=" + home, "jetty.base=" + base, "--add-modules=" + MODULES)
                .directory(base.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("start.jar --add-modules did not end within 60 s; see " + log);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0 || !Files.exists(base.resolve("start.d").resolve("ee10-deploy.ini"))) {
            throw new IOException("start.jar --add-modules=" + MODULES + " failed (exit code " + p.exitValue() + "):\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
    }

    /**
     * The server has started: Jetty's deployment manager deploys what {@code webapps/} holds (each
     * WAR started or failed) while the server starts, before it logs {@code Started oejs.Server@...}.
     */
    @Override
    public boolean started(ServerProcess server) {
        return server.logContains("Started oejs.Server@");
    }
}
