package dev.tollgate.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds the Redis the tests use, in this order, and says which in the test log:
 * <ol>
 *   <li>{@code TOLLGATE_TEST_REDIS_URI}, when set (a Redis you run; tests that must kill or pause
 *       Redis still start their own process);</li>
 *   <li>a {@code redis-server} on the {@code PATH}, started on a free port;</li>
 *   <li>Testcontainers, when a Docker engine answers;</li>
 *   <li>the {@code redis-server} binary inside the test dependency
 *       {@code com.github.codemonstur:embedded-redis} (Redis 6.2), started the same way.</li>
 * </ol>
 * With none of them it fails with a message that says how to get one.
 *
 * <p>{@code TOLLGATE_TEST_REDIS_SERVER} picks the {@code redis-server} instead: {@code embedded} for
 * the embedded 6.2 binary even when another is on the {@code PATH}, or the path of a binary. CI runs
 * the Redis-facing tests twice this way, against the oldest version supported and the newest one
 * installed. The test log names the binary and its version.
 */
public final class TestRedis {

    private static RedisEndpoint shared;
    private static Path binary;
    private static String binaryKind;
    private static Path embedded;

    private TestRedis() {
    }

    /** The Redis shared by every test in this JVM; tests keep apart by using distinct keys. */
    public static synchronized RedisEndpoint shared() {
        if (shared == null) {
            shared = find();
            System.out.println("[tollgate-test] Redis for tests: " + shared.kind() + " at " + shared.uri());
        }
        return shared;
    }

    /** A new Redis process owned by the caller, which may kill, pause and restart it. */
    public static synchronized RedisProcess startProcess(String... extraArgs) {
        locateBinary();
        return RedisProcess.start(binary, binaryKind, extraArgs);
    }

    /**
     * A new Redis process owned by the caller, on {@code port} (0: a free one), with an optional
     * configuration file written to its directory and passed first (see {@link RedisProcess#start(Path, String, int, String, String...)}).
     */
    public static synchronized RedisProcess startProcess(int port, String configText, String... extraArgs) {
        locateBinary();
        return RedisProcess.start(binary, binaryKind, port, configText, extraArgs);
    }

    /** The redis-server binary that {@link #startProcess} runs. */
    public static synchronized Path binary() {
        locateBinary();
        return binary;
    }

    /**
     * The Redis 6.2 {@code redis-server} inside the test dependency {@code embedded-redis}, whatever
     * is on the {@code PATH}: for what only Redis 5 and 6 do (a script replicated whole where
     * {@code lua-replicate-commands} is {@code no}; Redis 7 has no such setting).
     */
    public static synchronized Path embeddedBinary() {
        if (embedded == null) {
            embedded = extractEmbedded();
        }
        return embedded;
    }

    /** Where {@link #binary()} came from, for the test log. */
    public static synchronized String binaryKind() {
        locateBinary();
        return binaryKind;
    }

    private static RedisEndpoint find() {
        if (chosen() != null) {
            locateBinary();
            return RedisProcess.start(binary, binaryKind);
        }
        String external = System.getenv("TOLLGATE_TEST_REDIS_URI");
        if (external != null && !external.isBlank()) {
            URI u = URI.create(external.trim());
            String host = u.getHost();
            int port = u.getPort() == -1 ? 6379 : u.getPort();
            return new RedisEndpoint() {
                public String host() {
                    return host;
                }

                public int port() {
                    return port;
                }

                public String kind() {
                    return "TOLLGATE_TEST_REDIS_URI";
                }
            };
        }
        if (onPath() != null) {
            locateBinary();
            return RedisProcess.start(binary, binaryKind);
        }
        RedisEndpoint container = Containers.tryStart();
        if (container != null) {
            return container;
        }
        locateBinary();
        return RedisProcess.start(binary, binaryKind);
    }

    private static void locateBinary() {
        if (binary != null) {
            return;
        }
        String chosen = chosen();
        if ("embedded".equals(chosen)) {
            binary = embeddedBinary();
            binaryKind = "redis-server " + version(binary) + " from the embedded-redis test dependency"
                    + " (TOLLGATE_TEST_REDIS_SERVER=embedded)";
            return;
        }
        if (chosen != null) {
            Path p = Path.of(chosen);
            if (!Files.isExecutable(p)) {
                throw noRedis("TOLLGATE_TEST_REDIS_SERVER = '" + chosen + "' is neither 'embedded' nor an executable redis-server");
            }
            binary = p;
            binaryKind = "redis-server " + version(p) + " (TOLLGATE_TEST_REDIS_SERVER=" + chosen + ")";
            return;
        }
        Path onPath = onPath();
        if (onPath != null) {
            binary = onPath;
            binaryKind = "redis-server " + version(onPath) + " from PATH (" + onPath + ")";
            return;
        }
        binary = embeddedBinary();
        binaryKind = "redis-server " + version(binary) + " from the embedded-redis test dependency";
    }

    /** {@code TOLLGATE_TEST_REDIS_SERVER}, or {@code null} when unset or blank. */
    private static String chosen() {
        String v = System.getenv("TOLLGATE_TEST_REDIS_SERVER");
        return v == null || v.isBlank() ? null : v.trim();
    }

    /** The version {@code redis-server --version} prints ("v=7.0.15"), or "(version unknown)". */
    private static String version(Path redisServer) {
        try {
            Process p = new ProcessBuilder(redisServer.toString(), "--version").redirectErrorStream(true).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
            p.waitFor();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("v=(\\S+)").matcher(out);
            return m.find() ? m.group(1) : "(version unknown)";
        } catch (IOException e) {
            return "(version unknown: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(version unknown)";
        }
    }

    private static Path onPath() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, "redis-server");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static Path extractEmbedded() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String resource;
        boolean arm = arch.contains("aarch64") || arch.contains("arm64");
        if (os.contains("linux")) {
            resource = arm ? "/redis-server-6.2.7-linux-arm64" : "/redis-server-6.2.6-v5-linux-amd64";
        } else if (os.contains("mac")) {
            resource = arm ? "/redis-server-6.2.6-v5-darwin-arm64" : "/redis-server-6.2.6-v5-darwin-amd64";
        } else {
            throw noRedis("there is no embedded redis-server for " + os + "/" + arch);
        }
        try (InputStream in = TestRedis.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw noRedis("the embedded-redis test dependency is not on the class path");
            }
            Path dir = Files.createTempDirectory("tollgate-redis-bin-");
            Path target = dir.resolve("redis-server");
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true)) {
                throw noRedis("cannot make " + target + " executable");
            }
            // deleteOnExit works in reverse order of registration: the file first, then its directory.
            dir.toFile().deleteOnExit();
            target.toFile().deleteOnExit();
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static IllegalStateException noRedis(String why) {
        return new IllegalStateException("No Redis for the tests: " + why + ". Set TOLLGATE_TEST_REDIS_URI to a Redis you run,"
                + " or install redis-server (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis),"
                + " or start a Docker engine for Testcontainers.");
    }

    /** Testcontainers, touched only when no redis-server is on the PATH. */
    private static final class Containers {
        static RedisEndpoint tryStart() {
            try {
                if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                    return null;
                }
                @SuppressWarnings("resource")
                org.testcontainers.containers.GenericContainer<?> c =
                        new org.testcontainers.containers.GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
                c.start();
                String host = c.getHost();
                int port = c.getMappedPort(6379);
                Runtime.getRuntime().addShutdownHook(new Thread(c::stop));
                return new RedisEndpoint() {
                    public String host() {
                        return host;
                    }

                    public int port() {
                        return port;
                    }

                    public String kind() {
                        return "Testcontainers redis:7-alpine";
                    }
                };
            } catch (RuntimeException | LinkageError e) {
                System.out.println("[tollgate-test] Testcontainers unusable (" + e.getMessage() + ")");
                return null;
            }
        }
    }
}
