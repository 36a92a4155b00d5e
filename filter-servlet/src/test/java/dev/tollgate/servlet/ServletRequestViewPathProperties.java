package dev.tollgate.servlet;

import static dev.tollgate.testing.Gens.just;
import static dev.tollgate.testing.Gens.lists;
import static dev.tollgate.testing.Gens.of;
import static dev.tollgate.testing.Theories.qt;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * {@link ServletRequestView#path()} puts the path together once per view and skips the
 * concatenation when a part is empty: it must answer what the plain concatenation of servlet
 * path and path info answered (the reference model), every time it is asked, and ask the
 * container only once.
 */
class ServletRequestViewPathProperties {

    /** Absent, empty, a few usual parts, or '/' and up to 12 chars of the whole UTF-16 range. */
    static Gen<String> part() {
        Gen<String> any = lists(Generate.characters(Character.MIN_VALUE, Character.MAX_VALUE), 0, 12).map(chars -> {
            StringBuilder text = new StringBuilder("/");
            chars.forEach(text::append);
            return text.toString();
        });
        return Generate.oneOf(just((String) null), just(""), of("/", "/api", "/a/b/", "/x y"), any);
    }

    @Test
    void thePathIsTheConcatenationOfServletPathAndPathInfo() {
        qt(500).forAll(part(), part()).checkAssert(this::thePathIsTheConcatenationOfServletPathAndPathInfo);
    }

    private void thePathIsTheConcatenationOfServletPathAndPathInfo(String servletPath, String pathInfo) {
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
