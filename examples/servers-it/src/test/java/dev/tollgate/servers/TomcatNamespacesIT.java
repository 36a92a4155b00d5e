package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRedis;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 29, as a new user met it: the servlet drop-in jar once in Tomcat 10.1's shared
 * {@code lib/}, the filter declared in several applications with limits as init-params, one Redis
 * for all. Each application keeps its own allowance (its namespace is its context path); two that
 * an operator gives one {@code tollgate.namespace} share; two given one by mistake, with other
 * limits, are reported ({@code TOLLGATE-015}). The WARs are written here: a {@code web.xml} and
 * one static file, served by Tomcat's default servlet behind the filter; no Tollgate inside.
 *
 * <p>Limits are 1/s: 20 quick requests admit the burst, and one token more if a second passed
 * while they ran (the bounds allow it).
 */
class TomcatNamespacesIT {

    private static final int REQUESTS = 20;

    @Test
    void applicationsOnOneRedisAreApartByDefaultAndShareOnlyOnPurpose() throws IOException {
        RedisEndpoint redis = TestRedis.shared();
        String prefix = "ns-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        Path wars = Files.createDirectories(Build.workDir().resolve("namespace-wars"));
        Deployment examples = war(wars, "examples", "Servlet and JSP Examples", "1/s burst 5", null);
        Deployment shop = war(wars, "shop", null, "1/s burst 12", null);
        Deployment orders = war(wars, "orders", null, "1/s burst 3", "storefront"); // shared on purpose,
        Deployment cart = war(wars, "cart", null, "1/s burst 3", "storefront");     // with the same limits
        Deployment left = war(wars, "left", null, "1/s burst 2", "mistake");        // shared by mistake,
        Deployment right = war(wars, "right", null, "1/s burst 4", "mistake");      // with other limits
        Launch launch = Launch.of(Servers.tomcat10(), examples, "namespaces")
                .deploy(shop).deploy(orders).deploy(cart).deploy(left).deploy(right)
                .sharedLib(Build.libsDir().resolve("tollgate-filter-servlet-all.jar"))
                .env("TOLLGATE_REDIS_URI", redis.uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", prefix)
                .env("TOLLGATE_STRICT_CONFIG", "true");
        try (ServerProcess tomcat = launch.start()) {
            int a = admitted(tomcat, examples);
            int b = admitted(tomcat, shop);
            System.out.printf("[servers-it] %s: %d quick requests each: /examples (1/s burst 5) admitted %d,"
                    + " /shop (1/s burst 12) admitted %d%n", tomcat.title(), REQUESTS, a, b);
            assertTrue(a >= 5 && a <= 6, "/examples keeps its burst of 5: " + a);
            assertTrue(b >= 12 && b <= 13, "/shop keeps its whole burst of 12, whatever /examples did: " + b);
            List<String> buckets = redis.command("KEYS", prefix + "*{*").lines().sorted().toList();
            assertTrue(buckets.contains(prefix + "/examples:{ip=127.0.0.1}:default")
                    && buckets.contains(prefix + "/shop:{ip=127.0.0.1}:default"), "a bucket of each: " + buckets);

            int together = admitted(tomcat, orders) + admitted(tomcat, cart);
            System.out.printf("[servers-it] %s: /orders and /cart, namespace 'storefront' (1/s burst 3 each): %d admitted"
                    + " together%n", tomcat.title(), together);
            assertTrue(together >= 3 && together <= 4, "one namespace set on purpose, one bucket: " + together);

            admitted(tomcat, left);
            admitted(tomcat, right);
            List<String> started = tomcat.logLines("TOLLGATE-010");
            assertTrue(started.stream().anyMatch(l -> l.contains("namespace '/shop' (the application's context path)")),
                    "the start-up line says the namespace and where it came from: " + started);
            assertTrue(started.stream().anyMatch(l -> l.contains("namespace 'storefront' (init-param of filter 'tollgate')")),
                    String.join("\n", started));
            List<String> conflicts = tomcat.logLines("TOLLGATE-015");
            System.out.println("[servers-it] " + tomcat.title() + ": " + conflicts);
            assertEquals(1, conflicts.size(), "the mistaken namespace is said once, by the second to start: " + conflicts);
            assertTrue(conflicts.get(0).contains("policy 'default'") && conflicts.get(0).contains("namespace 'mistake'")
                    && !conflicts.get(0).contains("127.0.0.1"), conflicts.get(0));
        }
    }

    private static int admitted(ServerProcess tomcat, Deployment d) {
        int n = 0;
        for (int i = 0; i < REQUESTS; i++) {
            int status = tomcat.get(d, "/hello.txt").statusCode();
            assertTrue(status == 200 || status == 429, d.contextPath() + ": " + status);
            n += status == 200 ? 1 : 0;
        }
        return n;
    }

    /** A WAR with the filter on every path, its limit (and namespace, if given) as init-params, and one static file. */
    private static Deployment war(Path dir, String context, String displayName, String limits, String namespace)
            throws IOException {
        StringBuilder params = new StringBuilder(param("tollgate.policy.default.limits", limits));
        if (namespace != null) {
            params.append(param("tollgate.namespace", namespace));
        }
        String webXml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\">\n"
                + (displayName == null ? "" : "  <display-name>" + displayName + "</display-name>\n")
                + "  <filter>\n    <filter-name>tollgate</filter-name>\n"
                + "    <filter-class>dev.tollgate.servlet.TollgateFilter</filter-class>\n" + params
                + "  </filter>\n  <filter-mapping>\n    <filter-name>tollgate</filter-name>\n"
                + "    <url-pattern>/*</url-pattern>\n  </filter-mapping>\n</web-app>\n";
        Path war = dir.resolve(context + ".war");
        try (OutputStream out = Files.newOutputStream(war); ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Map.Entry<String, String> e : Map.of("WEB-INF/web.xml", webXml, "hello.txt", "hello\n").entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return new Deployment(war, context);
    }

    private static String param(String name, String value) {
        return "    <init-param>\n      <param-name>" + name + "</param-name>\n      <param-value>" + value
                + "</param-value>\n    </init-param>\n";
    }
}
