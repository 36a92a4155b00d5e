package dev.tollgate.examples.demo;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;

/**
 * Starts examples/servlet-app on an embedded Tomcat at port 8080 (or {@code PORT}). The store:
 * {@code TOLLGATE_REDIS_URI} when set; else a {@code redis-server} from the PATH, started here on a
 * free port and stopped on exit; else the in-memory store.
 */
public final class Demo {

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        Path war = Path.of(args.length > 0 ? args[0] : "target/demo/servlet-app.war").toAbsolutePath();
        if (!Files.isRegularFile(war)) {
            System.err.println("No WAR at " + war + ": build it with mvn -pl examples/demo -am -DskipTests package");
            System.exit(2);
        }
        int port = port();
        String store = chooseStore();

        Path base = Files.createTempDirectory("tollgate-demo-");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(port);
        tomcat.getConnector(); // creates the HTTP connector on that port
        Path apps = Files.createDirectories(base.resolve("webapps"));
        tomcat.getHost().setAppBase(apps.toString());
        tomcat.setAddDefaultWebXmlToWebapp(false);
        Context ctx = tomcat.addWebapp("", war.toString());
        tomcat.start();
        if (ctx.getState() != LifecycleState.STARTED) {
            System.err.println("The example application did not start; the log above says why.");
            tomcat.stop();
            System.exit(1);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                tomcat.stop();
                tomcat.destroy();
            } catch (Exception e) {
                // exiting anyway
            }
        }));

        String url = "http://localhost:" + port + "/api/hello";
        String limits = System.getenv("TOLLGATE_POLICY_DEFAULT_LIMITS");
        System.out.println();
        System.out.println("Tollgate demo is up: " + url);
        System.out.println("  store:  " + store);
        System.out.println("  limits: " + (limits != null ? limits + " (from TOLLGATE_POLICY_DEFAULT_LIMITS)"
                : "5/s burst 10 per client address (web.xml; set TOLLGATE_POLICY_DEFAULT_LIMITS to change)"));
        System.out.println("Try:");
        System.out.println("  curl -i " + url);
        System.out.println("  for i in $(seq 40); do curl -s -o /dev/null -w '%{http_code}\\n' " + url + "; done | sort | uniq -c");
        System.out.println("Stop with Ctrl-C.");
        tomcat.getServer().await();
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
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            p.destroy();
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            p.destroyForcibly();
            dir.resolve("redis.log").toFile().delete();
            dir.toFile().delete();
        }));
        if (!awaitPong(port, p)) {
            p.destroyForcibly();
            return "in-memory (redis-server from the PATH did not start; see " + dir.resolve("redis.log") + ")";
        }
        System.setProperty("tollgate.redis.uri", "redis://127.0.0.1:" + port);
        return "Redis at redis://127.0.0.1:" + port + " (" + redis + ", started for this demo, stopped on exit)";
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
