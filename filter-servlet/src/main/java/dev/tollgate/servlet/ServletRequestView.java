package dev.tollgate.servlet;

import dev.tollgate.RequestView;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * A servlet request as the core sees it, for one decision (its path put together once). Every
 * method answers without throwing. Not thread-safe: used by the thread deciding the request.
 */
final class ServletRequestView implements RequestView {

    private final HttpServletRequest request;
    /** The path, once asked: a view lives for one decision, during which the container's path does not change. */
    private String path;

    ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /**
     * The container's decoded, normalised path inside the application, the one it routed by:
     * Tomcat has cut path parameters, merged {@code //} and resolved dot segments (encoded ones
     * too); a trailing slash stays in the path info. Matching reads the path that way
     * ({@link dev.tollgate.RequestMatcher#parse}).
     */
    @Override
    public String path() {
        String p = path;
        if (p == null) {
            // asked several times per decision (matching, costs, the plan): put together once
            String servletPath = request.getServletPath();
            String pathInfo = request.getPathInfo();
            if (pathInfo == null || pathInfo.isEmpty()) {
                p = servletPath == null || servletPath.isEmpty() ? "/" : servletPath;
            } else if (servletPath == null || servletPath.isEmpty()) {
                p = pathInfo;
            } else {
                p = servletPath + pathInfo;
            }
            path = p;
        }
        return p;
    }

    /** The servlet mapping that matched, e.g. {@code /api/*}. */
    @Override
    public String route() {
        try {
            HttpServletMapping mapping = request.getHttpServletMapping();
            return mapping == null ? null : mapping.getPattern();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String remoteAddress() {
        return request.getRemoteAddr();
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }

    @Override
    public String principal() {
        Principal p = request.getUserPrincipal();
        return p == null ? null : p.getName();
    }

    @Override
    public boolean userInRole(String role) {
        return request.isUserInRole(role);
    }
}
