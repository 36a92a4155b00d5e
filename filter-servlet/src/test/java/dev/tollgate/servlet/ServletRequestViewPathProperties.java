package dev.tollgate.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link ServletRequestView#path()} puts the path together once per view and skips the
 * concatenation when a part is empty: it must answer what the plain concatenation of servlet
 * path and path info answered (the reference model), every time it is asked, and ask the
 * container only once.
 */
class ServletRequestViewPathProperties {

    @Provide
    Arbitrary<String> part() {
        return Arbitraries.oneOf(Arbitraries.just(null), Arbitraries.just(""), Arbitraries.of("/", "/api", "/a/b/", "/x y"),
                Arbitraries.strings().ofMaxLength(12).map(s -> "/" + s));
    }

    @Property(tries = 500)
    void thePathIsTheConcatenationOfServletPathAndPathInfo(@ForAll("part") String servletPath,
                                                           @ForAll("part") String pathInfo) {
        AtomicInteger asked = new AtomicInteger();
        HttpServletRequest request = (HttpServletRequest) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (p, m, a) -> switch (m.getName()) {
                    case "getServletPath" -> {
                        asked.incrementAndGet();
                        yield servletPath;
                    }
                    case "getPathInfo" -> pathInfo;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        ServletRequestView view = new ServletRequestView(request);
        String reference = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        String want = reference.isEmpty() ? "/" : reference;
        assertEquals(want, view.path());
        assertEquals(want, view.path());
        assertEquals(1, asked.get());
    }
}
