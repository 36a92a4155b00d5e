package dev.tollgate.jaxrs;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.servlet.ServletContainer;

/** Jersey (a real JAX-RS runtime) in a real Tomcat 11 on a free loopback port, under /api. */
final class JerseyOnTomcat implements AutoCloseable {

    private final Tomcat tomcat = new Tomcat();
    private final File base;
    private final HttpClient http = HttpClient.newHttpClient();
    final Context context;

    JerseyOnTomcat(ResourceConfig application) throws Exception {
        this(application, true);
    }

    /**
     * @param slotReleaseListener whether the container finds {@link SlotReleaseListener} (as it does
     *                            in a WAR); without it, only the JAX-RS filters give slots back
     */
    JerseyOnTomcat(ResourceConfig application, boolean slotReleaseListener) throws Exception {
        base = Files.createTempDirectory("tollgate-jersey-").toFile();
        tomcat.setBaseDir(base.getAbsolutePath());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        context = tomcat.addContext("", base.getAbsolutePath());
        // async supported, for resources that suspend (@Suspended AsyncResponse)
        Tomcat.addServlet(context, "jersey", new ServletContainer(application)).setAsyncSupported(true);
        context.addServletMappingDecoded("/api/*", "jersey");
        // what a container does for a WAR with filter-jaxrs in WEB-INF/lib (META-INF/services)
        if (slotReleaseListener) {
            context.addServletContainerInitializer(new SlotReleaseListener(), null);
        }
        tomcat.start();
    }

    int port() {
        return tomcat.getConnector().getLocalPort();
    }

    HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
        return send("GET", path, headers);
    }

    @Override
    public void close() throws Exception {
        tomcat.stop();
        tomcat.destroy();
        try (var files = Files.walk(base.toPath())) {
            files.sorted(java.util.Comparator.reverseOrder()).map(java.nio.file.Path::toFile).forEach(File::delete);
        }
    }
}
