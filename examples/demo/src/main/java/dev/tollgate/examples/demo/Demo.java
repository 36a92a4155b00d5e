package dev.tollgate.examples.demo;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Starts examples/servlet-app on an embedded Tomcat at port 8080 (or {@code PORT}). The store:
 * {@code TOLLGATE_REDIS_URI} when set; else a {@code redis-server} from the PATH, started here on a
 * free port and stopped on exit; else the in-memory store. {@code TOLLGATE_ENABLED=false} runs the
 * same application with Tollgate off, for the "before" of a load test on {@code /api/work}.
 * Tollgate's meters are at {@code /metrics}, for Prometheus.
 *
 * <p>Ctrl-C (SIGINT) or SIGTERM stops it cleanly: Tomcat and the {@code redis-server} it started
 * are stopped and {@code main} returns, so the JVM ends with status 0. That also holds when it runs
 * inside Maven's JVM ({@code exec:java}, as the README runs it): the signal handlers below replace
 * the JVM's own, which would otherwise end Maven with status 130. A second signal, while stopping
 * hangs, ends the JVM at once.
 */
public final class Demo {

    /** The redis-server this demo started, if any; stopped on the way out. */
    private static volatile Process redisServer;
    private static volatile Path redisDir;

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        Path war = Path.of(args.length > 0 ? args[0] : "target/demo/servlet-app.war").toAbsolutePath();
        if (!Files.isRegularFile(war)) {
            System.err.println("No WAR at " + war + ": build it with mvn -pl examples/demo -am -DskipTests package");
            System.exit(2);
        }
        int port = port();
        // Before anything starts: a signal from now on stops what has started, and nothing else.
        AtomicBoolean stopping = new AtomicBoolean();
        CountDownLatch stopRequested = new CountDownLatch(1);
        onStopSignal(stopping, stopRequested);
        // For any other way out (System.exit elsewhere, an exception): no redis-server left behind.
        Thread leftovers = new Thread(Demo::stopRedis, "tollgate-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(leftovers);

        String store = chooseStore();
        Path base = Files.createTempDirectory("tollgate-demo-");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(port);
        // The application's class loader gets Tomcat's classes from the loader that has them: under
        // exec:java that is not the JVM's system class loader, which Tomcat would take by default.
        tomcat.getServer().setParentClassLoader(Demo.class.getClassLoader());
        tomcat.getConnector(); // creates the HTTP connector on that port
        Path apps = Files.createDirectories(base.resolve("webapps"));
        tomcat.getHost().setAppBase(apps.toString());
        tomcat.setAddDefaultWebXmlToWebapp(false);
        Context ctx = tomcat.addWebapp("", war.toString());
        PrometheusMeterRegistry prometheus = prometheusAtMetrics(ctx);
        // Tomcat's leak checks of ThreadLocals and RMI need --add-opens, which the demo cannot give
        // Maven's JVM (exec:java): without this they print a warning each at every stop.
        if (ctx instanceof StandardContext standard) {
            standard.setClearReferencesThreadLocals(false);
            standard.setClearReferencesRmiTargets(false);
            // A servlet that refuses its init-params (the work servlet's) stops the demo, not only
            // that servlet.
            standard.setFailCtxIfServletStartFails(true);
        }
        try {
            tomcat.start();
            if (ctx.getState() != LifecycleState.STARTED) {
                System.err.println("The example application did not start; the log above says why.");
                stop(tomcat);
                stopRedis();
                System.exit(1);
            }

            String url = "http://localhost:" + port + "/api/hello";
            String work = "http://localhost:" + port + "/api/work";
            String limits = System.getenv("TOLLGATE_POLICY_DEFAULT_LIMITS");
            String off = switchedOff();
            System.out.println();
            System.out.println("Tollgate demo is up: " + url);
            System.out.println("  store:  " + store);
            if (off != null) {
                System.out.println("  limits: OFF (" + off + "): every request passes, unlimited, with no RateLimit header");
            } else {
                System.out.println("  limits: " + (limits != null ? limits + " (from TOLLGATE_POLICY_DEFAULT_LIMITS)"
                        : "5/s burst 10 per client address (web.xml; set TOLLGATE_POLICY_DEFAULT_LIMITS to change)"));
            }
            System.out.println("  work:   " + work + workCost(ctx));
            System.out.println("  metrics: http://localhost:" + port + "/metrics (Prometheus' text; docs/operations/ has a dashboard and alert rules)");
            System.out.println("Try:");
            System.out.println("  curl -i " + url);
            System.out.println("  for i in $(seq 40); do curl -s -o /dev/null -w '%{http_code}\\n' " + url + "; done | sort | uniq -c");
            System.out.println("  hey -z 30s -c 50 " + work);
            System.out.println("Stop with Ctrl-C.");
            stopRequested.await();
            System.out.println();
            System.out.println("Stopping the Tollgate demo.");
        } finally {
            stop(tomcat);
            stopRedis();
            io.micrometer.core.instrument.Metrics.removeRegistry(prometheus);
            prometheus.close();
            Runtime.getRuntime().removeShutdownHook(leftovers);
        }
        System.out.println("Tollgate demo stopped.");
    }

    /**
     * SIGINT (Ctrl-C) and SIGTERM release {@code stopRequested}, so that {@code main} stops
     * everything and returns; a second one, if stopping hangs, halts the JVM. Where the JVM was
     * started with a signal ignored (a background job of a script), it stays ignored.
     */
    private static void onStopSignal(AtomicBoolean stopping, CountDownLatch stopRequested) {
        SignalHandler handler = signal -> {
            if (stopping.compareAndSet(false, true)) {
                stopRequested.countDown();
            } else {
                System.err.println("Second " + signal + " while stopping: exiting at once.");
                Runtime.getRuntime().halt(128 + signal.getNumber());
            }
        };
        Signal.handle(new Signal("INT"), handler);
        Signal.handle(new Signal("TERM"), handler);
    }

    /**
     * Serves {@code GET /metrics} in Prometheus' text format, from a registry added to Micrometer's
     * global one. Tollgate records there: Micrometer is not in the WAR, Tomcat's class loader finds
     * it on the demo's class path, and on a server without a registry of its own Tollgate takes the
     * global one. {@code /metrics} is outside the filter's {@code /api/*}: never limited.
     */
    private static PrometheusMeterRegistry prometheusAtMetrics(Context ctx) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        io.micrometer.core.instrument.Metrics.addRegistry(registry);
        Tomcat.addServlet(ctx, "tollgate-demo-metrics", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setContentType("text/plain; version=0.0.4; charset=utf-8");
                registry.scrape(resp.getOutputStream());
            }
        });
        ctx.addServletMappingDecoded("/metrics", "tollgate-demo-metrics");
        return registry;
    }

    /** What a request to /api/work costs, from its init-params in the application's web.xml. */
    private static String workCost(Context ctx) {
        if (!(ctx.findChild("work") instanceof Wrapper work)) {
            return "";
        }
        String cpu = work.findInitParameter("cpu-micros");
        String pool = work.findInitParameter("pool-size");
        String hold = work.findInitParameter("hold-millis");
        if (cpu == null || pool == null || hold == null) {
            return "";
        }
        return " (" + cpu + " us of CPU, then one of " + pool + " connections for " + hold + " ms)";
    }

    /**
     * Where Tollgate was turned off, e.g. {@code TOLLGATE_ENABLED=false}, or {@code null} when it is
     * on. Read as the filter reads {@code tollgate.enabled} on a server without MicroProfile Config
     * (system property, then environment variable), so what the demo prints is what the filter does;
     * a value the filter refuses stops the application before this is printed.
     */
    static String switchedOff() {
        String[][] sources = {
            {"system property tollgate.enabled", System.getProperty("tollgate.enabled")},
            {"tollgate.enabled", System.getenv("tollgate.enabled")},
            {"tollgate_enabled", System.getenv("tollgate_enabled")},
            {"TOLLGATE_ENABLED", System.getenv("TOLLGATE_ENABLED")},
        };
        for (String[] source : sources) {
            if (source[1] != null) {
                String v = source[1].strip().toLowerCase(java.util.Locale.ROOT);
                boolean isOff = v.equals("false") || v.equals("no") || v.equals("off");
                return isOff ? source[0] + "=" + source[1] : null;
            }
        }
        return null;
    }

    private static void stop(Tomcat tomcat) {
        try {
            if (tomcat.getServer().getState().isAvailable()) {
                tomcat.stop();
            }
            tomcat.destroy();
        } catch (Exception e) {
            System.err.println("While stopping Tomcat: " + e);
        }
    }

    private static int port() {
        String p = System.getenv("PORT");
        if (p == null || p.isBlank()) {
            return 8080;
        }
        try {
            int n = Integer.parseInt(p.trim());
            if (n > 0 && n < 65536) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        System.err.println("PORT=" + p + " is not a port number (1-65535)");
        System.exit(2);
        return -1;
    }

    /** Sets tollgate.redis.uri when a Redis is to be used, and says which store it is. */
    private static String chooseStore() throws IOException, InterruptedException {
        String uri = System.getenv("TOLLGATE_REDIS_URI");
        if (uri != null && !uri.isBlank()) {
            return "Redis at " + uri.replaceAll(":[^:@/]*@", ":****@") + " (from TOLLGATE_REDIS_URI)";
        }
        Path redis = onPath("redis-server");
        if (redis == null) {
            return "in-memory (no TOLLGATE_REDIS_URI and no redis-server on the PATH)";
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path dir = Files.createTempDirectory("tollgate-demo-redis-");
        Process p = new ProcessBuilder(redis.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        redisServer = p;
        redisDir = dir;
        if (!awaitPong(port, p)) {
            p.destroyForcibly();
            redisServer = null;
            return "in-memory (redis-server from the PATH did not start; see " + dir.resolve("redis.log") + ")";
        }
        System.setProperty("tollgate.redis.uri", "redis://127.0.0.1:" + port);
        return "Redis at redis://127.0.0.1:" + port + " (" + redis + ", started for this demo, stopped on exit)";
    }

    /** Stops the redis-server this demo started, if it did; safe to call more than once, from any thread. */
    private static synchronized void stopRedis() {
        Process p = redisServer;
        if (p == null) {
            return;
        }
        redisServer = null;
        p.destroy();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
        redisDir.resolve("redis.log").toFile().delete();
        redisDir.toFile().delete();
    }

    private static boolean awaitPong(int port, Process p) throws InterruptedException {
        for (int i = 0; i < 100 && p.isAlive(); i++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] b = new byte[5];
                if (s.getInputStream().read(b) == 5 && new String(b, StandardCharsets.US_ASCII).equals("+PONG")) {
                    return true;
                }
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        return false;
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }
}
