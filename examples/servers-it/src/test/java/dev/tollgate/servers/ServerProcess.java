package dev.tollgate.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One server JVM started from a {@link Launch}: free loopback ports, a fresh base directory under
 * the build's work directory, the operator's environment and system properties, all output in
 * {@code server.out} next to the base directory. {@link #close()} stops the process and every
 * descendant: SIGTERM, a grace period, then SIGKILL. A JVM shutdown hook does the same for any
 * server a test left running.
 */
public final class ServerProcess implements AutoCloseable {

    /** Every server started in this JVM, for the shutdown hook and for printing logs when a test fails. */
    private static final List<ServerProcess> LAUNCHED = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (ServerProcess p : LAUNCHED) {
                p.stop(Duration.ofSeconds(10));
            }
        }, "servers-it-stop-all"));
    }

    private static final Duration GRACE = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    private final Launch launch;
    private final Path runDir;
    private final Path base;
    private final Path log;
    private final int[] ports;
    private Process process;
    private long launchedAt;
    private Duration startup;
    private boolean stopped;

    private ServerProcess(Launch launch, Path runDir, int[] ports) {
        this.launch = launch;
        this.runDir = runDir;
        this.base = runDir.resolve("base");
        this.log = runDir.resolve("server.out");
        this.ports = ports;
    }

    private enum Outcome { STARTED, PORT_TAKEN, DIED, TIMED_OUT }

    /**
     * Starts the server and waits until it has finished starting, deployment included (whether the
     * deployment worked is for the test to find out). A start that loses the race for its port
     * (another process bound it between our check and the server's bind) is retried once on new
     * ports.
     *
     * @throws IllegalStateException when it does not start; the message ends with its log's tail
     */
    static ServerProcess start(Launch launch) {
        Path dir = Build.workDir().resolve(launch.server.id() + "-" + launch.label);
        deleteTree(dir);
        for (int attempt = 1; ; attempt++) {
            ServerProcess p = new ServerProcess(launch, dir.resolve("run-" + attempt), freePorts(launch.server.portCount()));
            Outcome outcome = p.launchAndAwait();
            if (outcome == Outcome.STARTED) {
                System.out.printf(Locale.ROOT, "[servers-it] %s: started in %.2f s (HTTP port %d, pid %d, log %s)%n",
                        launch.title(), p.startup.toMillis() / 1000.0, p.httpPort(), p.process.pid(), p.log);
                return p;
            }
            String tail = p.logTail(60);
            p.close();
            if (outcome == Outcome.PORT_TAKEN && attempt == 1) {
                System.out.printf("[servers-it] %s: a port was taken before the server bound it; retrying on new ports%n",
                        launch.title());
                continue;
            }
            throw new IllegalStateException(launch.title() + " did not start: " + describe(outcome, p) + ". Log "
                    + p.log + ", last lines:\n" + tail);
        }
    }

    private static String describe(Outcome outcome, ServerProcess p) {
        switch (outcome) {
            case PORT_TAKEN:
                return "its port was taken twice in a row";
            case DIED:
                return "the process ended with exit code " + p.process.exitValue() + " while starting";
            default:
                return "not started after " + p.launch.server.startTimeout().toSeconds() + " s";
        }
    }

    private Outcome launchAndAwait() {
        try {
            Files.createDirectories(base);
            List<String> jvmOptions = launch.systemProperties.entrySet().stream()
                    .map(e -> "-D" + e.getKey() + "=" + e.getValue())
                    .collect(Collectors.toList());
            Path java = launch.server.java().orElseThrow(() -> new IllegalStateException(
                    launch.title() + ": " + launch.server.whyNoJava()));
            List<String> command = launch.server.prepare(java, base, launch.deployments, ports, jvmOptions);
            if (!launch.sharedLibs.isEmpty()) {
                Files.createDirectories(base.resolve("lib"));
                for (Path jar : launch.sharedLibs) {
                    Files.copy(jar, base.resolve("lib").resolve(jar.getFileName()));
                }
            }
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(base.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            // The server sees what the operator set here, not whatever this build's shell happens to export.
            env.keySet().removeIf(k -> k.startsWith("TOLLGATE_") || k.startsWith("CATALINA_") || k.startsWith("JBOSS_")
                    || k.equals("JAVA_OPTS"));
            env.putAll(launch.environment);
            Files.writeString(runDir.resolve("command.txt"), describeCommand(command), StandardCharsets.UTF_8);
            launchedAt = System.nanoTime();
            process = pb.start();
            LAUNCHED.add(this);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + launch.title(), e);
        }
        long deadline = launchedAt + launch.server.startTimeout().toNanos();
        while (true) {
            String text = log();
            if (text.contains("Address already in use")) {
                return Outcome.PORT_TAKEN;
            }
            if (!process.isAlive()) {
                return Outcome.DIED;
            }
            if (launch.server.started(this)) {
                startup = Duration.ofNanos(System.nanoTime() - launchedAt);
                return Outcome.STARTED;
            }
            if (System.nanoTime() > deadline) {
                return Outcome.TIMED_OUT;
            }
            pause(100);
        }
    }

    private String describeCommand(List<String> command) {
        StringBuilder sb = new StringBuilder();
        launch.environment.forEach((k, v) -> sb.append(k).append('=').append(shellQuote(v)).append(" \\\n"));
        for (String c : command) {
            sb.append("  ").append(shellQuote(c)).append(" \\\n");
        }
        sb.setLength(sb.length() - 3);
        return sb.append('\n').toString();
    }

    private static String shellQuote(String s) {
        return s.matches("[A-Za-z0-9_./:=@%+,-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    // ---- what tests use ----

    public String title() {
        return launch.title();
    }

    /** The first (or only) WAR: the one {@link #get(String)} and {@link #uri(String)} address. */
    public Deployment deployment() {
        return launch.deployments.get(0);
    }

    /** Every WAR of this start, in the order given to {@link Launch}. */
    public List<Deployment> deployments() {
        return List.copyOf(launch.deployments);
    }

    /** This run's base directory (CATALINA_BASE, jboss.server.base.dir, ...). */
    public Path base() {
        return base;
    }

    public int httpPort() {
        return ports[0];
    }

    /** The {@code index}-th port of this run, in the order {@link AppServer#prepare} got them (0 is HTTP). */
    public int port(int index) {
        return ports[index];
    }

    /** From the start of the process until {@link AppServer#started} said yes. */
    public Duration startup() {
        return startup;
    }

    /** {@code http://127.0.0.1:<port>/<context><path>}, in the first WAR's context. */
    public URI uri(String pathInContext) {
        return uri(deployment(), pathInContext);
    }

    /** {@code http://127.0.0.1:<port>/<context><path>} */
    public URI uri(Deployment in, String pathInContext) {
        return URI.create("http://127.0.0.1:" + httpPort() + in.contextPath() + pathInContext);
    }

    /** A GET of a path in the first WAR's context, e.g. {@code /api/hello}. */
    public HttpResponse<String> get(String pathInContext) {
        return get(deployment(), pathInContext);
    }

    /** A GET of a path in a WAR's context. */
    public HttpResponse<String> get(Deployment in, String pathInContext) {
        return send(HttpRequest.newBuilder(uri(in, pathInContext)).GET());
    }

    /** A POST of an HTML form ({@code application/x-www-form-urlencoded}, already encoded) to a path in a WAR's context. */
    public HttpResponse<String> postForm(Deployment in, String pathInContext, String form) {
        return send(HttpRequest.newBuilder(uri(in, pathInContext))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form, StandardCharsets.UTF_8)));
    }

    private static HttpResponse<String> send(HttpRequest.Builder builder) {
        HttpRequest request = builder.timeout(Duration.ofSeconds(15)).build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Polls a path until it answers {@code status} (the context is up) and returns that answer.
     * Each poll before is a 404 or similar that never reached the application.
     */
    public HttpResponse<String> awaitStatus(String pathInContext, int status, Duration timeout) {
        return awaitStatus(deployment(), pathInContext, status, timeout);
    }

    /** {@link #awaitStatus(String, int, Duration)} in a WAR's context. */
    public HttpResponse<String> awaitStatus(Deployment in, String pathInContext, int status, Duration timeout) {
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        HttpResponse<String> last = null;
        Exception lastError = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                break;
            }
            try {
                last = get(in, pathInContext);
                if (last.statusCode() == status) {
                    System.out.printf(Locale.ROOT, "[servers-it] %s: %s%s answered %d %.2f s after the server started%n",
                            title(), in.contextPath(), pathInContext, status, (System.nanoTime() - t0) / 1e9);
                    return last;
                }
            } catch (UncheckedIOException e) {
                lastError = e;
            }
            pause(200);
        }
        throw new IllegalStateException(title() + ": " + uri(in, pathInContext) + " did not answer " + status + " within "
                + timeout.toSeconds() + " s; last answer " + (last == null ? lastError : last.statusCode() + " " + last.body())
                + ". Log " + log + ", last lines:\n" + logTail(60));
    }

    /** Everything the server printed (stdout and stderr), so far. */
    public String log() {
        try {
            return Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public boolean logContains(String text) {
        return log().contains(text);
    }

    /**
     * The log's lines that contain {@code text}, waiting up to {@code timeout} for the first one
     * (a server may write its log a moment after it answered); empty if none came.
     */
    public List<String> awaitLogLines(String text, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> lines = logLines(text);
        while (lines.isEmpty() && System.nanoTime() < deadline) {
            pause(100);
            lines = logLines(text);
        }
        return lines;
    }

    /** The log's lines that contain {@code text}, without colour codes. */
    public List<String> logLines(String text) {
        return log().lines().filter(l -> l.contains(text)).map(ServerProcess::plain).collect(Collectors.toList());
    }

    /** The last lines of the log, without colour codes. */
    public String logTail(int lines) {
        List<String> all = log().lines().collect(Collectors.toList());
        return all.subList(Math.max(0, all.size() - lines), all.size()).stream()
                .map(ServerProcess::plain).collect(Collectors.joining("\n"));
    }

    public Path logFile() {
        return log;
    }

    /** The executable the server's process runs, as the operating system reports it (empty where it does not). */
    public Optional<String> executable() {
        return process.info().command();
    }

    /** Servers started since the {@code n}-th start in this JVM (for printing their logs when a test fails). */
    static List<ServerProcess> launchedSince(int n) {
        List<ServerProcess> all = new ArrayList<>(LAUNCHED);
        return all.subList(Math.min(n, all.size()), all.size());
    }

    static int launchedCount() {
        return LAUNCHED.size();
    }

    /** Stops the server and its descendants: SIGTERM, up to 30 s to stop, then SIGKILL. */
    @Override
    public void close() {
        stop(GRACE);
    }

    private synchronized void stop(Duration grace) {
        if (stopped || process == null) {
            return;
        }
        stopped = true;
        long t0 = System.nanoTime();
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(process.toHandle());
        process.descendants().forEach(tree::add); // before the parent dies and they are re-parented
        tree.forEach(ProcessHandle::destroy);
        boolean forced = false;
        if (!awaitExit(tree, grace)) {
            forced = true;
            process.descendants().forEach(tree::add);
            tree.forEach(ProcessHandle::destroyForcibly);
            if (!awaitExit(tree, Duration.ofSeconds(10))) {
                System.out.println("[servers-it] WARNING: " + title() + ": still alive after SIGKILL: "
                        + tree.stream().filter(ProcessHandle::isAlive).map(h -> Long.toString(h.pid()))
                        .collect(Collectors.joining(", ")));
            }
        }
        // SIGTERM ends every one of these JVMs with 143 (128 + 15); that is a normal stop, not a failure.
        System.out.printf(Locale.ROOT, "[servers-it] %s: stopped in %.2f s (exit code %s%s)%n", title(),
                (System.nanoTime() - t0) / 1e9, process.isAlive() ? "?" : Integer.toString(process.exitValue()),
                forced ? ", had to be killed" : "");
    }

    private static boolean awaitExit(List<ProcessHandle> handles, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (handles.stream().anyMatch(ProcessHandle::isAlive)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            pause(50);
        }
        return true;
    }

    private static String plain(String line) {
        return line.replaceAll("\u001B\\[[0-9;]*m", "");
    }

    /** {@code n} distinct free loopback ports (held open together, so they differ, then released). */
    static int[] freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // released anyway when the test JVM ends
                }
            }
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot empty " + dir, e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // polling another process, not timing a test
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
