package dev.tollgate.cdi;

import dev.tollgate.adapter.Integration;
import dev.tollgate.RequestView;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;

/**
 * The current HTTP request through the {@code HttpServletRequest} bean that CDI provides in a
 * Jakarta EE server (Weld in WildFly and Payara), read by reflection: the core names no servlet
 * type, and where the servlet API or that bean is missing (Weld SE) there is never a request.
 * The bean is request scoped; its client proxy is got once, and outside a servlet request (a JMS
 * listener, {@code @Schedule}, a thread of its own) any call on it fails, which is how "no
 * request" is told. Thread-safe.
 */
final class ServletRequests implements HttpCall.Source {

    private static final String REQUEST = "jakarta.servlet.http.HttpServletRequest";

    private final Object proxy;
    private final Method method;
    private final Method servletPath;
    private final Method pathInfo;
    private final Method remoteAddr;
    private final Method header;
    private final Method headers;
    private final Method principal;
    private final Method inRole;
    private final Method attribute;
    private final Method mapping;
    private final Method pattern;

    private ServletRequests(Object proxy, Class<?> type) throws ReflectiveOperationException {
        this.proxy = proxy;
        this.method = type.getMethod("getMethod");
        this.servletPath = type.getMethod("getServletPath");
        this.pathInfo = type.getMethod("getPathInfo");
        this.remoteAddr = type.getMethod("getRemoteAddr");
        this.header = type.getMethod("getHeader", String.class);
        this.headers = type.getMethod("getHeaders", String.class);
        this.principal = type.getMethod("getUserPrincipal");
        this.inRole = type.getMethod("isUserInRole", String.class);
        this.attribute = type.getMethod("getAttribute", String.class);
        this.mapping = type.getMethod("getHttpServletMapping");
        this.pattern = Class.forName("jakarta.servlet.http.HttpServletMapping", false, type.getClassLoader())
                .getMethod("getPattern");
    }

    /** The source for a bean manager: servlet requests when the server has the bean, else {@link HttpCall.Source#NONE}. */
    static HttpCall.Source of(BeanManager beans, ClassLoader loader) {
        try {
            Class<?> type = Class.forName(REQUEST, false, loader);
            Set<Bean<?>> found = beans.getBeans(type);
            Bean<?> bean = beans.resolve(found);
            if (bean == null) {
                return HttpCall.Source.NONE;
            }
            Object proxy = beans.getReference(bean, type, beans.createCreationalContext(bean));
            return new ServletRequests(proxy, type);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return HttpCall.Source.NONE;
        }
    }

    @Override
    public HttpCall current() {
        String httpMethod;
        try {
            httpMethod = (String) method.invoke(proxy); // fails outside a servlet request
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
        return new HttpCall(new View(httpMethod), decided());
    }

    private Set<String> decided() {
        Object d = call(attribute, Integration.DECIDED_ATTRIBUTE);
        if (d instanceof Collection<?> names) {
            List<String> out = new ArrayList<>(names.size());
            for (Object n : names) {
                if (n instanceof String s) {
                    out.add(s);
                }
            }
            return Set.copyOf(out);
        }
        return Set.of();
    }

    private Object call(Method m, Object... args) {
        try {
            return m.invoke(proxy, args);
        } catch (InvocationTargetException | IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    /** The request as the core sees it; the same reading as the servlet filter's view. */
    private final class View implements RequestView {
        private final String httpMethod;

        View(String httpMethod) {
            this.httpMethod = httpMethod;
        }

        @Override
        public String method() {
            return httpMethod;
        }

        @Override
        public String path() {
            Object sp = call(servletPath);
            Object pi = call(pathInfo);
            String path = (sp == null ? "" : sp.toString()) + (pi == null ? "" : pi.toString());
            return path.isEmpty() ? "/" : path;
        }

        @Override
        public String route() {
            Object m = call(mapping);
            if (m == null) {
                return null;
            }
            try {
                Object p = pattern.invoke(m);
                return p == null ? null : p.toString();
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        @Override
        public String remoteAddress() {
            Object a = call(remoteAddr);
            return a == null ? null : a.toString();
        }

        @Override
        public String header(String name) {
            Object h = call(header, name);
            return h == null ? null : h.toString();
        }

        @Override
        public List<String> headers(String name) {
            if (!(call(headers, name) instanceof Enumeration<?> values)) {
                return List.of();
            }
            List<String> out = new ArrayList<>(1);
            while (values.hasMoreElements()) {
                out.add(String.valueOf(values.nextElement()));
            }
            return out;
        }

        @Override
        public String principal() {
            return call(principal) instanceof Principal p ? p.getName() : null;
        }

        @Override
        public boolean userInRole(String role) {
            return Boolean.TRUE.equals(call(inRole, role));
        }
    }
}
