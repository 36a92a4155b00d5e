package dev.tollgate.servers;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A WAR as docs/servlet.md's "Drop-in jars" tells a user without Maven to make one: the servlet
 * drop-in jar ({@code tollgate-filter-servlet-<version>-all.jar}) alone in {@code WEB-INF/lib},
 * {@code TollgateFilter} declared in {@code web.xml} on every path, and one static file
 * ({@link #PATH}) that the server's default servlet serves behind the filter. No limits inside:
 * the operator sets them in the environment.
 */
final class DropInWar {

    /** The static file behind the filter; it answers {@link #BODY}. */
    static final String PATH = "/hello.txt";
    static final String BODY = "hello from a drop-in";

    private DropInWar() {
    }

    /** Writes {@code <context>.war} into {@code dir}. */
    static Deployment write(Path dir, String context) throws IOException {
        Path jar = Build.libsDir().resolve("tollgate-filter-servlet-all.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No drop-in jar at " + jar + "; the build copies it there in pre-integration-test");
        }
        String webXml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\">\n"
                + "  <filter>\n    <filter-name>tollgate</filter-name>\n"
                + "    <filter-class>dev.tollgate.servlet.TollgateFilter</filter-class>\n"
                + "  </filter>\n  <filter-mapping>\n    <filter-name>tollgate</filter-name>\n"
                + "    <url-pattern>/*</url-pattern>\n  </filter-mapping>\n</web-app>\n";
        Files.createDirectories(dir);
        Path war = dir.resolve(context + ".war");
        try (OutputStream out = Files.newOutputStream(war); ZipOutputStream zip = new ZipOutputStream(out)) {
            put(zip, "WEB-INF/web.xml", webXml.getBytes(StandardCharsets.UTF_8));
            put(zip, "WEB-INF/lib/" + jar.getFileName(), Files.readAllBytes(jar));
            put(zip, PATH.substring(1), (BODY + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return new Deployment(war, context);
    }

    private static void put(ZipOutputStream zip, String name, byte[] content) throws IOException {
        zip.putNextEntry(new ZipEntry(name));
        zip.write(content);
        zip.closeEntry();
    }
}
