package dev.tollgate.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} process that the test owns: started on a free loopback port with a
 * temporary directory and no persistence, so a test can kill it, pause it ({@code SIGSTOP}),
 * resume it and restart it empty.
 */
public final class RedisProcess implements RedisEndpoint, AutoCloseable {

    private final Path binary;
    private final String kind;
    private final Path dir;
    private final List<String> extraArgs;
    private final Path config;
    private int port;
    private Process process;
    private volatile String authUser;
    private volatile String authPassword;

    private RedisProcess(Path binary, String kind, String configText, List<String> extraArgs) {
        this.binary = binary;
        this.kind = kind;
        this.extraArgs = List.copyOf(extraArgs);
        try {
            this.dir = Files.createTempDirectory("tollgate-redis-");
            if (configText != null) {
                config = dir.resolve("redis.conf");
                Files.writeString(config, configText);
            } else {
                config = null;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a new process from {@code binary} on a free port. */
    public static RedisProcess start(Path binary, String kind, String... extraArgs) {
        return start(binary, kind, 0, null, extraArgs);
    }

    /**
     * Starts a new process from {@code binary}.
     *
     * @param port       the port, or 0 for a free one (a cluster node needs {@code port + 10000} free too, and
     *                   Redis 6.2 has no {@code cluster-port} to move it, so its caller picks the port)
     * @param configText when not {@code null}, written to {@code redis.conf} in the process's own directory
     *                   and passed as the first argument: a sentinel needs a configuration file it can rewrite
     * @param extraArgs  further {@code --option value} arguments, after the fixture's own
     */
    public static RedisProcess start(Path binary, String kind, int port, String configText, String... extraArgs) {
        RedisProcess r = new RedisProcess(binary, kind, configText, List.of(extraArgs));
        r.port = port == 0 ? freePort() : port;
        try {
            r.launch();
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(r::close));
        return r;
    }

    @Override
    public String host() {
        return "127.0.0.1";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String kind() {
        return kind;
    }

    /**
     * The credentials {@link #command} sends first ({@code AUTH [user] password}), for a process
     * started with {@code --requirepass} or ACL users; {@code user} may be {@code null}.
     */
    public RedisProcess auth(String user, String password) {
        authUser = user;
        authPassword = password;
        return this;
    }

    @Override
    public String command(String... args) {
        return Resp.command(host(), port, authUser, authPassword, args);
    }

    public Path binary() {
        return binary;
    }

    public long pid() {
        return process.pid();
    }

    /** The process's own temporary directory (its working directory, log and config files). */
    public Path dir() {
        return dir;
    }

    /** {@code 127.0.0.1:port}, as cluster and sentinel clients name a node. */
    public String address() {
        return host() + ":" + port;
    }

    @Override
    public String toString() {
        return "redis-server " + address() + (alive() ? "" : " (stopped)");
    }

    /** What the process has written to its log so far, for failure messages. */
    public String log() {
        return readLog();
    }

    /** SIGKILL: the process dies at once, as in a crash. */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor(process);
        }
    }

    /** SIGSTOP: the process stays, its sockets stay open, and nothing answers (the hang case). */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        signal("CONT");
    }

    /** Starts again on the same port, empty: no keys, no scripts. */
    public void restart() {
        kill();
        launch();
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            signal("CONT");
            process.destroyForcibly();
            waitFor(process);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }

    private void launch() {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        if (config != null) {
            cmd.add(config.toString());
        }
        cmd.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning"));
        cmd.addAll(extraArgs);
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                process = new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                        .start();
                if (awaitPing(Duration.ofSeconds(10))) {
                    return;
                }
                process.destroyForcibly();
                waitFor(process);
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IllegalStateException("redis-server " + binary + " did not start on port " + port
                + "; its log: " + readLog(), last);
    }

    private boolean awaitPing(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                return false;
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host(), port), 200);
                s.setSoTimeout(500);
                s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] buf = new byte[7];
                int n = s.getInputStream().read(buf);
                String reply = n > 0 ? new String(buf, 0, n, StandardCharsets.US_ASCII) : "";
                if (reply.startsWith("+PONG") || reply.startsWith("-NOAUTH")) { // up, and asks for a password
                    return true;
                }
            } catch (IOException e) {
                // not yet
            }
            try {
                Thread.sleep(20); // polling a starting process, not timing a test
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    private String readLog() {
        try {
            return Files.readString(dir.resolve("redis.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private void signal(String sig) {
        if (process == null || !process.isAlive()) {
            return;
        }
        try {
            Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).start();
            waitFor(k);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void waitFor(Process p) {
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A loopback port free now, for a process to be started on later (another process may take it meanwhile). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
