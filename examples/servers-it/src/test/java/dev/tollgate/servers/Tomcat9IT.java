package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.testing.TestRedis;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Tomcat 9 (Servlet 4.0, javax) with the javax build: {@code servlet-app} transformed at build
 * time (its filter from web.xml, limits from the environment, the same contract as on Tomcat 10.1
 * and 11), a bad limit, and the javax drop-in jar put into Tomcat 9's own {@code examples}
 * application as a user of Tomcat 9 would. No JAX-RS application here: Tomcat has no JAX-RS, and
 * the Tomcat variant of the JAX-RS example bundles Jersey 3 (jakarta); the javax JAX-RS filter is
 * tested on WildFly 26.
 */
class Tomcat9IT extends ServerContract {

    Tomcat9IT() {
        super(Javax.tomcat9(), null);
    }

    @Override
    protected List<App> mainApps() {
        return List.of(Javax.SERVLET_APP);
    }

    @Nested
    class ServletApp extends RateLimitedAppContract {
        ServletApp() {
            super(Tomcat9IT.this, Javax.SERVLET_APP);
        }
    }

    /** As on Tomcat 10.1 and 11: the context does not start, and the log names key, value and source. */
    @Test
    void anInvalidLimitKeepsTheServletAppFromStartingAndIsLoggedAsTollgate001() {
        try (ServerProcess bad = launch("bad-limits", Javax.SERVLET_APP, newKeyPrefix("bad"))
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", "10/fortnight").start()) {
            assertEquals(404, bad.get(Javax.SERVLET_APP.limitedPath()).statusCode(), "the context must not be available");
            assertTollgate001(bad, "10/fortnight", "environment variable TOLLGATE_POLICY_DEFAULT_LIMITS");
            assertFalse(bad.logLines("Context [/servlet-app] startup failed").isEmpty(), "Tomcat reports that the context did not start");
            assertFalse(bad.logContains("TOLLGATE-010"), "Tollgate must not report that it started");
        }
    }

    /**
     * Tomcat 9's own {@code examples} application (from its distribution) with the javax drop-in jar
     * in {@code WEB-INF/lib} and the filter added to its {@code web.xml} in front of everything;
     * limits from the environment ({@code 1/s burst 4}). Its HelloWorld servlet answers the burst,
     * then 429 with Retry-After, and its JSPs are behind the same bucket.
     */
    @Test
    void theDropInJarLimitsTomcat9sOwnExamplesApplication() throws IOException {
        Path home = Build.onlyDirectoryIn(Build.serversDir().resolve("tomcat-9"));
        Path war = Files.createDirectories(Build.workDir().resolve("tomcat9-examples")).resolve("examples.war");
        Files.deleteIfExists(war);
        examplesWithTollgate(home.resolve("webapps").resolve("examples"),
                Build.libsDir().resolve("tollgate-filter-servlet-javax-all.jar"), war);
        Deployment examples = new Deployment(war, "examples");
        String prefix = newKeyPrefix("examples");
        try (ServerProcess tomcat = Launch.of(serverKind, examples, "examples-drop-in")
                .env("TOLLGATE_REDIS_URI", TestRedis.shared().uri())
                .env("TOLLGATE_REDIS_KEY_PREFIX", prefix)
                .env("TOLLGATE_REDIS_TIMEOUT", "2s")
                .env("TOLLGATE_POLICY_DEFAULT_LIMITS", "1/s burst 4")
                .start()) {
            int admitted = 0;
            int refused = 0;
            for (int i = 0; i < 12; i++) {
                HttpResponse<String> r = tomcat.get(examples, "/servlets/servlet/HelloWorldExample");
                if (r.statusCode() == 200) {
                    assertTrue(r.body().contains("Hello World!"), r.body());
                    admitted++;
                } else {
                    assertEquals(429, r.statusCode(), r.body());
                    assertTrue(Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow()) >= 1);
                    refused++;
                }
            }
            System.out.printf("[servers-it] %s: Tomcat's examples with the javax drop-in jar, 1/s burst 4: %d admitted, %d refused%n",
                    tomcat.title(), admitted, refused);
            assertTrue(admitted >= 4 && admitted <= 5, "the burst: " + admitted);
            assertEquals(12 - admitted, refused);
            assertEquals(429, tomcat.get(examples, "/jsp/jsp2/el/basic-arithmetic.jsp").statusCode(), "the JSPs share the bucket");
            String keys = TestRedis.shared().command("KEYS", prefix + "*");
            assertTrue(keys.contains(prefix + "/examples:{ip=127.0.0.1}:default"), keys);
            assertTrue(tomcat.logContains("TOLLGATE-010"), "Tollgate reports its start");
        }
    }

    /** A WAR of the examples directory, with the drop-in jar added and the filter first in web.xml. */
    private static void examplesWithTollgate(Path dir, Path dropIn, Path war) throws IOException {
        try (OutputStream out = Files.newOutputStream(war); ZipOutputStream zip = new ZipOutputStream(out);
             Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                String name = dir.relativize(p).toString().replace('\\', '/');
                byte[] bytes = Files.readAllBytes(p);
                if (name.equals("WEB-INF/web.xml")) {
                    String xml = new String(bytes, StandardCharsets.UTF_8);
                    int firstFilter = xml.indexOf("<filter>");
                    assertTrue(firstFilter > 0, "the examples' web.xml declares filters");
                    xml = xml.substring(0, firstFilter)
                            + "<filter>\n        <filter-name>tollgate</filter-name>\n"
                            + "        <filter-class>dev.tollgate.servlet.TollgateFilter</filter-class>\n"
                            + "        <async-supported>true</async-supported>\n    </filter>\n"
                            + "    <filter-mapping>\n        <filter-name>tollgate</filter-name>\n"
                            + "        <url-pattern>/*</url-pattern>\n    </filter-mapping>\n    "
                            + xml.substring(firstFilter);
                    bytes = xml.getBytes(StandardCharsets.UTF_8);
                }
                zip.putNextEntry(new ZipEntry(name));
                zip.write(bytes);
                zip.closeEntry();
            }
            zip.putNextEntry(new ZipEntry("WEB-INF/lib/tollgate-filter-servlet-javax-all.jar"));
            zip.write(Files.readAllBytes(dropIn));
            zip.closeEntry();
        }
    }
}
