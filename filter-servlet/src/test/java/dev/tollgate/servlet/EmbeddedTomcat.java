package dev.tollgate.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * A real Tomcat 11 on a free loopback port with one application: a servlet at
 * {@code /api/hello} that counts its calls, an async servlet at {@code /api/async}, and the
 * filter over {@code /api/*} with the given init-params.
 */
final class EmbeddedTomcat implements AutoCloseable {

    final Tomcat tomcat = new Tomcat();
    final Context context;
    final AtomicInteger servletCalls = new AtomicInteger();
    final HttpClient http = HttpClient.newHttpClient();
    private final File base;

    EmbeddedTomcat(Filter filter, Map<String, String> initParams) throws Exception {
        this(filter, initParams, Map.of());
    }

    EmbeddedTomcat(Filter filter, Map<String, String> initParams, Map<String, String> contextParams) throws Exception {
        this(filter, initParams, contextParams, c -> { });
    }

    /** @param moreServlets adds servlets of the test's own to the application before it starts */
    EmbeddedTomcat(Filter filter, Map<String, String> initParams, Map<String, String> contextParams,
                   java.util.function.Consumer<Context> moreServlets) throws Exception {
        base = Files.createTempDirectory("tollgate-tomcat-").toFile();
        tomcat.setBaseDir(base.getAbsolutePath());
        tomcat.setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        context = tomcat.addContext("", base.getAbsolutePath());
        contextParams.forEach(context::addParameter);
        Tomcat.addServlet(context, "hello", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                servletCalls.incrementAndGet();
                resp.setContentType("text/plain");
                resp.getWriter().write("hello");
            }
        });
        context.addServletMappingDecoded("/api/hello", "hello");
        Wrapper async = Tomcat.addServlet(context, "async", new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) {
                servletCalls.incrementAndGet();
                var ctx = req.startAsync();
                ctx.start(() -> {
                    try {
                        ctx.getResponse().getWriter().write("async");
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    ctx.complete();
                });
            }
        });
        async.setAsyncSupported(true);
        context.addServletMappingDecoded("/api/async", "async");

        FilterDef def = new FilterDef();
        def.setFilterName("tollgate");
        def.setFilter(filter);
        def.setAsyncSupported("true");
        initParams.forEach(def::addInitParameter);
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("tollgate");
        map.addURLPatternDecoded("/api/*");
        context.addFilterMap(map);
        moreServlets.accept(context);
        tomcat.start();
    }

    boolean started() {
        return context.getState() == LifecycleState.STARTED;
    }

    int port() {
        return tomcat.getConnector().getLocalPort();
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
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
