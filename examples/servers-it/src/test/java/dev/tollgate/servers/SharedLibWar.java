package dev.tollgate.servers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A WAR without Tollgate inside, for the servlet drop-in jar installed once in a server's shared
 * library: a {@code web.xml} declaring {@code TollgateFilter} on every path with its limit as an
 * init-param, and one static file, {@code /hello.txt}, served by the server's default servlet.
 */
final class SharedLibWar {

    static final String PATH = "/hello.txt";

    private SharedLibWar() {
    }

    static Deployment write(Path dir, String context, String limits) throws IOException {
        String webXml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\">\n"
                + "  <filter>\n    <filter-name>tollgate</filter-name>\n"
                + "    <filter-class>dev.tollgate.servlet.TollgateFilter</filter-class>\n"
                + "    <init-param>\n      <param-name>tollgate.policy.default.limits</param-name>\n"
                + "      <param-value>" + limits + "</param-value>\n    </init-param>\n"
                + "  </filter>\n  <filter-mapping>\n    <filter-name>tollgate</filter-name>\n"
                + "    <url-pattern>/*</url-pattern>\n  </filter-mapping>\n</web-app>\n";
        Files.createDirectories(dir);
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

    /** How many of {@code requests} quick GETs of {@link #PATH} were admitted (200); every other must be a 429. */
    static int admitted(ServerProcess server, Deployment d, int requests) {
        int n = 0;
        for (int i = 0; i < requests; i++) {
            int status = server.get(d, PATH).statusCode();
            assertTrue(status == 200 || status == 429, d.contextPath() + PATH + ": " + status);
            n += status == 200 ? 1 : 0;
        }
        return n;
    }
}
