package dev.tollgate.bench;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} from the PATH that the harness owns: a free loopback port, a scratch
 * directory under {@code target/}, no persistence. Closing it stops the process; a shutdown hook
 * does the same if the harness is interrupted.
 */
public final class RedisServer implements AutoCloseable {

    private final Path binary;
    private final Path dir;
    private final int port;
    private final Process process;

    private RedisServer(Path binary, Path dir, int port, Process process) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /**
     * Starts one, or fails with a message that says how to get a {@code redis-server}.
     *
     * @param dir scratch directory for its log
     */
    public static RedisServer start(Path dir) throws IOException, InterruptedException {
        return start(dir, freePort());
    }

    /**
     * Starts one on {@code port}.
     *
     * @param dir       scratch directory for its log
     * @param extraArgs more {@code redis-server} options, e.g. to run a cluster node
     */
    public static RedisServer start(Path dir, int port, String... extraArgs) throws IOException, InterruptedException {
        Path binary = onPath("redis-server");
        if (binary == null) {
            throw new IllegalStateException("No redis-server on the PATH. The benchmarks need a real Redis:"
                    + " install it (Debian/Ubuntu: apt-get install redis-server redis-tools) and run again.");
        }
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no",
                "--maxclients", "10000"));
        cmd.addAll(List.of(extraArgs));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        RedisServer server = new RedisServer(binary, dir, port, p);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        if (!server.awaitPong()) {
            server.close();
            throw new IllegalStateException("redis-server did not answer PING; see " + dir.resolve("redis.log"));
        }
        return server;
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public Path binary() {
        return binary;
    }

    /** {@code redis-server --version}, first line. */
    public String version() {
        return run(List.of(binary.toString(), "--version")).trim();
    }

    /** Runs {@code redis-cli} against this server (for small admin commands only). */
    public String cli(String... args) {
        Path cli = onPath("redis-cli");
        if (cli == null) {
            throw new IllegalStateException("no redis-cli on the PATH");
        }
        List<String> cmd = new ArrayList<>(List.of(cli.toString(), "-h", host(), "-p", Integer.toString(port)));
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean awaitPong() throws InterruptedException {
        for (int i = 0; i < 200 && process.isAlive(); i++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host(), port), 200);
                OutputStream out = s.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = s.getInputStream();
                byte[] b = new byte[5];
                if (in.readNBytes(b, 0, 5) == 5 && new String(b, StandardCharsets.US_ASCII).equals("+PONG")) {
                    return true;
                }
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        return false;
    }

    /** The first executable of that name on the PATH, then in the sbin folders (nginx lives there). */
    public static Path onPath(String name) {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator)));
        }
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
        for (String d : dirs) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }

    /** A port that was free a moment ago on the loopback address. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Runs a short command and returns its output (stdout and stderr). */
    public static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return out;
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Deletes a scratch folder and what is in it. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // scratch only
        }
    }
}
