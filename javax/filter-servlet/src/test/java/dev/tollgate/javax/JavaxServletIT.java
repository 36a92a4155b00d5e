package dev.tollgate.javax;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.RedisEndpoint;
import dev.tollgate.testing.TestRedis;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.jar.JarFile;
import javax.servlet.Filter;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.Test;

/**
 * The javax jars as the build made them (the transformed {@code tollgate-filter-servlet-javax} and
 * {@code tollgate-filter-core-javax} jars, not classes compiled here), on a class path with the
 * Servlet 4 and CDI 2.0 APIs (Tomcat 9, javax.enterprise) and no jakarta API at all: every class
 * loads and links its members, and the filter limits requests in an embedded Tomcat 9 against a real Redis.
 */
class JavaxServletIT {

    @Test
    void theClassPathHasJavaxApisOnly() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("jakarta.servlet.Filter"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("jakarta.enterprise.inject.spi.Extension"));
        assertTrue(Filter.class.isAssignableFrom(load("dev.tollgate.servlet.TollgateFilter")));
        assertEquals(Path.of(System.getProperty("tollgate.javax.jar")).toUri(),
                location("dev.tollgate.servlet.TollgateFilter"), "the class must come from the transformed jar");
        assertTrue(location("dev.tollgate.Tollgate").getPath().endsWith("tollgate-filter-core-javax-" + version() + ".jar"),
                "core must come from tollgate-filter-core-javax: " + location("dev.tollgate.Tollgate"));
    }

    /**
     * Each class of both jars, with its fields', methods' and constructors' types and generic
     * signatures (what Weld and Tomcat read by reflection). A class of an optional integration whose
     * library is absent here (OpenTelemetry, Micrometer, MicroProfile Metrics) may fail to link; none
     * may fail on a jakarta type.
     */
    @Test
    void everyClassLinksAgainstJavaxApis() throws IOException {
        List<String> failures = new ArrayList<>();
        int classes = 0;
        List<String> absentOptional = new ArrayList<>();
        for (String jar : List.of(System.getProperty("tollgate.javax.jar"), location("dev.tollgate.Tollgate").getPath())) {
            try (JarFile j = new JarFile(new File(jar))) {
                for (String name : Collections.list(j.entries()).stream().map(e -> e.getName())
                        .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class")).toList()) {
                    String cls = name.substring(0, name.length() - ".class".length()).replace('/', '.');
                    classes++;
                    try {
                        Class<?> c = Class.forName(cls, false, getClass().getClassLoader());
                        c.getDeclaredFields();
                        c.getDeclaredConstructors();
                        for (var m : c.getDeclaredMethods()) {
                            m.getGenericParameterTypes();
                            m.getGenericReturnType();
                            m.getParameterAnnotations();
                        }
                        c.getGenericInterfaces();
                        c.getGenericSuperclass();
                        c.getAnnotations();
                    } catch (Throwable t) {
                        String why = t.toString();
                        boolean optional = why.contains("io/opentelemetry") || why.contains("io.opentelemetry")
                                || why.contains("io/micrometer") || why.contains("io.micrometer")
                                || why.contains("org/eclipse/microprofile") || why.contains("org.eclipse.microprofile");
                        if (!optional || why.contains("jakarta")) {
                            failures.add(cls + ": " + why);
                        } else {
                            absentOptional.add(cls);
                        }
                    }
                }
            }
        }
        System.out.println("[javax] " + classes + " classes checked; optional integrations without their library here: "
                + absentOptional);
        assertTrue(classes > 100, "both jars read: " + classes);
        assertEquals(List.of(), failures);
    }

    /**
     * The drop-in jar is shaded from the transformed classes as the jakarta one is from its own: the
     * javax service files, Jedis relocated, and each bundled library's coordinates and licence kept.
     */
    @Test
    void theDropInJarHoldsTheJavaxClassesAndNamesWhatItBundles() throws IOException {
        try (JarFile all = new JarFile(new File(System.getProperty("tollgate.javax.dropin")))) {
            List<String> names = Collections.list(all.entries()).stream().map(e -> e.getName()).toList();
            for (String expected : List.of("dev/tollgate/servlet/TollgateFilter.class",
                    "META-INF/services/javax.servlet.ServletContainerInitializer",
                    "META-INF/services/javax.enterprise.inject.spi.Extension",
                    "META-INF/maven/redis.clients/jedis/pom.properties",
                    "META-INF/maven/org.apache.commons/commons-pool2/pom.properties",
                    "META-INF/licenses/jedis/LICENSE.txt",
                    "META-INF/LICENSE")) {
                assertTrue(names.contains(expected), expected + " in the drop-in jar");
            }
            assertTrue(names.stream().noneMatch(n -> n.startsWith("META-INF/services/jakarta.")), "no jakarta service file");
            assertTrue(names.stream().noneMatch(n -> n.startsWith("redis/clients/")), "Jedis is relocated");
            assertTrue(names.stream().anyMatch(n -> n.startsWith("dev/tollgate/shaded/redis/clients/")), "Jedis is inside");
            assertEquals("dev.tollgate.servlet", all.getManifest().getMainAttributes().getValue("Automatic-Module-Name"));
        }
    }

    /** Limits 1/s burst 3 from init-params: 10 quick requests, 3 (or 4, if a second passed) admitted, then 429 with Retry-After. */
    @Test
    void theFilterLimitsInTomcat9() throws Exception {
        RedisEndpoint redis = TestRedis.shared();
        String prefix = "javax-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        Path base = Files.createTempDirectory("tollgate-tomcat9-");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("/shop", base.toString());
        Tomcat.addServlet(context, "hello", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setContentType("text/plain");
                resp.getWriter().write("hello");
            }
        });
        context.addServletMappingDecoded("/api/hello", "hello");
        FilterDef def = new FilterDef();
        def.setFilterName("tollgate");
        def.setFilterClass("dev.tollgate.servlet.TollgateFilter");
        def.setAsyncSupported("true");
        def.addInitParameter("tollgate.redis.uri", redis.uri());
        def.addInitParameter("tollgate.redis.key-prefix", prefix);
        def.addInitParameter("tollgate.policy.default.limits", "1/s burst 3");
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("tollgate");
        map.addURLPatternDecoded("/api/*");
        context.addFilterMap(map);
        tomcat.start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/shop/api/hello");
            int admitted = 0;
            int refused = 0;
            for (int i = 0; i < 10; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    assertEquals("hello", r.body());
                    admitted++;
                } else {
                    assertEquals(429, r.statusCode(), r.body());
                    long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
                    assertTrue(retryAfter >= 1, "Retry-After: " + retryAfter);
                    refused++;
                }
            }
            System.out.printf("[javax] Tomcat %s, 1/s burst 3: %d admitted, %d refused%n",
                    org.apache.catalina.util.ServerInfo.getServerNumber(), admitted, refused);
            assertTrue(admitted >= 3 && admitted <= 4, "the burst: " + admitted);
            assertEquals(10 - admitted, refused);
            String keys = redis.command("KEYS", prefix + "*");
            assertTrue(keys.contains(prefix + "/shop:{ip=127.0.0.1}:default"), "the jakarta build's key, namespace /shop: " + keys);
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    private static URI location(String cls) {
        try {
            return load(cls).getProtectionDomain().getCodeSource().getLocation().toURI();
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private static String version() {
        String jar = Path.of(System.getProperty("tollgate.javax.jar")).getFileName().toString();
        return jar.substring("tollgate-filter-servlet-javax-".length(), jar.length() - ".jar".length());
    }
}
