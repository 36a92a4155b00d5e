package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.adapter.Integration;
import dev.tollgate.cdi.RateLimitExceededException;
import dev.tollgate.cdi.RateLimitExtension;
import dev.tollgate.cdi.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CDI interceptor and the servlet filter in one application: a policy that a
 * {@code @RateLimited} bean method names and that has no {@code match} of its own limits that
 * method only; the filter does not apply it to every request, from the first; with a
 * {@code match} the filter applies it there. Another application of the same server, whose code
 * does not name it, still applies it by its {@code match}. A real Tomcat and a real CDI container
 * (Weld SE, the CDI of WildFly and Payara), in-memory store. Weld SE has no
 * {@code HttpServletRequest} bean; {@link CurrentRequest} is one as Weld's servlet support makes
 * it, the request of the current thread, set by a request listener.
 */
class CdiBesideFilterIT {

    /** The thread's HTTP request, as a servlet container's CDI keeps it. */
    static final ThreadLocal<HttpServletRequest> REQUEST = new ThreadLocal<>();

    @ApplicationScoped
    public static class Exports {
        @RateLimited("exports")
        public String export() {
            return "exported";
        }
    }

    /** The {@code HttpServletRequest} bean: fails outside a request, as the server's does. */
    public static class CurrentRequest {
        @Produces
        HttpServletRequest request() {
            return (HttpServletRequest) Proxy.newProxyInstance(HttpServletRequest.class.getClassLoader(),
                    new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> {
                        if (method.getDeclaringClass() == Object.class) {
                            return method.getName().equals("equals") ? proxy == args[0]
                                    : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : "request";
                        }
                        HttpServletRequest r = REQUEST.get();
                        if (r == null) {
                            throw new IllegalStateException("no request on this thread");
                        }
                        try {
                            return method.invoke(r, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }

    private final Map<String, String> properties = new HashMap<>();
    /** The CDI container started outside the server, if any. */
    private WeldContainer processCdi;

    @AfterEach
    void clear() {
        if (processCdi != null) {
            processCdi.close();
        }
        properties.keySet().forEach(System::clearProperty);
    }

    /** The server's configuration, which the filter and the CDI extension both read. */
    private void configure(String... keyValues) {
        properties.putAll(Map.of(
                "tollgate.metrics", "none",
                "tollgate.jmx", "false",
                "tollgate.policies", "default,exports",
                "tollgate.policy.default.limits", "100/s burst 100",
                "tollgate.policy.exports.limits", "2/h burst 2"));
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.put(keyValues[i], keyValues[i + 1]);
        }
        properties.forEach(System::setProperty);
    }

    /** What each request answered: status and body, {@code "-"} when it never reached a servlet. */
    private static List<String> answers(EmbeddedTomcat t, String... paths) throws Exception {
        List<String> out = new ArrayList<>();
        for (String p : paths) {
            HttpResponse<String> r = t.get(p);
            out.add(r.statusCode() + " " + (r.body().startsWith("{") ? "-" : r.body()));
        }
        return out;
    }

    /**
     * The application: the filter over {@code /api/*}, a plain servlet ({@code /api/hello}) and one
     * that calls the limited method ({@code /api/export}). With {@code cdiOfItsOwn}, CDI boots in
     * the application as Weld does in a servlet container (a container initializer, the
     * application's class loader the thread's, before the filters start; closed when it stops),
     * else it is the process's, started before the server (an embedded servlet container).
     */
    private EmbeddedTomcat application(boolean cdiOfItsOwn, AtomicInteger exportCalls) throws Exception {
        AtomicReference<WeldContainer> container = new AtomicReference<>(cdiOfItsOwn ? null : cdi());
        if (!cdiOfItsOwn) {
            processCdi = container.get();
        }
        return new EmbeddedTomcat(new TollgateFilter(), Map.of(), Map.of(), c -> {
            if (cdiOfItsOwn) {
                c.addServletContainerInitializer((classes, context) -> {
                    container.set(cdi());
                    context.addListener(new ServletContextListener() {
                        @Override
                        public void contextDestroyed(ServletContextEvent e) {
                            container.get().close();
                        }
                    });
                }, null);
            }
            ((StandardContext) c).addApplicationEventListener(new ServletRequestListener() {
                @Override
                public void requestInitialized(ServletRequestEvent e) {
                    REQUEST.set((HttpServletRequest) e.getServletRequest());
                }

                @Override
                public void requestDestroyed(ServletRequestEvent e) {
                    REQUEST.remove();
                }
            });
            Tomcat.addServlet(c, "export", new HttpServlet() {
                private static final long serialVersionUID = 1L;

                @Override
                protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                    exportCalls.incrementAndGet();
                    try {
                        resp.getWriter().write(container.get().select(Exports.class).get().export());
                    } catch (RateLimitExceededException e) {
                        resp.setStatus(e.answer().status());
                        resp.getWriter().write("refused by the method: " + e.policies());
                    }
                }
            });
            c.addServletMappingDecoded("/api/export", "export");
        });
    }

    private static WeldContainer cdi() {
        return new Weld("tollgate-" + UUID.randomUUID()).disableDiscovery().addExtension(new RateLimitExtension())
                .addBeanClasses(Exports.class, CurrentRequest.class).initialize();
    }

    @Test
    void plainRequestsDoNotSpendThePolicyOfAMethodThatHasNoMatch() throws Exception {
        configure();
        try (EmbeddedTomcat t = application(true, new AtomicInteger())) {
            assertEquals(List.of("200 hello", "200 hello", "200 hello", "200 hello"),
                    answers(t, "/api/hello", "/api/hello", "/api/hello", "/api/hello"),
                    "plain requests do not spend the method's budget");
            assertEquals(List.of("200 exported", "200 exported"), answers(t, "/api/export", "/api/export"));
            assertEquals(Set.of("exports"), Integration.namedInCode(t.context.getServletContext().getClassLoader()));
            assertEquals(Set.of(), Integration.namedInCode(CdiBesideFilterIT.class.getClassLoader()),
                    "declared under the application's class loader, not the server's");
        }
        assertEquals(Set.of(), Integration.namedInCode(CdiBesideFilterIT.class.getClassLoader()));
    }

    @Test
    void theMethodIsStillLimitedByItsOwnCheck() throws Exception {
        configure();
        AtomicInteger exportCalls = new AtomicInteger();
        try (EmbeddedTomcat t = application(true, exportCalls)) {
            assertEquals(List.of("200 exported", "200 exported", "429 refused by the method: [exports]"),
                    answers(t, "/api/export", "/api/export", "/api/export"),
                    "the method refuses the third call, the filter none");
            assertEquals(3, exportCalls.get());
            assertEquals("200 hello", answers(t, "/api/hello").get(0), "a plain request still passes");
        }
    }

    @Test
    void soWithTheCdiOfTheProcessAroundAnEmbeddedServer() throws Exception {
        configure();
        AtomicInteger exportCalls = new AtomicInteger();
        try (EmbeddedTomcat t = application(false, exportCalls)) {
            assertEquals(List.of("200 hello", "200 hello", "200 hello"), answers(t, "/api/hello", "/api/hello", "/api/hello"));
            assertEquals(List.of("200 exported", "200 exported", "429 refused by the method: [exports]"),
                    answers(t, "/api/export", "/api/export", "/api/export"));
        }
    }

    @Test
    void anotherApplicationOfTheServerWhoseCodeDoesNotNameThePolicyAppliesItByItsMatch() throws Exception {
        configure();
        try (EmbeddedTomcat t = application(true, new AtomicInteger())) {
            StandardContext other = new StandardContext();
            other.setPath("/other");
            other.setDocBase(t.context.getDocBase());
            other.addLifecycleListener(new Tomcat.FixContextListener());
            Tomcat.addServlet(other, "hello", new HttpServlet() {
                private static final long serialVersionUID = 1L;

                @Override
                protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                    resp.getWriter().write("other");
                }
            });
            other.addServletMappingDecoded("/api/hello", "hello");
            FilterDef def = new FilterDef();
            def.setFilterName("tollgate");
            def.setFilter(new TollgateFilter());
            other.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("tollgate");
            map.addURLPatternDecoded("/api/*");
            other.addFilterMap(map);
            t.tomcat.getHost().addChild(other);

            assertEquals(List.of("200 other", "200 other", "429 -"),
                    answers(t, "/other/api/hello", "/other/api/hello", "/other/api/hello"),
                    "the same policy names, another application: 'exports' has no match, so it covers every request");
            assertEquals(List.of("200 hello", "200 hello", "200 hello"), answers(t, "/api/hello", "/api/hello", "/api/hello"));
        }
    }

    @Test
    void withAMatchOfItsOwnTheFilterAppliesItThereAndTheMethodCountsItOnce() throws Exception {
        configure("tollgate.policy.exports.match", "/api/export");
        AtomicInteger exportCalls = new AtomicInteger();
        try (EmbeddedTomcat t = application(true, exportCalls)) {
            assertEquals(List.of("200 hello", "200 hello", "200 hello"), answers(t, "/api/hello", "/api/hello", "/api/hello"));
            assertEquals(List.of("200 exported", "200 exported", "429 -"),
                    answers(t, "/api/export", "/api/export", "/api/export"),
                    "decided by the filter, not counted again by the method");
            assertEquals(2, exportCalls.get());
        }
    }
}
