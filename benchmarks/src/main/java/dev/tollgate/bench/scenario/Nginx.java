package dev.tollgate.bench.scenario;

import dev.tollgate.bench.RedisServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The edge reference: Debian's nginx with {@code limit_req} ({@code rate=10r/s burst=20 nodelay},
 * keyed by the same {@code X-Client-Id} header) in front of the same application, from a
 * configuration written under {@code target/}, started and stopped by the harness.
 */
final class Nginx implements AutoCloseable {

    private final Process process;
    final int port;

    private Nginx(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static Path binary() {
        return RedisServer.onPath("nginx");
    }

    static Nginx start(Path nginx, Path dir, int upstreamPort) throws IOException, InterruptedException {
        Files.createDirectories(dir.resolve("logs"));
        int port = RedisServer.freePort();
        String conf = String.join("\n", List.of(
                "# Written by the Tollgate benchmark harness; loopback only.",
                "daemon off;",
                "master_process on;",
                "worker_processes 1;",
                "pid " + dir.resolve("nginx.pid") + ";",
                "error_log " + dir.resolve("logs/error.log") + " error;",
                "events { worker_connections 4096; }",
                "http {",
                "  access_log off;",
                "  client_body_temp_path " + dir.resolve("client_body") + ";",
                "  proxy_temp_path " + dir.resolve("proxy") + ";",
                "  fastcgi_temp_path " + dir.resolve("fastcgi") + ";",
                "  uwsgi_temp_path " + dir.resolve("uwsgi") + ";",
                "  scgi_temp_path " + dir.resolve("scgi") + ";",
                "  limit_req_zone $http_x_client_id zone=per_client:10m rate=10r/s;",
                "  limit_req_status 429;",
                "  limit_req_log_level warn;",
                "  upstream app { server 127.0.0.1:" + upstreamPort + "; keepalive 64; }",
                "  server {",
                "    listen 127.0.0.1:" + port + ";",
                "    keepalive_requests 1000000;",
                "    location / {",
                "      limit_req zone=per_client burst=20 nodelay;",
                "      proxy_pass http://app;",
                "      proxy_http_version 1.1;",
                "      proxy_set_header Connection \"\";",
                "    }",
                "  }",
                "}",
                ""));
        Path file = dir.resolve("nginx.conf");
        Files.writeString(file, conf, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(nginx.toString(), "-p", dir.toString(), "-c", file.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("logs/stdout.log").toFile())
                .start();
        Nginx n = new Nginx(p, port);
        Runtime.getRuntime().addShutdownHook(new Thread(n::close));
        for (int i = 0; i < 100 && p.isAlive(); i++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return n;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        n.close();
        throw new IllegalStateException("nginx did not start; see " + dir.resolve("logs"));
    }

    ProcessHandle handle() {
        return process.toHandle();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy(); // SIGTERM: fast shutdown of master and workers
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
